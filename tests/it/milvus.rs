//! The index on a real Milvus server: milvus-lite from PyPI (`tools/milvus-deps`), started on
//! loopback for each test with its own data folder. Ingest, incremental re-ingest, deletes,
//! filters, search and `serve` over the collection, refused collections, two ingests at once
//! into one collection, a server killed and restarted in the middle of an ingest, and an ingest
//! killed in the middle of a batch upsert.

use super::serve::{Guard, Server, free_port, heavy_lock};
use super::{corpus, indexer, indexer_with, stderr, stdout};
use serde_json::Value;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The milvus-lite program, from `tools/milvus-deps --print`.
fn milvus_lite() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(root.join("tools/milvus-deps"))
        .arg("--print")
        .env("INDEXER_RUNTIME", super::runtime())
        .output()
        .expect("run tools/milvus-deps --print");
    if !o.status.success() {
        assert!(
            std::env::var_os("INDEXER_TEST_MILVUS").is_none(),
            "milvus-lite is not installed: {}\nhint: run tools/milvus-deps",
            String::from_utf8_lossy(&o.stderr)
        );
        eprintln!("skipped: milvus-lite is not installed (run tools/milvus-deps)");
        return None;
    }
    Some(PathBuf::from(
        String::from_utf8_lossy(&o.stdout).trim().to_string(),
    ))
}

/// A milvus-lite server on loopback, killed on drop.
struct Milvus {
    program: PathBuf,
    port: u16,
    data: PathBuf,
    log: PathBuf,
    proc: Guard,
}

impl Milvus {
    fn start(dir: &Path) -> Option<Milvus> {
        let program = milvus_lite()?;
        let port = free_port();
        let data = dir.join("milvus-data");
        let log = dir.join(format!("milvus-{port}.log"));
        let proc = Milvus::spawn(&program, port, &data, &log);
        let m = Milvus {
            program,
            port,
            data,
            log,
            proc,
        };
        m.wait();
        Some(m)
    }

    fn spawn(program: &Path, port: u16, data: &Path, log: &Path) -> Guard {
        let mut cmd = Command::new(program);
        cmd.args(["server", "--host", "127.0.0.1", "--port", &port.to_string()])
            .arg("--data-dir")
            .arg(data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .unwrap(),
            );
        Guard::spawn("milvus-lite", &mut cmd)
    }

    fn wait(&self) {
        let addr: SocketAddr = format!("127.0.0.1:{}", self.port).parse().unwrap();
        let t0 = Instant::now();
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "milvus-lite did not listen within 60 s:\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn url(&self, collection: &str) -> String {
        format!("milvus://127.0.0.1:{}/{collection}", self.port)
    }

    /// Kills the server (as a crash would) and starts it again on the same data after `down`.
    fn restart_after(&mut self, down: Duration) {
        self.proc.kill();
        std::thread::sleep(down);
        self.proc = Milvus::spawn(&self.program, self.port, &self.data, &self.log);
        self.wait();
    }
}

fn json(o: &std::process::Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn docs_dir(dir: &Path, name: &str, pdfs: &[&str]) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for p in pdfs {
        std::fs::copy(corpus(p), d.join(p)).unwrap();
    }
    d
}

/// The (document, note id) hits of `indexer query Q --format json` over `index`, with `more`
/// arguments.
fn query_hits(dir: &Path, index: &str, q: &str, more: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["--index", index, "query", q, "--format", "json"];
    args.extend_from_slice(more);
    hits(&json(&indexer(dir, &args)))
}

