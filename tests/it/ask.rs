//! `indexer ask` and `POST /ask` against a real OpenAI-compatible server: llama.cpp's Python
//! server (llama-cpp-python) with SmolLM2-135M-Instruct, both from PyPI (`tools/llm-deps`),
//! on loopback ports. What is tested is the protocol: streaming, citations, JSON, every error
//! path, images in the request; not what a 135M model knows.
//!
//! To get an answer with known citations from a real model, the request carries a JSON schema
//! (`--llm-option response_format=...`) that the server turns into a grammar: the model can
//! then only write one sentence, token by token, as any answer streams.

use super::serve::{Guard, Server, free_port, heavy_lock, http, http_timeout};
use super::{indexer_with, json, stderr, stdout};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The answer the grammar allows: two citations of evidence and one of none (7 > B = 3).
const FORCED: &str = "Tiles show the counts [1][2]; see also [7].";

fn forced_options() -> Vec<String> {
    let schema = serde_json::json!({
        "type": "json_object",
        "schema": {"type": "string", "enum": [FORCED]},
    });
    vec![
        "--llm-option".into(),
        "temperature=0".into(),
        "--llm-option".into(),
        format!("response_format={schema}"),
    ]
}

/// The server's Python and the GGUF file, from `tools/llm-deps --print`.
fn llm_deps() -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(root.join("tools/llm-deps"))
        .arg("--print")
        .env("INDEXER_RUNTIME", super::runtime())
        .output()
        .expect("run tools/llm-deps --print");
    assert!(
        o.status.success(),
        "the model server for the tests is not installed: {}\nhint: run tools/llm-deps",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut lines = out.lines();
    let python = PathBuf::from(lines.next().expect("python path"));
    let gguf = PathBuf::from(lines.next().expect("gguf path"));
    (python, gguf)
}

/// A running llama-cpp-python server, killed on drop.
struct LlmServer {
    url: String,
    log: PathBuf,
    proc: Guard,
}

