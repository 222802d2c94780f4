//! The search page and `/widget.js` in a real browser: Debian's chromium, headless, driven
//! through chromedriver with the W3C WebDriver protocol (JSON over HTTP, spoken here with the
//! small client of `serve.rs`), against a real `indexer serve` over an index of real PDFs.
//! chromium and chromedriver come from `tools/test-deps`; without them the test fails.

use super::serve::{Guard, Reply, Server, free_port, heavy_lock, http};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The flags the issue asks for; chromedriver adds its own automation flags.
const CHROMIUM_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--user-data-dir=",
];

/// Verified with `indexer query` on these two PDFs: the first hit is the figure "Figure 3:
/// Mosaic plot for the PreSex data." on page 5 of the vcd paper, with a crop.
const QUERY: &str = "mosaic plot for the PreSex data";
const EXPECTED_DOC: &str = "docs/vcd-strucplot.pdf";
const EXPECTED_PAGE: &str = "page 5";
/// A page of a docs site beside the PDFs: its sections have ids, which results link to.
const GUIDE: &str = r#"<!doctype html><html><head><title>Plot guide</title></head><body>
<h1 id="plot-guide">Plot guide</h1><p>How the package draws plots of categorical data.</p>
<p>Every display of the package starts from a contingency table: a table of counts, one cell for
each combination of the levels of its factors. The counts decide the areas of the tiles, the
residuals of a model decide their shading, and the labels name the levels along the margins.
The sections below describe one layout each, with the arguments that change it and the data
sets the examples use, so that a reader can choose the layout that fits a question.</p>
<p>Margins are drawn first, then the tiles, then the legend; each step can be replaced by a
function of the same name, and each takes its graphical parameters from the same list. A
layout that is drawn twice with the same arguments gives the same picture, which makes the
displays easy to test and to compare across versions of the package and of the data.</p>
<div class="section level2" id="zebrafinch-layout"><h2>The zebrafinch layout</h2>
<p>The zebrafinch layout stacks the tiles of each stratum in one column, so that strata can be
compared from top to bottom.</p></div>
</body></html>"#;

const KEY_UP: &str = "\u{E013}";
const KEY_DOWN: &str = "\u{E015}";
const KEY_ENTER: &str = "\u{E007}";
const KEY_BACKSPACE: &str = "\u{E003}";
const KEY_CTRL: &str = "\u{E009}";
/// Releases the modifier keys held down in the same keystrokes.
const KEY_RELEASE: &str = "\u{E000}";

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// The browser binary itself: Debian's `/usr/bin/chromium` is a launcher script that adds
/// flags of its own from /etc/chromium.d (GPU rasterization, extensions), so the real binary
/// behind it is started instead, with exactly our flags.
fn chromium_binary() -> PathBuf {
    let launcher = on_path("chromium")
        .or_else(|| on_path("chromium-browser"))
        .unwrap_or_else(|| panic!("chromium is not installed\nhint: run tools/test-deps"));
    let real = Path::new("/usr/lib/chromium/chromium");
    if real.is_file() {
        real.to_path_buf()
    } else {
        launcher
    }
}

fn chromedriver_binary() -> PathBuf {
    on_path("chromedriver")
        .unwrap_or_else(|| panic!("chromedriver is not installed\nhint: run tools/test-deps"))
}

/// A chromedriver with one headless chromium session.
struct Browser {
    driver: SocketAddr,
    session: String,
    profile: PathBuf,
    proc: Guard,
}

impl Browser {
    fn start(tmp: &Path) -> Browser {
        let chromium = chromium_binary();
        let chromedriver = chromedriver_binary();
        let port = free_port();
        let log = tmp.join("chromedriver.log");
        let mut proc = Guard::spawn(
            "chromedriver",
            Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .arg(format!("--log-path={}", log.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        let driver: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let t0 = Instant::now();
        while !http(driver, "GET", "/status", &[], None).is_ok_and(|r| r.status == 200) {
            if let Some(st) = proc.exited() {
                panic!("chromedriver exited ({st})\nhint: run tools/test-deps");
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tmp.join("chromium-profile");
        std::fs::create_dir_all(&profile).unwrap();
        let args: Vec<String> = CHROMIUM_FLAGS
            .iter()
            .map(|f| match *f {
                "--user-data-dir=" => format!("{f}{}", profile.display()),
                f => f.to_string(),
            })
            .collect();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": {"binary": chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let r = wd(driver, "POST", "/session", Some(&caps)).unwrap_or_else(|e| {
            panic!(
                "chromium did not start: {e}\nchromedriver log:\n{}",
                tail(&log)
            )
        });
        let session = r["sessionId"].as_str().expect("a session id").to_string();
        let b = Browser {
            driver,
            session,
            profile,
            proc,
        };
        b.cmd(
            "POST",
            "/window/rect",
            json!({"width": 1100, "height": 1000}),
        );
        b
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let body = (method == "POST").then_some(&body);
        wd(self.driver, method, &path, body)
            .unwrap_or_else(|e| panic!("webdriver {method} {path}: {e}"))
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }));
    }