fn hits(v: &Value) -> Vec<(String, String)> {
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["note"]["doc"].as_str().unwrap().to_string(),
                h["note"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn ingest_search_and_serve_over_milvus() {
    let _heavy = heavy_lock();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let Some(m) = Milvus::start(dir) else { return };
    let url = m.url("docs");
    let docs = docs_dir(dir, "docs", &["lme4-lmer.pdf", "vcd-strucplot.pdf"]);
    let crops = dir.join("shared-crops");
    let url_crops = format!("{url}?crops={}", crops.display());

    // The same files into a local index and into Milvus.
    let o = indexer(dir, &["--index", "local", "ingest", "docs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = indexer(dir, &["--index", &url_crops, "ingest", "docs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 added"), "{}", stderr(&o));
    let local = json(&indexer(dir, &["--index", "local", "stats", "--json"]));
    let remote = json(&indexer(dir, &["--index", &url, "stats", "--json"]));
    assert_eq!(remote["stats"]["documents"], 2);
    assert_eq!(remote["stats"]["notes"], local["stats"]["notes"]);
    assert_eq!(
        remote["stats"]["notes_by_kind"],
        local["stats"]["notes_by_kind"]
    );
    assert_eq!(remote["stats"]["model"], local["stats"]["model"]);
    assert_eq!(remote["documents"], local["documents"]);
    // Crops went to the folder the URL named, which the collection keeps for its readers.
    assert!(
        std::fs::read_dir(&crops).unwrap().count() > 0,
        "no crops in {}",
        crops.display()
    );

    // Searches find the same evidence: the first stage fuses the same two lists the same way
    // (Milvus's BM25 tokenises and weighs a little differently from tantivy's).
    for q in [
        "how are the tiles of a mosaic plot shaded",
        "fitting linear mixed-effects models with lmer",
    ] {
        let (l, r) = (
            query_hits(dir, "local", q, &[]),
            query_hits(dir, &url, q, &[]),
        );
        assert_eq!(r.len(), l.len(), "{q}");
        assert_eq!(r[0].0, l[0].0, "{q}: top document");
        let shared = r.iter().filter(|h| l.contains(h)).count();
        assert!(
            shared * 2 >= l.len(),
            "{q}: {shared} of {} notes shared\n{r:?}\n{l:?}",
            l.len()
        );
    }
    // Filters run inside Milvus's searches.
    let v = json(&indexer(
        dir,
        &[
            "--index",
            &url,
            "query",
            "mosaic plot",
            "--doc",
            "vcd-strucplot.pdf",
            "--pages",
            "2-4",
            "--format",
            "json",
        ],
    ));
    let found = v["hits"].as_array().unwrap();
    assert!(!found.is_empty());
    for h in found {
        assert_eq!(h["note"]["doc"], "docs/vcd-strucplot.pdf");
        let p = h["note"]["page"].as_u64().unwrap();
        assert!((2..=4).contains(&p), "page {p}");
    }
    // A search limited to a document runs the local first stage over a local index of its
    // notes (its words weighed within it, five fields, feedback): the evidence of a local
    // index of the same files, nearly note for note (feedback weighs its terms by the whole
    // index, here two documents against one).
    for (q, doc) in [
        (
            "how are the tiles of a mosaic plot shaded",
            "vcd-strucplot.pdf",
        ),
        ("which optimizer does lmer use by default", "lme4-lmer.pdf"),
    ] {
        let (l, r) = (
            query_hits(dir, "local", q, &["--doc", doc]),
            query_hits(dir, &url, q, &["--doc", doc]),
        );
        assert_eq!(r.len(), l.len(), "{q}");
        assert_eq!(r[0], l[0], "{q}: the best note");
        let shared = r.iter().filter(|h| l.contains(h)).count();
        assert!(
            shared * 10 >= l.len() * 8,
            "{q}: {shared} of {} notes shared\n{r:?}\n{l:?}",
            l.len()
        );
    }
    let v = json(&indexer(
        dir,
        &[
            "--index",
            &url,
            "query",
            "mosaic plot",
            "--kind",
            "figure",
            "--format",
            "json",
        ],
    ));
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["note"]["kind"] == "figure")
    );
    // A note by id, and its crop from the shared folder.
    let id = hits(&v)[0].1.clone();
    // Credentials go with every call (milvus-lite accepts and ignores them).
    let note = json(&indexer_with(
        dir,
        &["--index", &url, "show", &id, "--json"],
        &[("INDEXER_MILVUS_TOKEN", "root:Milvus")],
    ));
    assert_eq!(note["id"], id.as_str());

    // `serve` over the collection.
    let s = Server::start(dir, Path::new(&url), &[]);
    let r = s.get("/search?q=mosaic+plot+shading&budget=5");
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["hits"].as_array().unwrap().len(), 5);
    let r = s.get("/documents");
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["documents"].as_array().unwrap().len(), 2);
    let enc = id.replace('/', "%2F").replace('#', "%23");
    let r = s.get(&format!("/notes/{enc}/image"));
    assert_eq!(
        r.status,
        200,
        "crop of {id}: {}",
        String::from_utf8_lossy(&r.body)
    );
    assert_eq!(&r.body[1..4], b"PNG");
    drop(s);

    // Unchanged files are skipped; a changed one is written again; a deleted one removed.
    let o = indexer(dir, &["--index", &url, "ingest", "docs"]);
    assert!(
        stderr(&o).contains("0 added, 0 updated, 2 unchanged"),
        "{}",
        stderr(&o)
    );
    std::fs::copy(corpus("revtex-apssamp.pdf"), docs.join("lme4-lmer.pdf")).unwrap();
    std::fs::remove_file(docs.join("vcd-strucplot.pdf")).unwrap();
    let o = indexer(dir, &["--index", &url, "ingest", "docs"]);
    assert!(
        stderr(&o).contains("0 added, 1 updated, 0 unchanged, 1 removed"),
        "{}",
        stderr(&o)
    );
    let o = indexer(dir, &["--index", "local", "ingest", "docs"]);
    assert!(o.status.success());
    let local = json(&indexer(dir, &["--index", "local", "stats", "--json"]));
    let remote = json(&indexer(dir, &["--index", &url, "stats", "--json"]));
    assert_eq!(remote["stats"]["documents"], 1);
    assert_eq!(
        remote["stats"]["notes"], local["stats"]["notes"],
        "no note of the old versions is left"
    );
    let o = indexer(
        dir,
        &[
            "--index",
            &url,
            "query",
            "mosaic",
            "--doc",
            "vcd-strucplot.pdf",
        ],
    );
    assert!(
        !o.status.success() && stderr(&o).contains("vcd-strucplot.pdf"),
        "{}",
        stderr(&o)
    );

    // A collection made with another encoder is refused before any file is parsed.
    let o = indexer(
        dir,
        &[
            "--index",
            &url,
            "ingest",
            "--model",
            "nomic-embed-text-v1.5-int8",
            "docs",
        ],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("all-MiniLM-L6-v2") && e.contains("nomic-embed-text-v1.5"),
        "{e}"
    );
    // A collection that does not exist, and a server that does not answer.
    let o = indexer(dir, &["--index", &m.url("nothing"), "query", "x"]);
    assert!(
        !o.status.success() && stderr(&o).contains("ingest creates the collection"),
        "{}",
        stderr(&o)
    );
    let dead = format!("milvus://127.0.0.1:{}/docs", free_port());
    let t0 = Instant::now();
    let o = indexer_with(
        dir,
        &["--index", &dead, "query", "x"],
        &[("INDEXER_MILVUS_RETRY_SECONDS", "2")],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("cannot reach Milvus") && e.contains("hint:"),
        "{e}"
    );
    assert!(
        t0.elapsed() < Duration::from_secs(60),
        "gave up after {:?}",
        t0.elapsed()
    );
    let o = indexer(dir, &["--index", "milvus://127.0.0.1:1/bad-name", "stats"]);
    assert!(stderr(&o).contains("collection name"), "{}", stderr(&o));
}

