//! "Memory follows the bytes received, not the chunks": what the HTTP transport holds while a
//! request body is still arriving, counted by an instrumented global allocator. A declared
//! length is not allocated before its bytes come, and a body of many tiny chunks costs its
//! bytes, not a frame (and the read buffer behind it) per chunk. One test in its own binary,
//! so nothing else allocates while it counts.

use std::alloc::System;
use std::time::Duration;

use mcp_runtime::server::Server;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes allocated and not freed since `region` began.
fn held(region: &Region<'_, System>) -> isize {
    let change = region.change();
    change.bytes_allocated as isize - change.bytes_deallocated as isize + change.bytes_reallocated
}

/// What the server holds once it has read all it was sent: measured until two looks 100 ms
/// apart agree (the server runs on this thread, so each pause lets it read), at most 5 s.
async fn settled(region: &Region<'_, System>) -> isize {
    let mut last = held(region);
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = held(region);
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

fn head(addr: std::net::SocketAddr, framing: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         {framing}\r\n"
    )
}

#[test]
fn a_body_still_arriving_costs_the_bytes_received() {
    const MIB: isize = 1024 * 1024;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // The default body limit, 4 MiB.
        let server = Server::builder().name("memory").build();
        tokio::spawn(async move {
            server
                .serve_listener(listener, std::future::pending())
                .await
        });

        // 4 MiB declared, 1 KiB sent.
        let declared = format!(
            "{}{}",
            head(addr, "Content-Length: 4194304\r\n"),
            " ".repeat(1024)
        );
        let region = Region::new(GLOBAL);
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(declared.as_bytes()).await.unwrap();
        let declared_held = settled(&region).await;
        drop(stream);
        println!("4 MiB declared, 1 KiB sent: {declared_held} bytes held");
        assert!(
            declared_held < MIB,
            "{declared_held} bytes held for 1 KiB received"
        );

        // 100,000 chunks of one byte each (100 KB of body, 600 KB on the wire), not ended.
        let mut chunked = head(addr, "Transfer-Encoding: chunked\r\n").into_bytes();
        for _ in 0..100_000 {
            chunked.extend_from_slice(b"1\r\n \r\n");
        }
        let region = Region::new(GLOBAL);
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(&chunked).await.unwrap();
        let chunked_held = settled(&region).await;
        drop(stream);
        println!("100,000 one-byte chunks: {chunked_held} bytes held");
        assert!(
            chunked_held < 4 * MIB,
            "{chunked_held} bytes held for 100 KB of body"
        );
    });
}