impl LlmServer {
    fn start(dir: &Path, extra: &[&str]) -> LlmServer {
        let (python, gguf) = llm_deps();
        let port = free_port();
        let log = dir.join(format!("llm-{port}.log"));
        let mut cmd = Command::new(python);
        cmd.args(["-m", "llama_cpp.server", "--model"])
            .arg(&gguf)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            // One thread: llama.cpp's threads spin while they wait for each other, which on a
            // busy machine (the rest of the suite runs beside) slows an answer a hundredfold.
            .args([
                "--model_alias",
                "smollm2",
                "--n_threads",
                "1",
                "--n_threads_batch",
                "1",
            ])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        let mut s = LlmServer {
            url: format!("http://127.0.0.1:{port}/v1"),
            log,
            proc: Guard::spawn("the llama-cpp-python server", &mut cmd),
        };
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let t0 = Instant::now();
        loop {
            if let Some(st) = s.proc.exited() {
                panic!("the model server exited ({st}):\n{}", s.log_text());
            }
            if let Ok(r) = http(addr, "GET", "/v1/models", &[], None)
                && r.status != 0
            {
                return s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(90),
                "the model server did not start within 90 s:\n{}",
                s.log_text()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.proc.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    }
}

/// `indexer --index IDX ask QUESTION ARGS...` with the environment given (and no key or
/// model server from the environment of the test run).
fn ask(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut all = vec![
        "--index",
        "idx",
        "ask",
        "How do the tiles of a mosaic plot show counts?",
    ];
    all.extend_from_slice(args);
    let mut envs: Vec<(&str, &str)> = vec![
        ("INDEXER_LLM_URL", ""),
        ("INDEXER_LLM_MODEL", ""),
        ("INDEXER_LLM_API_KEY", ""),
    ];
    envs.extend_from_slice(env);
    indexer_with(dir, &all, &envs)
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The events of a server-sent event stream: (name, data as JSON).
fn sse_events(body: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for block in body.split("\n\n") {
        let mut name = String::from("message");
        let mut data = String::new();
        for line in block.lines() {
            if let Some(n) = line.strip_prefix("event:") {
                name = n.trim().to_string();
            } else if let Some(d) = line.strip_prefix("data:") {
                data.push_str(d.strip_prefix(' ').unwrap_or(d));
            }
        }
        if !data.is_empty() {
            out.push((
                name,
                serde_json::from_str(&data).expect("event data is JSON"),
            ));
        }
    }
    out
}

#[test]
fn ask_over_a_real_model_server() {
    let _heavy = heavy_lock();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::copy(super::corpus("vcd-strucplot.pdf"), dir.join("docs/vcd.pdf")).unwrap();
    let o = indexer_with(dir, &["--index", "idx", "ingest", "docs", "--quiet"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));

    // No model server configured: a clear error, before any search.
    let o = ask(dir, &[], &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("no model server configured") && e.contains("hint: ") && e.contains("--llm-url"),
        "{e}"
    );

    let llm = LlmServer::start(dir, &["--n_ctx", "2048"]);
    let url_owned = llm.url.clone();
    let url = url_owned.as_str();
    let forced = forced_options();
    // A generous time limit: the suite runs other heavy tests beside this one.
    let mut base = vec![
        "--llm-url",
        url,
        "-b",
        "3",
        "--max-tokens",
        "48",
        "--llm-timeout",
        "900",
    ];
    base.extend(strs(&forced));

    // Text: the answer streams to stdout, then the sources it cites; a citation of no
    // evidence is flagged on stderr.
    let o = ask(dir, &base, &[]);
    assert!(o.status.success(), "{}\n{}", stderr(&o), llm.log_text());
    let out = stdout(&o);
    assert!(out.contains(FORCED), "{out}");
    let sources = out
        .split("Sources:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no sources: {out}"));
    let lines: Vec<&str> = sources.lines().collect();
    assert!(
        lines[0].starts_with("[1] docs/vcd.pdf p.") && lines[1].starts_with("[2] docs/vcd.pdf p."),
        "{out}"
    );
    assert!(
        stderr(&o).contains("warning: the answer cites [7], which names no evidence"),
        "{}",
        stderr(&o)
    );

    // JSON: the answer, citations resolved to notes of the evidence, the unknown one, the
    // evidence sent, the model, timings.
    let mut args = base.clone();
    args.extend(["--format", "json", "--images", "never"]);
    let o = ask(dir, &args, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["answer"].as_str().unwrap().trim_matches('"'), FORCED);
    let evidence = r["evidence"].as_array().unwrap();
    assert_eq!(evidence.len(), 3);
    let cited: Vec<u64> = r["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["n"].as_u64().unwrap())
        .collect();
    assert_eq!(cited, [1, 2]);
    for c in r["citations"].as_array().unwrap() {
        let n = c["n"].as_u64().unwrap() as usize;
        assert_eq!(c["note_id"], evidence[n - 1]["note"]["id"]);
        assert_eq!(c["page"], evidence[n - 1]["note"]["page"]);
    }
    assert_eq!(r["unknown_citations"], serde_json::json!([7]));
    assert_eq!(r["model"], "smollm2");
    assert_eq!(r["images_sent"], 0);
    assert!(r["timings"]["first_token_ms"].as_f64().unwrap() > 0.0);
    assert!(
        r["timings"]["total_ms"].as_f64().unwrap() >= r["timings"]["answer_ms"].as_f64().unwrap()
    );

    // Images under `auto`: this text-only server fails on a request with images; the answer
    // comes from the request sent again without them, and a note says so.
    let o = ask(dir, &[&base[..], &["--kind", "figure"]].concat(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(FORCED));
    assert!(
        stderr(&o).contains("sent again without them"),
        "{}",
        stderr(&o)
    );
    // ... and under `always` that is an error.
    let o = ask(
        dir,
        &[&base[..], &["--kind", "figure", "--images", "always"]].concat(),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("refused the request with images")
            && stderr(&o).contains("--images never"),
        "{}",
        stderr(&o)
    );

    // The request as sent: crops as data URLs of the evidence's own PNG files, after the text.
    let o = ask(
        dir,
        &[
            "--llm-url",
            url,
            "--llm-model",
            "smollm2",
            "-b",
            "3",
            "--kind",
            "figure",
            "--print-request",
        ],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let req = json(&o);
    assert_eq!(req["model"], "smollm2");
    assert_eq!(req["stream"], true);
    let user = req["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(user["role"], "user");
    let parts = user["content"].as_array().expect("parts with images");
    assert_eq!(parts[0]["type"], "text");
    let crops: Vec<Vec<u8>> = std::fs::read_dir(dir.join("idx/crops"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    let images: Vec<&Value> = parts.iter().filter(|p| p["type"] == "image_url").collect();
    assert_eq!(images.len(), 3, "three figures, three images");
    for (i, img) in images.iter().enumerate() {
        let url = img["image_url"]["url"].as_str().unwrap();
        let b64 = url
            .strip_prefix("data:image/png;base64,")
            .expect("a PNG data URL");
        let png = super::browser::base64_decode(b64);
        assert!(crops.contains(&png), "image {i} is not a crop of the index");
    }
    let o = ask(
        dir,
        &[
            "--llm-url",
            url,
            "--llm-model",
            "smollm2",
            "-b",
            "3",
            "--kind",
            "figure",
            "--print-request",
            "--images",
            "never",
        ],
        &[],
    );
    assert!(json(&o)["messages"][1]["content"].is_string());

    // A model the server does not serve: named, with what it serves.
    let o = ask(
        dir,
        &[&base[..], &["--llm-model", "gpt-nope"]].concat(),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("does not serve the model \"gpt-nope\"; it serves smollm2")
            && e.contains("--llm-model smollm2"),
        "{e}"
    );

    // A base URL without /v1: the endpoint is not found, and the hint says what the URL is.
    let bare = url.trim_end_matches("/v1");
    let o = ask(dir, &["--llm-url", bare, "-b", "3"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("(404)") && stderr(&o).contains("/v1"),
        "{}",
        stderr(&o)
    );

    // A slow server (stopped with SIGSTOP: it accepts connections and never answers): the
    // time limit ends the wait.
    llm.signal("-STOP");
    let t0 = Instant::now();
    let mut slow = vec![
        "--llm-url",
        url,
        "-b",
        "3",
        "--max-tokens",
        "48",
        "--llm-timeout",
        "2",
    ];
    slow.extend(strs(&forced));
    let o = ask(dir, &slow, &[]);
    let took = t0.elapsed();
    llm.signal("-CONT");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did not answer within 2 s") && stderr(&o).contains("--llm-timeout"),
        "{}",
        stderr(&o)
    );
    assert!(took < Duration::from_secs(30), "{took:?}");

    // POST /ask: server-sent events, evidence first, the answer in pieces, then done.
    let mut serve_args = vec!["--llm-url", url];
    serve_args.extend(strs(&forced));
    serve_args.extend(["--max-tokens", "48", "--llm-timeout", "900"]);
    let server = Server::start(dir, &dir.join("idx"), &serve_args);
    let body = br#"{"q": "How do the tiles of a mosaic plot show counts?", "budget": 3, "fields": "rank,doc,page,kind,url"}"#;
    let r = http_timeout(
        server.addr,
        "POST",
        "/ask",
        &[],
        Some(body),
        Duration::from_secs(900),
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}\n{}", r.text(), server.log_text());
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = sse_events(&r.text());
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    // Notices come first: this text-only server failed on the crops (images are `auto`), and
    // the request was sent again without them.
    let notices = names.iter().take_while(|n| **n == "notice").count();
    assert_eq!(names.get(notices), Some(&"evidence"), "{names:?}");
    assert!(
        events[..notices]
            .iter()
            .any(|(_, d)| d["message"].as_str().unwrap().contains("without them"))
    );
    assert_eq!(names.last(), Some(&"done"), "{names:?}");
    let deltas: String = events
        .iter()
        .filter(|(n, _)| n == "delta")
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().filter(|n| **n == "delta").count() > 3,
        "streamed in pieces: {names:?}"
    );
    let done = &events.last().unwrap().1;
    assert_eq!(done["answer"].as_str().unwrap(), deltas);
    assert_eq!(deltas.trim_matches('"'), FORCED);
    let hits = events[notices].1["evidence"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert!(
        hits.iter().all(|h| h["doc"] == "docs/vcd.pdf"
            && h.get("note").is_none()
            && h.get("url").is_some())
    );
    assert_eq!(done["citations"].as_array().unwrap().len(), 2);
    assert_eq!(done["unknown_citations"], serde_json::json!([7]));
    // A grouped search does not apply; a bad body is the usual error.
    let r = http(
        server.addr,
        "POST",
        "/ask",
        &[],
        Some(br#"{"q": "mosaic", "group": "page"}"#),
    )
    .unwrap();
    assert_eq!(
        (r.status, r.json().unwrap()["code"].clone()),
        (400, "group_not_supported".into())
    );
    let r = http(server.addr, "POST", "/ask", &[], Some(br#"{"q": ""}"#)).unwrap();
    assert_eq!(r.status, 400);
    drop(server);

    // /ask is off without a model server; with one that is down, a 502 in the error format.
    let off = Server::start(dir, &dir.join("idx"), &[]);
    let r = http(off.addr, "POST", "/ask", &[], Some(br#"{"q": "mosaic"}"#)).unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.json().unwrap()["code"], "ask_disabled");
    drop(off);
    let dead = format!("http://127.0.0.1:{}/v1", free_port());
    let down = Server::start(dir, &dir.join("idx"), &["--llm-url", &dead]);
    let r = http(down.addr, "POST", "/ask", &[], Some(br#"{"q": "mosaic"}"#)).unwrap();
    assert_eq!(r.status, 502, "{}", r.text());
    let e = r.json().unwrap();
    assert_eq!(e["code"], "llm_unreachable");
    for key in ["message", "type", "link", "hint"] {
        assert!(e[key].is_string(), "{key} in {e}");
    }
    drop(down);

    // A server that is not running: refused, with the hint to start it.
    drop(llm);
    let o = ask(dir, &["--llm-url", url, "-b", "3"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot reach the model server")
            && stderr(&o).contains("is the model server running"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn keys_and_small_context_windows() {
    let _heavy = heavy_lock();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::copy(super::corpus("vcd-strucplot.pdf"), dir.join("docs/vcd.pdf")).unwrap();
    let o = indexer_with(dir, &["--index", "idx", "ingest", "docs", "--quiet"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let key = "sk-test-7f3a9c";
    let llm = LlmServer::start(dir, &["--n_ctx", "768", "--api_key", key]);
    let url = llm.url.as_str();
    let forced = forced_options();
    let mut base = vec![
        "--llm-url",
        url,
        "--max-tokens",
        "48",
        "--images",
        "never",
        "--llm-timeout",
        "900",
    ];
    base.extend(strs(&forced));

    // No key: 401, and the hint names the variable to set.
    let o = ask(dir, &[&base[..], &["-b", "2"]].concat(), &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("refused the request (401)") && e.contains("INDEXER_LLM_API_KEY"),
        "{e}"
    );
    // A wrong key: the hint says it was refused, never what it was.
    let o = ask(
        dir,
        &[&base[..], &["-b", "2"]].concat(),
        &[("INDEXER_LLM_API_KEY", "sk-wrong-1234")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("was refused") && !stderr(&o).contains("sk-wrong-1234"),
        "{}",
        stderr(&o)
    );

    // The right key from the environment; ten notes do not fit a 768-token window: the
    // evidence is cut to what fits, said in a note, and the answer comes.
    let mut args = base.clone();
    args.extend(["-b", "10", "--format", "json"]);
    let o = ask(dir, &args, &[("INDEXER_LLM_API_KEY", key)]);
    assert!(o.status.success(), "{}\n{}", stderr(&o), llm.log_text());
    assert!(!stdout(&o).contains(key) && !stderr(&o).contains(key));
    let r = json(&o);
    let sent = r["evidence"].as_array().unwrap().len();
    assert!((1..10).contains(&sent), "sent {sent}");
    let notice = r["notices"][0].as_str().unwrap();
    assert!(
        notice.contains("context window (768 tokens)")
            && notice.contains(&format!("the first {sent} of 10")),
        "{notice}"
    );
    assert!(
        stderr(&o).contains("note: the evidence did not fit"),
        "{}",
        stderr(&o)
    );
    assert_eq!(r["answer"].as_str().unwrap().trim_matches('"'), FORCED);

    // No room for even one note beside an answer of 700 tokens: an error that says so.
    let o = ask(
        dir,
        &[
            "--llm-url",
            url,
            "--max-tokens",
            "700",
            "--images",
            "never",
            "-b",
            "3",
        ],
        &[("INDEXER_LLM_API_KEY", key)],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("context window (768 tokens) cannot hold") && e.contains("--max-tokens"),
        "{e}"
    );

    // A prompt template from a file, checked.
    std::fs::write(dir.join("bad.txt"), "Answer {{question}}").unwrap();
    let o = ask(dir, &[&base[..], &["--prompt", "bad.txt"]].concat(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.txt: the prompt template has no {{evidence}}"),
        "{}",
        stderr(&o)
    );
}
