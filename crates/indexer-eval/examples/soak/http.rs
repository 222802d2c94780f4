//! HTTP/1.1 over `TcpStream`: a client's connection, its requests and the reading of answers.

use crate::error::Result;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long a request may take before it counts as an error (the server's own limit is 10 s).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// An HTTP answer.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    /// The start of the body, for an error message.
    pub(crate) fn excerpt(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        text.chars().take(200).collect()
    }
}

/// A client's connection: kept alive between requests, or a new one for each.
#[derive(Debug)]
pub(crate) struct Conn {
    addr: SocketAddr,
    keep_alive: bool,
    stream: Option<TcpStream>,
}

impl Conn {
    pub(crate) fn new(addr: SocketAddr, keep_alive: bool) -> Conn {
        Conn {
            addr,
            keep_alive,
            stream: None,
        }
    }

    /// One request and its whole answer. After any failure the connection is dropped, so the
    /// next request starts on a new one (a failure is never retried: it is what we count).
    pub(crate) fn request(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> Result<Reply> {
        let result = self.exchange(method, path, body);
        match &result {
            Ok((_, close)) if !*close && self.keep_alive => {}
            _ => self.stream = None,
        }
        result.map(|(r, _)| r).map_err(|e| e.to_string())
    }

    fn exchange(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> std::io::Result<(Reply, bool)> {
        if self.stream.is_none() {
            let s = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5))?;
            s.set_read_timeout(Some(REQUEST_TIMEOUT))?;
            s.set_write_timeout(Some(REQUEST_TIMEOUT))?;
            s.set_nodelay(true)?;
            self.stream = Some(s);
        }
        let s = self.stream.as_mut().expect("connected above");
        let connection = if self.keep_alive {
            "keep-alive"
        } else {
            "close"
        };
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: {connection}\r\n",
            self.addr
        );
        if let Some(b) = body {
            let _ = write!(
                req,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            );
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body.unwrap_or_default());
        s.write_all(&bytes)?;
        read_reply(s)
    }
}

/// Reads one answer; true when the server closes the connection after it.
fn read_reply(s: &mut TcpStream) -> std::io::Result<(Reply, bool)> {
    let bad = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidData, m);
    let mut raw = Vec::with_capacity(16 * 1024);
    let mut buf = [0u8; 16 * 1024];
    let mut eof = false;
    loop {
        if let Some(head_end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = Head::parse(&raw[..head_end]).map_err(bad)?;
            let body = &raw[head_end + 4..];
            if let Some(body) = head.complete_body(body, eof).map_err(bad)? {
                let reply = Reply {
                    status: head.status,
                    body,
                };
                return Ok((reply, head.close || eof));
            }
        }
        if eof {
            return Err(bad(format!(
                "the connection closed after {} bytes of an answer",
                raw.len()
            )));
        }
        let n = s.read(&mut buf)?;
        eof = n == 0;
        raw.extend_from_slice(&buf[..n]);
    }
}

/// The parts of a response head the client needs.
#[derive(Debug)]
struct Head {
    status: u16,
    content_length: Option<usize>,
    chunked: bool,
    close: bool,
}

impl Head {
    fn parse(raw: &[u8]) -> Result<Head> {
        let text = std::str::from_utf8(raw).map_err(|_| "the response head is not UTF-8")?;
        let mut lines = text.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.strip_prefix("HTTP/1.1 "))
            .and_then(|l| l.get(..3))
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("no HTTP/1.1 status line: {text:.80}"))?;
        let mut head = Head {
            status,
            content_length: None,
            chunked: false,
            close: false,
        };
        for (k, v) in lines.filter_map(|l| l.split_once(':')) {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_ascii_lowercase());
            match k.as_str() {
                "content-length" => {
                    head.content_length = Some(v.parse().map_err(|_| format!("bad length {v}"))?)
                }
                "transfer-encoding" => head.chunked = v.contains("chunked"),
                "connection" => head.close = v.contains("close"),
                _ => {}
            }
        }
        Ok(head)
    }

    /// The body once `raw` holds all of it (`None`: read on).
    fn complete_body(&self, raw: &[u8], eof: bool) -> Result<Option<Vec<u8>>> {
        if let Some(len) = self.content_length {
            return match raw.len().cmp(&len) {
                std::cmp::Ordering::Less => Ok(None),
                std::cmp::Ordering::Equal => Ok(Some(raw.to_vec())),
                std::cmp::Ordering::Greater => {
                    Err(format!("{} bytes after a body of {len}", raw.len() - len))
                }
            };
        }
        if self.chunked {
            return Ok(dechunk(raw));
        }
        Ok(eof.then(|| raw.to_vec()))
    }
}

/// A chunked body, once its last chunk has arrived.
fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&b[..eol]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        b = &b[eol + 2..];
        if size == 0 {
            return b.starts_with(b"\r\n").then_some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_by_length_and_by_chunks() {
        let head = Head::parse(b"HTTP/1.1 200 OK\r\ncontent-length: 2").unwrap();
        assert_eq!(head.complete_body(b"{", false), Ok(None));
        assert_eq!(head.complete_body(b"{}", false), Ok(Some(b"{}".to_vec())));
        assert_eq!(dechunk(b"2\r\n{}\r\n0\r\n\r\n"), Some(b"{}".to_vec()));
        assert_eq!(dechunk(b"2\r\n{}\r\n"), None);
    }
}
