//! What the tests of `indexer serve` share: a guard that kills a child process (and the
//! processes it started) however the test ends, free loopback ports, a started server, and a
//! small HTTP/1.1 client over `std::net::TcpStream` (no client crate for a few requests).

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The browser, load and model-server tests each load the cores; run them one at a time so
/// the timeouts of one do not depend on the others.
pub fn heavy_lock() -> MutexGuard<'static, ()> {
    static HEAVY: Mutex<()> = Mutex::new(());
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A child process in its own process group, killed with the whole group on drop (a panicking
/// test included), so a server, chromedriver or the browsers it starts never outlive the test.
#[derive(Debug)]
pub struct Guard {
    child: std::process::Child,
}

impl Guard {
    pub fn spawn(name: &str, cmd: &mut Command) -> Guard {
        let child = cmd
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Guard { child }
    }

    /// The process id (also its process group's).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// `Some(status)` once the process has ended.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    pub fn kill(&mut self) {
        if self.exited().is_none() {
            // The group id is the child's pid (process_group(0)): this reaches its children.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port nobody listens on now (the kernel's pick; the window until the child binds
/// it is short).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind a loopback port")
        .port()
}

/// A running `indexer serve`, killed on drop. Its stderr goes to `log`.
#[derive(Debug)]
pub struct Server {
    pub addr: SocketAddr,
    pub log: PathBuf,
    pub proc: Guard,
}

impl Server {
    /// Starts `indexer --index INDEX serve --addr 127.0.0.1:PORT EXTRA...` in `dir` and waits
    /// until `/health` answers.
    pub fn start(dir: &Path, index: &Path, extra: &[&str]) -> Server {
        let port = free_port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let log = dir.join(format!("serve-{port}.log"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_indexer"));
        cmd.arg("--index")
            .arg(index)
            .args(["serve", "--addr", &addr.to_string()])
            .args(extra)
            .current_dir(dir)
            .env("INDEXER_RUNTIME", super::runtime())
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        let mut server = Server {
            addr,
            log,
            proc: Guard::spawn("indexer serve", &mut cmd),
        };
        let t0 = Instant::now();
        loop {
            if let Some(st) = server.proc.exited() {
                panic!("indexer serve exited ({st}):\n{}", server.log_text());
            }
            if let Ok(r) = http(addr, "GET", "/health", &[], None)
                && r.status == 200
            {
                return server;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "indexer serve did not answer /health within 60 s:\n{}",
                server.log_text()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn get(&self, path: &str) -> Reply {
        http(self.addr, "GET", path, &[], None)
            .unwrap_or_else(|e| panic!("GET {path}: {e}\n{}", self.log_text()))
    }
}

/// An HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body)
            .map_err(|e| format!("not JSON ({e}), status {}: {}", self.status, self.text()))
    }
}

/// One request on a fresh connection (`Connection: close`), with a 30 s read timeout.
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> std::io::Result<Reply> {
    http_timeout(addr, method, path, headers, body, Duration::from_secs(30))
}

/// [`http`] with another read timeout (an answer that waits for a model server).
pub fn http_timeout(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
    read_timeout: Duration,
) -> std::io::Result<Reply> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    s.set_read_timeout(Some(read_timeout))?;
    s.set_nodelay(true)?;
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    s.write_all(&bytes)?;
    // Read up to the end the head announces: some servers (chromedriver) keep the connection
    // open whatever `Connection: close` says.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if let Some(len) = complete_len(&raw) {
            raw.truncate(len);
            break;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    parse_reply(&raw)
}

/// The length of the whole response once `raw` holds it (by Content-Length or the last chunk).
fn complete_len(raw: &[u8]) -> Option<usize> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    if let Some(len) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return (raw.len() >= end + len).then_some(end + len);
    }
    if head.contains("transfer-encoding: chunked") {
        return raw[end..]
            .windows(5)
            .position(|w| w == b"0\r\n\r\n")
            .filter(|&p| p == 0 || raw[end + p - 2..end + p] == *b"\r\n")
            .map(|p| end + p + 5);
    }
    None
}

fn parse_reply(raw: &[u8]) -> std::io::Result<Reply> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no end of the response head"))?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| bad("head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| bad("no status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body).ok_or_else(|| bad("bad chunked body"))?;
    }
    Ok(Reply {
        status,
        headers,
        body,
    })
}

fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&b[..eol]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        b = &b[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

/// Percent-encodes a query-string value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn http_reply_parsing() {
    let r = parse_reply(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap();
    assert_eq!(
        (r.status, r.header("x-a"), r.text().as_str()),
        (200, Some("b"), "abcde")
    );
    let r = parse_reply(b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}").unwrap();
    assert_eq!((r.status, r.body.as_slice()), (404, b"{}".as_slice()));
    assert!(parse_reply(b"HTTP/1.1 200 OK\r\n").is_err());
    assert_eq!(encode("a b/é"), "a%20b%2F%C3%A9");
}

/// The crop folder deleted under a running server: searches still answer (without the crop's
/// link), and the image endpoint says the image is gone instead of failing.
#[test]
fn a_deleted_crop_folder_degrades_to_no_images() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::copy(
        super::corpus("revtex-apssamp.pdf"),
        dir.join("docs/revtex.pdf"),
    )
    .unwrap();
    let o = super::indexer(dir, &["--index", "idx", "ingest", "docs", "--quiet"]);
    assert!(o.status.success(), "{}", super::stderr(&o));
    let server = Server::start(dir, &dir.join("idx"), &[]);
    let search = || {
        server
            .get("/search?q=table&kind=table&fields=doc,crop_url")
            .json()
            .unwrap()
    };
    let v = search();
    let crop = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|h| h["crop_url"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no table with a crop: {v}"));
    let r = server.get(&crop);
    assert_eq!(r.status, 200);
    assert!(r.body.starts_with(b"\x89PNG"));

    std::fs::remove_dir_all(dir.join("idx/crops")).unwrap();
    let r = server.get(&crop);
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(r.json().unwrap()["code"], "image_not_found");
    let v = search();
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{v}");
    assert!(hits.iter().all(|h| h["crop_url"].is_null()), "{v}");
    assert_eq!(server.get("/health").status, 200);
}