    fn find(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("an element reference")
            .to_string()
    }

    /// Keystrokes into an element, one key event each (what a person typing does).
    fn keys(&self, element: &str, text: &str) {
        self.cmd(
            "POST",
            &format!("/element/{element}/value"),
            json!({ "text": text }),
        );
    }

    fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": []}),
        )
    }

    /// Polls `script` until it returns something truthy, and returns that.
    fn wait_for(&self, what: &str, script: &str) -> Value {
        let t0 = Instant::now();
        loop {
            let v = self.js(script);
            if !matches!(&v, Value::Null | Value::Bool(false)) && v != json!(0) && v != json!("") {
                return v;
            }
            if t0.elapsed() > Duration::from_secs(30) {
                let body = self.js("return document.body.innerText");
                panic!(
                    "timed out waiting for {what}; the page shows:\n{}\nconsole:\n{:#}",
                    body.as_str().unwrap_or_default(),
                    self.console()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The browser's console messages since the last call (chromedriver's log extension).
    fn console(&self) -> Value {
        self.cmd("POST", "/se/log", json!({"type": "browser"}))
    }

    fn screenshot(&self, path: &Path) -> Vec<u8> {
        let b64 = self.cmd("GET", "/screenshot", Value::Null);
        let png = base64_decode(b64.as_str().expect("a base64 screenshot"));
        std::fs::write(path, &png).unwrap();
        png
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closing the session ends chromium cleanly; then chromedriver's process group goes,
        // and any browser process still holding our fresh profile (found by its unique
        // --user-data-dir, never by name) is killed by its pid.
        let _ = wd(
            self.driver,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        self.proc.kill();
        let needle = format!("--user-data-dir={}", self.profile.display());
        for pid in pids_with_arg(&needle) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

fn pids_with_arg(arg: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let e = e.ok()?;
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
        cmdline
            .split(|&b| b == 0)
            .any(|a| a == arg.as_bytes())
            .then_some(pid)
    })
    .collect()
}

/// A WebDriver command: the `value` of the answer, or the error it names.
fn wd(driver: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let bytes = body.map(|b| b.to_string().into_bytes());
    let r: Reply = http(driver, method, path, &[], bytes.as_deref()).map_err(|e| e.to_string())?;
    let v = r.json()?;
    if r.status != 200 {
        return Err(format!("status {}: {:#}", r.status, v["value"]));
    }
    Ok(v["value"].clone())
}

fn tail(path: &Path) -> String {
    let s = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {:?}", c as char),
    };
    let digits: Vec<u8> = s
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .map(val)
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | (u32::from(d) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Width and height from the IHDR chunk of a PNG, or why it is not one.
fn png_size(png: &[u8]) -> Result<(u32, u32), String> {
    if png.len() < 33 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return Err(format!("not a PNG ({} bytes)", png.len()));
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Ok((be(&png[16..20]), be(&png[20..24])))
}

/// A static site on another loopback port: every GET gets `page`.
struct StaticSite {
    addr: SocketAddr,
    page: Arc<Mutex<String>>,
    stop: Arc<AtomicBool>,
}

impl StaticSite {
    fn start() -> StaticSite {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let page = Arc::new(Mutex::new(String::new()));
        let (flag, shared) = (stop.clone(), page.clone());
        std::thread::spawn(move || {
            for conn in l.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut c) = conn else { continue };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let page = shared.lock().unwrap().clone();
                let _ = write!(
                    c,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
            }
        });
        StaticSite { addr, page, stop }
    }

    fn set_page(&self, page: String) {
        *self.page.lock().unwrap() = page;
    }

    fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for StaticSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(self.addr);
    }
}

/// Types the query into the search box, waits for the results and checks the first one is
/// the expected document and page, with its figure thumbnail loaded and the query terms
/// marked. Returns the text of the hits.
fn search_and_check(b: &Browser, scope: &str) -> Vec<String> {
    let box_ = b.find(&format!("{scope} .ix-box"));
    b.keys(&box_, QUERY);
    let n = b.wait_for(
        "the results",
        &format!("return document.querySelectorAll('{scope} .ix-hit').length"),
    );
    assert!(n.as_u64().unwrap() >= 3, "{n}");
    // Grouped by document: each document once, its best notes under it.
    let groups: Vec<(String, usize)> = serde_json::from_value(b.js(&format!(
        "return [...document.querySelectorAll('{scope} .ix-group')].map(g => \
         [g.querySelector('.ix-doc').textContent, g.querySelectorAll('.ix-hit').length])"
    )))
    .unwrap();
    assert_eq!(groups[0].0, EXPECTED_DOC, "{groups:?}");
    let mut docs: Vec<&str> = groups.iter().map(|g| g.0.as_str()).collect();
    docs.sort_unstable();
    docs.dedup();
    assert_eq!(docs.len(), groups.len(), "a document twice: {groups:?}");
    assert!(groups.iter().all(|g| (1..=3).contains(&g.1)), "{groups:?}");
    let hits: Vec<String> = serde_json::from_value(b.js(&format!(
        "return [...document.querySelectorAll('{scope} .ix-hit')].map(e => e.innerText)"
    )))
    .unwrap();
    assert!(
        hits[0].contains(EXPECTED_PAGE),
        "the first hit is not on {EXPECTED_PAGE}: {hits:#?}"
    );
    assert!(hits[0].contains("Figure 3"), "{}", hits[0]);
    let status = b.js(&format!(
        "return document.querySelector('{scope} .ix-status').textContent"
    ));
    assert!(status.as_str().unwrap().contains(" results ("), "{status}");
    let marks = b.js(&format!(
        "return [...document.querySelectorAll('{scope} .ix-hit mark')].map(m => m.textContent.toLowerCase())"
    ));
    assert!(
        marks.as_array().unwrap().contains(&json!("mosaic")),
        "{marks}"
    );
    b.wait_for(
        "the thumbnail of the first hit",
        &format!(
            "const i = document.querySelector('{scope} .ix-hit img'); \
             return i && i.complete && i.naturalWidth > 0 && i.naturalWidth"
        ),
    );

    // Keyboard: down selects the first hit, down again the second, up goes back.
    let active = |b: &Browser| {
        b.js(&format!(
            "return [...document.querySelectorAll('{scope} .ix-hit')].findIndex(e => e.classList.contains('ix-active'))"
        ))
    };
    assert_eq!(active(b), json!(-1));
    b.keys(&box_, KEY_DOWN);
    assert_eq!(active(b), json!(0));
    b.keys(&box_, KEY_DOWN);
    assert_eq!(active(b), json!(1));
    b.keys(&box_, KEY_UP);
    assert_eq!(active(b), json!(0));
    hits
}

fn assert_no_console_errors(b: &Browser, what: &str) {
    let errors: Vec<Value> = b
        .console()
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["level"] == "SEVERE")
        .cloned()
        .collect();
    assert!(errors.is_empty(), "console errors on {what}: {errors:#?}");
}

fn check_screenshot(b: &Browser, name: &str) {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let png = b.screenshot(&path);
    let (w, h) = png_size(&png).unwrap();
    assert!(
        w >= 800 && h >= 600 && png.len() > 10_000,
        "{}: {w}x{h}, {} bytes",
        path.display(),
        png.len()
    );
}

#[test]
fn search_page_and_widget_in_chromium() {
    // Before any work: without the browser this fails at once, with the hint.
    chromium_binary();
    chromedriver_binary();
    let _heavy = heavy_lock();
    let t0 = Instant::now();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for f in ["vcd-strucplot.pdf", "revtex-apssamp.pdf"] {
        std::fs::copy(super::corpus(f), docs.join(f)).unwrap();
    }
    std::fs::write(docs.join("guide.html"), GUIDE).unwrap();
    let o = super::indexer(dir, &["--index", "idx", "ingest", "docs", "--quiet"]);
    assert!(o.status.success(), "{}", super::stderr(&o));
    let ingested = t0.elapsed();

    // Two docs sites on other loopback ports; only the first is an allowed origin.
    let allowed = StaticSite::start();
    let refused = StaticSite::start();
    let server = Server::start(dir, &dir.join("idx"), &["--cors", &allowed.origin()]);
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Docs</title></head>\
         <body><h1>A documentation site</h1><p>Search the PDFs:</p><div id=\"search\"></div>\
         <script src=\"http://{}/widget.js\" data-target=\"#search\"></script></body></html>",
        server.addr
    );
    allowed.set_page(page.clone());
    refused.set_page(page);
    let b = Browser::start(dir);
    let started = t0.elapsed();

    // The server's own page.
    b.goto(&format!("http://{}/", server.addr));
    search_and_check(&b, "#search");
    let requests = b.js(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/search?')).length",
    );
    assert!(
        requests.as_u64().unwrap() <= 3,
        "typing {} characters sent {requests} searches: the box is not debounced",
        QUERY.len()
    );
    let href = b.js("return document.querySelector('#search .ix-hit a').getAttribute('href')");
    let href = href.as_str().unwrap();
    assert!(
        href.ends_with("/documents/docs%2Fvcd-strucplot.pdf/file#page=5"),
        "{href}"
    );
    let pdf = server.get(href.split('#').next().unwrap());
    assert_eq!(pdf.status, 200);
    assert!(pdf.body.starts_with(b"%PDF"));
    check_screenshot(&b, "browser-search-page.png");

    // Clearing the box clears the results; markup typed into it stays text.
    let box_ = b.find("#search .ix-box");
    b.keys(&box_, &format!("{KEY_CTRL}a{KEY_RELEASE}{KEY_BACKSPACE}"));
    b.wait_for(
        "the results to clear",
        "return document.querySelectorAll('#search .ix-hit').length === 0 && \
         document.querySelector('#search .ix-status').textContent === ''",
    );
    b.keys(&box_, "<img src=x onerror=window.pwned=1> mosaic");
    b.wait_for(
        "the results of a query with markup",
        "return document.querySelectorAll('#search .ix-hit').length",
    );
    assert_eq!(
        b.js("return [window.pwned === undefined, document.querySelectorAll('img[src=\"x\"]').length]"),
        json!([true, 0])
    );
    assert_no_console_errors(&b, "the search page");

    // Typing partway and with typos finds the mosaic plots; the address holds the query, and
    // back returns to the previous one.
    let clear = |b: &Browser| {
        let box_ = b.find("#search .ix-box");
        b.keys(&box_, &format!("{KEY_CTRL}a{KEY_RELEASE}{KEY_BACKSPACE}"));
        box_
    };
    let first_marks = |b: &Browser, what: &str| {
        b.wait_for(
            what,
            "const m = [...document.querySelectorAll('#search .ix-group')]\
             .filter(g => g.querySelector('.ix-doc').textContent === 'docs/vcd-strucplot.pdf')\
             .flatMap(g => [...g.querySelectorAll('mark')].map(m => m.textContent.toLowerCase()));\
             return m.length > 0 && m",
        )
    };
    for typed in ["mos", "mosaik plott"] {
        let box_ = clear(&b);
        b.keys(&box_, typed);
        let marks = first_marks(&b, &format!("the results of {typed:?}"));
        assert!(
            marks
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m.as_str().unwrap().starts_with("mosaic")),
            "{typed:?}: {marks}"
        );
        let want = format!("?q={}", typed.replace(' ', "+"));
        b.wait_for(
            "the query in the address",
            &format!("return location.search === {want:?}"),
        );
        // A pause: the next query is a new history entry, not a correction of this one.
        std::thread::sleep(Duration::from_millis(1200));
    }
    b.js("history.back()");
    b.wait_for(
        "the previous query after back",
        "return location.search === '?q=mos' && document.querySelector('#search .ix-box').value === 'mos'",
    );
    first_marks(&b, "the results of the previous query");
    // A link to a search opens with its results.
    b.goto(&format!("http://{}/?q=mosaic+plot", server.addr));
    b.wait_for(
        "the results of a linked search",
        "return document.querySelector('#search .ix-box').value === 'mosaic plot' && \
         document.querySelectorAll('#search .ix-hit').length",
    );
    assert_no_console_errors(&b, "typing, the address and back");

    // A docs site that publishes the documents: a result of an HTML page links to its section
    // there, and shows the section's path.
    let site = StaticSite::start();
    site.set_page("<!doctype html><title>site</title><h2 id=\"zebrafinch-layout\">x</h2>".into());
    let published = Server::start(dir, &dir.join("idx"), &["--site-url", &site.origin()]);
    b.goto(&format!("http://{}/", published.addr));
    let box_ = b.find("#search .ix-box");
    b.keys(&box_, "zebrafinch layout");
    let hit = b.wait_for(
        "the section result",
        "const g = [...document.querySelectorAll('#search .ix-group')]\
         .find(g => g.querySelector('.ix-doc').textContent === 'docs/guide.html');\
         const h = g && g.querySelector('.ix-hit');\
         return h && [h.querySelector('a').href, h.querySelector('.ix-meta').innerText]",
    );
    let want = format!("{}/docs/guide.html#zebrafinch-layout", site.origin());
    assert_eq!(hit[0], json!(want), "{hit}");
    assert!(
        hit[1]
            .as_str()
            .unwrap()
            .contains("Plot guide › The zebrafinch layout"),
        "{hit}"
    );
    b.js("[...document.querySelectorAll('#search .ix-doc')].find(d => d.textContent === 'docs/guide.html')\
          .parentElement.querySelector('.ix-hit').click()");
    let url = b.wait_for(
        "the section to open",
        "return location.hash === '#zebrafinch-layout' && location.href",
    );
    assert_eq!(url, json!(want));
    drop(published);

    // The widget on an allowed docs site: the answers cross origins.
    b.goto(&format!("{}/guide/", allowed.origin()));
    let hits = search_and_check(&b, "#search");
    assert!(!hits.is_empty());
    let href = b.js("return document.querySelector('#search .ix-hit a').href");
    assert!(
        href.as_str()
            .unwrap()
            .starts_with(&format!("http://{}/documents/", server.addr)),
        "{href}"
    );
    check_screenshot(&b, "browser-widget.png");
    assert_no_console_errors(&b, "the widget");
    // Enter opens the selected hit: the PDF at its page, on the search server.
    let box_ = b.find("#search .ix-box");
    b.keys(&box_, KEY_ENTER);
    let url = b.wait_for(
        "the PDF to open",
        "return location.href.includes('/documents/') && location.href",
    );
    assert_eq!(
        url,
        json!(format!(
            "http://{}/documents/docs%2Fvcd-strucplot.pdf/file#page=5",
            server.addr
        ))
    );

    // The widget on a site the server does not allow: the browser withholds the answer.
    b.goto(&format!("{}/guide/", refused.origin()));
    let box_ = b.find("#search .ix-box");
    b.keys(&box_, QUERY);
    let status = b.wait_for(
        "the error of a refused origin",
        "const s = document.querySelector('#search .ix-status').textContent; \
         return s !== '' && s !== 'Searching…' && s",
    );
    assert_eq!(status, json!("The search server cannot be reached"));
    assert_eq!(
        b.js("return document.querySelectorAll('#search .ix-hit').length"),
        json!(0)
    );
    let console = b.console().to_string();
    assert!(
        console.contains("CORS"),
        "no CORS error in the console: {console}"
    );
    let ask = |origin: &str| {
        http(
            server.addr,
            "GET",
            "/search?q=mosaic",
            &[("Origin", origin)],
            None,
        )
        .unwrap()
    };
    let ok = ask(&allowed.origin());
    assert_eq!(
        ok.header("access-control-allow-origin"),
        Some(allowed.origin().as_str())
    );
    assert_eq!(
        ask(&refused.origin()).header("access-control-allow-origin"),
        None
    );
    check_screenshot(&b, "browser-widget-refused.png");
    eprintln!(
        "browser test: ingest {:.1} s, server and chromium up at {:.1} s, done in {:.1} s; \
         screenshots in {}",
        ingested.as_secs_f64(),
        started.as_secs_f64(),
        t0.elapsed().as_secs_f64(),
        env!("CARGO_TARGET_TMPDIR")
    );
}
