//! stdio: newline-delimited JSON-RPC on stdin and stdout. Logs belong on stderr.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use std::sync::Arc;

use crate::server::{Connection, RequestFacts, Server, message_channel};

/// One line read under a length limit.
enum Line {
    /// A complete line (without its newline).
    Complete(Vec<u8>),
    /// A line longer than the limit; its bytes were discarded.
    TooLong,
}

impl Server {
    /// Serves newline-delimited JSON-RPC on stdin and stdout until stdin closes, then finishes
    /// the requests in flight. Nothing but JSON-RPC messages is written to stdout.
    pub async fn serve_stdio(&self) -> std::io::Result<()> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves newline-delimited JSON-RPC read from `input`, answering on `output`, until
    /// `input` ends. Requests run concurrently; each answer is one line, preceded by the
    /// messages of its request (progress, log messages, and on a legacy session the
    /// questions its flow sends the client). The connection is one legacy session once it
    /// sends `initialize`; when `input` ends, that session's calls are cancelled.
    ///
    /// Memory stays bounded when the client does not read: once 256 lines wait to be written
    /// (or 1,024 requests are being handled), input is not read until that changes.
    ///
    /// Everything runs in an `INFO` span `connection` (`transport = "stdio"`), the parent of
    /// each request's span. A call the client cancels with `notifications/cancelled` is
    /// dropped where it waits and gets no answer.
    pub async fn serve_lines<R, W>(&self, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let span = tracing::info_span!("connection", transport = "stdio");
        Server::in_connection(span, self.serve_lines_in(input, output)).await
    }

    async fn serve_lines_in<R, W>(&self, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        // A client that stops reading stdout makes lines wait; past a bounded number, input
        // is not read until some are written, so memory stays bounded.
        let (sender, receiver) = mpsc::channel::<Vec<u8>>(WAITING_LINES);
        let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
        let writer = tokio::spawn(write_lines(receiver, output));
        // Messages of the legacy session that belong to no request.
        let (standalone, mut standalone_messages) = message_channel();
        let forward = sender.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(message) = standalone_messages.recv_message().await {
                let _ = forward.send(message.into_text()).await;
            }
        });
        let connection = Arc::new(Connection::new(standalone));
        let mut reader = BufReader::new(input);
        let mut running = JoinSet::new();
        let limit = self.inner.body_limit;
        loop {
            // Room for one more answer, and one more request in flight, before reading on.
            let Ok(room) = sender.reserve().await else {
                break;
            };
            drop(room);
            let Ok(permit) = Arc::clone(&in_flight).acquire_owned().await else {
                break;
            };
            let line = match read_line(&mut reader, limit).await? {
                None => break,
                Some(Line::TooLong) => {
                    let body = serde_json::json!({
                        "jsonrpc": "2.0",
                        "error": { "code": -32600, "message": format!("message exceeds the limit of {limit} bytes") },
                    });
                    let _ = sender.send(body.to_string().into_bytes()).await;
                    continue;
                }
                Some(Line::Complete(line)) => line,
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let handling = self.handle(&line, RequestFacts::connection(Arc::clone(&connection)));
            let sender = sender.clone();
            running.spawn(async move {
                let _permit = permit;
                let mut outcome = handling.outcome;
                if let Some(mut messages) = handling.messages {
                    let finished = loop {
                        tokio::select! {
                            biased;
                            Some(message) = messages.recv_message() => {
                                let _ = sender.send(message.into_text()).await;
                            }
                            finished = &mut outcome => break finished,
                        }
                    };
                    while let Some(message) = messages.try_message() {
                        let _ = sender.send(message.into_text()).await;
                    }
                    if let Some(body) = finished.body {
                        let _ = sender.send(body).await;
                    }
                } else if let Some(body) = outcome.await.body {
                    let _ = sender.send(body).await;
                }
            });
            // Reap finished requests so the set does not grow with the session.
            while running.try_join_next().is_some() {}
        }
        // The client is gone: nobody will answer the session's questions.
        connection.end(self);
        drop(connection);
        while running.join_next().await.is_some() {}
        forwarder.abort();
        drop(sender);
        writer.await.map_err(std::io::Error::other)?
    }
}

/// Lines that may wait to be written before input stops being read.
const WAITING_LINES: usize = 256;
/// Requests of one connection handled at once before input stops being read. Legacy calls
/// waiting for the client's answer count too.
const IN_FLIGHT: usize = 1024;

async fn write_lines<W: AsyncWrite + Unpin>(
    mut receiver: mpsc::Receiver<Vec<u8>>,
    mut output: W,
) -> std::io::Result<()> {
    while let Some(mut line) = receiver.recv().await {
        line.push(b'\n');
        output.write_all(&line).await?;
        output.flush().await?;
    }
    Ok(())
}

/// Reads one `\n`-terminated line, keeping at most `limit` bytes of it in memory.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => None,
                (true, true) => Some(Line::TooLong),
                (true, false) => Some(Line::Complete(line)),
            });
        }
        read_any = true;
        let (chunk, found, used) = match available.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&available[..end], true, end + 1),
            None => (available, false, available.len()),
        };
        if !too_long && line.len() + chunk.len() <= limit {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        reader.consume(used);
        if found {
            return Ok(Some(if too_long {
                Line::TooLong
            } else {
                Line::Complete(line)
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn input_waits_while_answers_wait_to_be_written_and_none_is_lost() {
        const REQUESTS: usize = 20_000;
        let server = Server::builder().build();
        let (mut client_in, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, mut client_out) = tokio::io::duplex(1024);
        let serving = tokio::spawn(async move { server.serve_lines(server_in, server_out).await });
        let requests: Vec<u8> = (0..REQUESTS)
            .flat_map(|id| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"x"}}"#)
                    .into_bytes()
                    .into_iter()
                    .chain([b'\n'])
            })
            .collect();
        // Nobody reads the answers: the server must stop reading long before the end.
        let mut written = 0;
        let stalled = tokio::time::timeout(Duration::from_secs(2), async {
            for chunk in requests.chunks(4096) {
                client_in.write_all(chunk).await.unwrap();
                written += chunk.len();
            }
        })
        .await
        .is_err();
        assert!(
            stalled,
            "the server read all {} bytes without writing",
            requests.len()
        );
        assert!(written < requests.len() / 2, "read {written} bytes ahead");
        // Reading the answers lets it go on, and every request gets its answer.
        let reader = tokio::spawn(async move {
            let mut answers = Vec::new();
            client_out.read_to_end(&mut answers).await.unwrap();
            answers
        });
        client_in.write_all(&requests[written..]).await.unwrap();
        drop(client_in);
        serving.await.unwrap().unwrap();
        let answers = reader.await.unwrap();
        assert_eq!(
            answers.iter().filter(|&&byte| byte == b'\n').count(),
            REQUESTS
        );
    }

    #[tokio::test]
    async fn lines_over_the_limit_are_discarded_whole() {
        let input: &[u8] = b"short\nthis one is too long\nlast";
        let mut reader = BufReader::with_capacity(4, input);
        let mut lines = Vec::new();
        while let Some(line) = read_line(&mut reader, 8).await.unwrap() {
            lines.push(match line {
                Line::Complete(bytes) => String::from_utf8(bytes).unwrap(),
                Line::TooLong => "<too long>".to_owned(),
            });
        }
        assert_eq!(lines, ["short", "<too long>", "last"]);
    }
}
