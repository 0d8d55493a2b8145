//! stdio: newline-delimited JSON-RPC on stdin and stdout. Logs belong on stderr.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
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
    pub async fn serve_lines<R, W>(&self, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (sender, receiver) = mpsc::unbounded_channel::<Vec<u8>>();
        let writer = tokio::spawn(write_lines(receiver, output));
        // Messages of the legacy session that belong to no request.
        let (standalone, mut standalone_messages) = message_channel();
        let forward = sender.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(message) = standalone_messages.recv().await {
                let _ = forward.send(message.to_string().into_bytes());
            }
        });
        let connection = Arc::new(Connection::new(standalone));
        let mut reader = BufReader::new(input);
        let mut running = JoinSet::new();
        let limit = self.inner.body_limit;
        loop {
            let line = match read_line(&mut reader, limit).await? {
                None => break,
                Some(Line::TooLong) => {
                    let body = serde_json::json!({
                        "jsonrpc": "2.0",
                        "error": { "code": -32600, "message": format!("message exceeds the limit of {limit} bytes") },
                    });
                    let _ = sender.send(body.to_string().into_bytes());
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
                let mut outcome = handling.outcome;
                if let Some(mut messages) = handling.messages {
                    let finished = loop {
                        tokio::select! {
                            biased;
                            Some(message) = messages.recv() => {
                                let _ = sender.send(message.to_string().into_bytes());
                            }
                            finished = &mut outcome => break finished,
                        }
                    };
                    while let Some(message) = messages.try_recv() {
                        let _ = sender.send(message.to_string().into_bytes());
                    }
                    if let Some(body) = finished.body {
                        let _ = sender.send(body);
                    }
                } else if let Some(body) = outcome.await.body {
                    let _ = sender.send(body);
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

async fn write_lines<W: AsyncWrite + Unpin>(
    mut receiver: mpsc::UnboundedReceiver<Vec<u8>>,
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
    use super::*;

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