#[test]
fn concurrent_ingests_and_a_server_restart_lose_and_duplicate_nothing() {
    let _heavy = heavy_lock();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let Some(mut m) = Milvus::start(dir) else {
        return;
    };
    let url = m.url("shared");
    docs_dir(
        dir,
        "all",
        &[
            "lme4-lmer.pdf",
            "vcd-strucplot.pdf",
            "revtex-apssamp.pdf",
            "acmart-sample-sigconf.pdf",
        ],
    );
    std::fs::create_dir_all(dir.join("all/a")).unwrap();
    std::fs::create_dir_all(dir.join("all/b")).unwrap();
    for (f, sub) in [
        ("lme4-lmer.pdf", "a"),
        ("vcd-strucplot.pdf", "a"),
        ("revtex-apssamp.pdf", "b"),
        ("acmart-sample-sigconf.pdf", "b"),
    ] {
        std::fs::rename(dir.join("all").join(f), dir.join("all").join(sub).join(f)).unwrap();
    }
    // The reference: one local index of everything.
    let o = indexer(dir, &["--index", "local", "ingest", "all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let local = json(&indexer(dir, &["--index", "local", "stats", "--json"]));

    // Two ingest processes, one folder each, into one collection at the same time; the
    // server is killed in the middle and comes back 3 s later.
    let spawn = |folder: &str| {
        Command::new(env!("CARGO_BIN_EXE_indexer"))
            .args(["--index", &url, "ingest", "--jobs", "1", folder])
            .current_dir(dir)
            .env("INDEXER_RUNTIME", super::runtime())
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Ids are relative to the working folder, so both ingests' ids are the local index's.
    let mut a = spawn("all/a");
    let mut b = spawn("all/b");
    // Kill the server once the first file of either ingest is in, while both still run.
    let t0 = Instant::now();
    loop {
        // Before an ingest creates the collection, stats fails: no file yet.
        let o = indexer(dir, &["--index", &url, "stats", "--json"]);
        let files = serde_json::from_str::<Value>(&stdout(&o))
            .ok()
            .and_then(|v| v["stats"]["documents"].as_u64())
            .unwrap_or(0);
        if files >= 1 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "no file ingested within 300 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        a.try_wait().unwrap().is_none() || b.try_wait().unwrap().is_none(),
        "both ingests ended before the server was killed: the test tests nothing"
    );
    m.restart_after(Duration::from_secs(3));
    for (name, c) in [("a", a), ("b", b)] {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "ingest {name}: {}", stderr(&o));
    }
    let remote = json(&indexer(dir, &["--index", &url, "stats", "--json"]));
    assert_eq!(remote["stats"]["documents"], 4, "{remote}");
    assert_eq!(
        remote["stats"]["notes"], local["stats"]["notes"],
        "{remote}\n{local}"
    );
    // Again: nothing to do, nothing duplicated.
    let o = indexer(dir, &["--index", &url, "ingest", "all"]);
    assert!(
        stderr(&o).contains("0 added, 0 updated, 4 unchanged"),
        "{}",
        stderr(&o)
    );
    let again = json(&indexer(dir, &["--index", &url, "stats", "--json"]));
    assert_eq!(again["stats"]["notes"], local["stats"]["notes"]);
}

/// The documents and notes a Milvus index counts (0 before an ingest has made the collection).
fn counts(dir: &Path, url: &str) -> (u64, u64) {
    let o = indexer(dir, &["--index", url, "stats", "--json"]);
    serde_json::from_str::<Value>(&stdout(&o))
        .map(|v| {
            let s = &v["stats"];
            (
                s["documents"].as_u64().unwrap_or(0),
                s["notes"].as_u64().unwrap_or(0),
            )
        })
        .unwrap_or((0, 0))
}

/// Starts `indexer ingest folder` into `url` and kills it (SIGKILL) as soon as the index has
/// more notes than `notes_before` and still `documents_before` documents: in the middle of a
/// file's notes. Returns the counts after the kill.
fn kill_while_writing(
    dir: &Path,
    url: &str,
    folder: &str,
    (documents_before, notes_before): (u64, u64),
) -> (u64, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["--index", url, "ingest", "--jobs", "1", folder])
        .current_dir(dir)
        .env("INDEXER_RUNTIME", super::runtime())
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        let (documents, notes) = counts(dir, url);
        assert_eq!(documents, documents_before, "a file was finished first");
        if notes > notes_before {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the ingest ended before any note was written"
        );
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "no note within 300 s"
        );
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    counts(dir, url)
}

/// An ingest killed (kill -9) in the middle of a file's batch upserts, one note a request so
/// that writing a file's notes takes long enough to land in: the next ingest writes the file
/// again, whole and once; a file whose writing was killed and that is gone by the next ingest
/// leaves no note behind; and after both, a third ingest has nothing to do.
#[test]
fn an_ingest_killed_in_a_batch_upsert_loses_and_duplicates_nothing() {
    let _heavy = heavy_lock();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let Some(m) = Milvus::start(dir) else {
        return;
    };
    let url = format!("{}?batch=1", m.url("killed"));
    docs_dir(dir, "docs", &["lme4-lmer.pdf"]);
    let o = indexer(dir, &["--index", "local", "ingest", "docs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let local = json(&indexer(dir, &["--index", "local", "stats", "--json"]));
    let notes = local["stats"]["notes"].as_u64().unwrap();

    // Killed while the first file's notes go in: some are, the file is not a document.
    let (documents, partial) = kill_while_writing(dir, &url, "docs", (0, 0));
    assert_eq!(documents, 0);
    assert!(
        partial > 0 && partial < notes,
        "{partial} of {notes} notes: the kill was not inside the file's upserts"
    );
    let o = indexer(dir, &["--index", &url, "ingest", "docs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let remote = json(&indexer(dir, &["--index", &url, "stats", "--json"]));
    assert_eq!(remote["stats"]["documents"], 1, "{remote}");
    assert_eq!(remote["stats"]["notes"], notes, "{remote}\n{local}");
    assert_eq!(
        remote["stats"]["notes_by_kind"],
        local["stats"]["notes_by_kind"]
    );
    assert_eq!(remote["documents"], local["documents"]);

    // A second file killed while writing, then gone before the next ingest.
    std::fs::copy(
        corpus("vcd-strucplot.pdf"),
        dir.join("docs/vcd-strucplot.pdf"),
    )
    .unwrap();
    let (documents, with_orphans) = kill_while_writing(dir, &url, "docs", (1, notes));
    println!("killed at {partial} of {notes} notes, then with {with_orphans} in all");
    assert_eq!(documents, 1);
    assert!(with_orphans > notes, "{with_orphans} notes");
    std::fs::remove_file(dir.join("docs/vcd-strucplot.pdf")).unwrap();
    let o = indexer(dir, &["--index", &url, "ingest", "docs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = json(&indexer(dir, &["--index", &url, "stats", "--json"]));
    assert_eq!(after["stats"]["notes"], notes, "{after}");
    assert_eq!(after["documents"], local["documents"]);
    assert_eq!(after["stats"]["failed_files"], 0, "{after}");

    let o = indexer(dir, &["--index", &url, "ingest", "docs"]);
    assert!(
        stderr(&o).contains("0 added, 0 updated, 1 unchanged"),
        "{}",
        stderr(&o)
    );
    // The notes are the local index's, each once: every note a search returns is one of them.
    let q = "fitting linear mixed-effects models with lmer";
    let (l, r) = (
        query_hits(dir, "local", q, &[]),
        query_hits(dir, &url, q, &[]),
    );
    let ids: std::collections::HashSet<_> = r.iter().collect();
    assert!(!r.is_empty() && ids.len() == r.len(), "a note twice: {r:?}");
    assert!(r.iter().any(|h| l.contains(h)), "{r:?}\n{l:?}");
}
