//! A soak of `indexer serve` (issue 22): many clients query a real server for a long time while
//! an ingest adds and removes documents every few minutes. Every answer must be a 200 with
//! valid JSON; the server's resident memory, the search latency and the errors are sampled
//! every few seconds and written as `soak.csv`, `soak.md` and `soak.png` in the output folder.
//!
//! ```sh
//! cargo build --release --bin indexer
//! cargo run --release -p indexer-eval --example soak -- \
//!     --indexer target/release/indexer --docs DIR --minutes 30 --out OUT
//! ```
//!
//! It runs the `indexer` binary as a user does (no library call): `indexer ingest` into a
//! temporary index, `indexer serve` as a child process, and `indexer ingest` again after each
//! change of the document folder, so what is measured is the program that ships. The clients
//! are plain `std::net::TcpStream` HTTP/1.1 (no client crate to hide a protocol error).
//! Memory and CPU are read from `/proc`: Linux only.

use indexer_eval::register_font;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Result<T, E = String> = std::result::Result<T, E>;

const USAGE: &str = "\
usage: soak --indexer PATH --docs DIR --out DIR [options]

  --indexer PATH        the indexer binary to test (e.g. target/release/indexer)
  --docs DIR            a folder of PDFs: some are ingested at the start, the others rotate in and out
  --out DIR             where soak.csv, soak.md, soak.png and the logs are written
  --minutes M           how long the clients query (default 30; 2 for a trial)
  --clients N           concurrent clients (default 16)
  --ingest-every SECS   seconds between two changes of the corpus, each followed by an ingest (default 180)
  --sample-every SECS   seconds between two samples of memory and latency (default 5)
  --initial N           PDFs ingested before the server starts (default: all but 2 of those used)
  --max-doc-mib MIB     leave out PDFs larger than this, to keep each ingest short (default 2)
  --queries FILE        questions, one a line (default: a built-in list about the shared corpus)
  --runtime DIR         INDEXER_RUNTIME for the children (default: what indexer finds itself)
  --work DIR            keep the index and documents here instead of a temporary folder

Exit status: 0 when every answer was a 200 with valid JSON and every ingest succeeded, 1 when
not (the first errors are printed and in soak.md), 2 when the soak could not run.";

/// Questions about the PDFs of `../shared/corpus/` (as the server benches ask them); any
/// other corpus works too, its searches then just find fewer relevant notes.
const QUERIES: [&str; 16] = [
    "What is a mosaic plot?",
    "Which optimizer does lmer use by default?",
    "random effects for subjects and items",
    "shading of residuals in association plots",
    "how to format the bibliography of a thesis",
    "table of fixed effects estimates",
    "Bose-Einstein condensation",
    "ACM reference format and CCS concepts",
    "sieve plot of expected frequencies",
    "restricted maximum likelihood criterion",
    "graduate school signature page",
    "doubly labeled figure caption",
    "sparse matrix representation of the model",
    "labeling cells of a contingency table",
    "author affiliations and email addresses",
    "convergence warnings and profiling",
];

/// What the search page sends (`indexer_server::PAGE_SEARCH_PARAMS`, copied: this example
/// depends on the evaluation crate only).
const PAGE_PARAMS: &str = "group=document&budget=5&matching=typing&snippet_chars=180&fields=doc,page,kind,caption,section,url,snippet_html,crop_url";

/// Clients 0.. below this open a new connection for every request, the others keep one
/// connection alive: both the accept path and long-lived connections are soaked, and the
/// TIME_WAIT sockets of the first kind stay far below the loopback port range.
const FRESH_CONNECTION_CLIENTS: usize = 4;

/// How long a request may take before it counts as an error (the server's own limit is 10 s).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the server may take to serve a generation an ingest has committed (it checks
/// every second).
const PICKUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The first error messages kept for the report; the rest are only counted.
const KEPT_ERRORS: usize = 20;

/// The latency blocks of the report.
const BLOCK: Duration = Duration::from_secs(300);

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(report) if report.failed() => {
            eprintln!(
                "soak: FAILED: {} errors in {} requests, {} failed ingests ({}); see {}",
                report.errors_total,
                report.requests_total,
                report.failed_ingests(),
                report.end,
                args.out.join("soak.md").display()
            );
            for e in &report.first_errors {
                eprintln!("  {e}");
            }
            ExitCode::from(1)
        }
        Ok(report) => {
            eprintln!(
                "soak: no errors in {} requests ({} searches); see {}",
                report.requests_total,
                report.searches_total,
                args.out.join("soak.md").display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments

#[derive(Debug, Clone)]
struct Args {
    indexer: PathBuf,
    docs: PathBuf,
    out: PathBuf,
    minutes: f64,
    clients: usize,
    ingest_every: Duration,
    sample_every: Duration,
    initial: Option<usize>,
    max_doc_mib: f64,
    queries: Option<PathBuf>,
    runtime: Option<PathBuf>,
    work: Option<PathBuf>,
    /// The command line as given, for the report.
    command: String,
}

/// `Ok(None)` for `--help`.
fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Option<Args>> {
    let mut command = vec!["soak".to_string()];
    let (mut indexer, mut docs, mut out) = (None, None, None);
    let mut a = Args {
        indexer: PathBuf::new(),
        docs: PathBuf::new(),
        out: PathBuf::new(),
        minutes: 30.0,
        clients: 16,
        ingest_every: Duration::from_secs(180),
        sample_every: Duration::from_secs(5),
        initial: None,
        max_doc_mib: 2.0,
        queries: None,
        runtime: None,
        work: None,
        command: String::new(),
    };
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Ok(None);
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        command.push(format!("{flag} {value}"));
        match flag.as_str() {
            "--indexer" => indexer = Some(PathBuf::from(value)),
            "--docs" => docs = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--minutes" => a.minutes = positive(&flag, &value)?,
            "--clients" => a.clients = positive(&flag, &value)? as usize,
            "--ingest-every" => a.ingest_every = Duration::from_secs_f64(positive(&flag, &value)?),
            "--sample-every" => a.sample_every = Duration::from_secs_f64(positive(&flag, &value)?),
            "--initial" => a.initial = Some(positive(&flag, &value)? as usize),
            "--max-doc-mib" => a.max_doc_mib = positive(&flag, &value)?,
            "--queries" => a.queries = Some(PathBuf::from(value)),
            "--runtime" => a.runtime = Some(PathBuf::from(value)),
            "--work" => a.work = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    a.indexer = indexer
        .ok_or("--indexer PATH is required (build it: cargo build --release --bin indexer)")?;
    a.docs = docs.ok_or("--docs DIR is required: a folder of PDFs")?;
    a.out = out.ok_or("--out DIR is required: where the report is written")?;
    a.command = command.join(" ");
    Ok(Some(a))
}

fn positive(flag: &str, value: &str) -> Result<f64> {
    match value.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("{flag} takes a number above 0, not {value:?}")),
    }
}

// ---------------------------------------------------------------------------------------------
// The run

/// Everything the threads of a run share.
#[derive(Debug)]
struct Run {
    args: Args,
    /// The work folder: `docs/` (the ingested folder) and `index/`.
    work: PathBuf,
    addr: SocketAddr,
    queries: Vec<String>,
    t0: Instant,
    stop: AtomicBool,
    window: Mutex<Window>,
    errors: Mutex<Vec<String>>,
    errors_total: AtomicU64,
}

impl Run {
    fn seconds(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn error(&self, message: String) {
        self.errors_total.fetch_add(1, Ordering::Relaxed);
        self.window.lock().unwrap().errors += 1;
        let mut kept = self.errors.lock().unwrap();
        if kept.len() < KEPT_ERRORS {
            kept.push(format!("{:.1} s: {message}", self.seconds()));
        }
    }

    /// Sleeps until `deadline` or until the run stops; false when it stopped.
    fn sleep_until(&self, deadline: Instant) -> bool {
        while Instant::now() < deadline {
            if self.stopped() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100).min(deadline - Instant::now()));
        }
        !self.stopped()
    }
}

/// Requests completed since the last sample.
#[derive(Debug, Default)]
struct Window {
    requests: u64,
    errors: u64,
    /// Milliseconds of each search (GET and POST `/search`) completed in the window.
    search_ms: Vec<f64>,
}

/// What a run measured, for the report.
#[derive(Debug)]
struct Report {
    samples: Vec<Sample>,
    ingests: Vec<IngestRecord>,
    /// Every search's latency by 5-minute block.
    blocks: Vec<Vec<f64>>,
    requests_total: u64,
    searches_total: u64,
    errors_total: u64,
    first_errors: Vec<String>,
    seconds: f64,
    /// Why the run ended.
    end: String,
    corpus: CorpusPlan,
    other_cpu: Vec<(String, f64)>,
    busy: Option<CoresBusy>,
    sample_every: Duration,
    started_utc: String,
    indexer_version: String,
    cores: usize,
}

impl Report {
    fn failed_ingests(&self) -> usize {
        self.ingests.iter().filter(|i| !i.ok).count()
    }

    fn failed(&self) -> bool {
        self.errors_total > 0 || self.failed_ingests() > 0 || self.end != "completed"
    }
}

fn run(args: &Args) -> Result<Report> {
    check_inputs(args)?;
    let args = &absolute_paths(args)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let (work, _temp) = work_dir(args)?;
    let plan = plan_corpus(&args.docs, args.max_doc_mib, args.initial)?;
    let docs = work.join("docs");
    std::fs::create_dir_all(&docs).map_err(|e| format!("{}: {e}", docs.display()))?;
    for p in &plan.initial {
        copy_into(p, &docs)?;
    }
    let queries = read_queries(args.queries.as_deref())?;
    let started_utc = utc_now();
    let port = free_port()?;
    let stop_flag = Arc::new(AtomicBool::new(false));
    stop_on_signal(stop_flag.clone());
    let setup = Run {
        args: args.clone(),
        work: work.clone(),
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        queries,
        t0: Instant::now(),
        stop: AtomicBool::new(false),
        window: Mutex::new(Window::default()),
        errors: Mutex::new(Vec::new()),
        errors_total: AtomicU64::new(0),
    };
    eprintln!(
        "soak: ingesting {} PDFs into {}",
        plan.initial.len(),
        work.join("index").display()
    );
    let setup_t0 = setup.t0;
    let first = run_ingest(&setup, 0, "initial".into(), &stop_flag);
    if !first.ok {
        return Err(format!(
            "the initial ingest failed ({}): see {}",
            first.status,
            args.out.join("ingest.log").display()
        ));
    }
    let mut server = start_server(&setup, &stop_flag)?;
    eprintln!(
        "soak: indexer serve (pid {}) answers on http://{}/; {} clients for {} minutes",
        server.id(),
        setup.addr,
        args.clients,
        args.minutes
    );
    let run = Arc::new(Run {
        t0: Instant::now(),
        ..setup
    });
    // The run's clock starts with the clients: the initial ingest happened before 0.
    let mut first = first;
    let before = (run.t0 - setup_t0).as_secs_f64();
    first.start_s -= before;
    first.end_s -= before;
    let corpus = Corpus::new(&plan, docs);
    let ingests = Arc::new(Mutex::new(vec![first]));
    let outcome = soak(&run, &mut server, corpus, &ingests, &stop_flag, &plan);
    server.kill();
    let mut report = outcome?;
    report.started_utc = started_utc;
    report.indexer_version = indexer_version(&args.indexer);
    write_outputs(&args.out, &report)?;
    Ok(report)
}

/// Starts the clients and the ingest loop, samples until the time is up (or a signal, or the
/// server's end), then stops everything.
fn soak(
    run: &Arc<Run>,
    server: &mut Child,
    corpus: Corpus,
    ingests: &Arc<Mutex<Vec<IngestRecord>>>,
    signal: &Arc<AtomicBool>,
    plan: &CorpusPlan,
) -> Result<Report> {
    let clients: Vec<_> = (0..run.args.clients)
        .map(|id| {
            let run = run.clone();
            std::thread::spawn(move || client(&run, id))
        })
        .collect();
    let ingest_thread = {
        let (run, ingests, signal) = (run.clone(), ingests.clone(), signal.clone());
        std::thread::spawn(move || ingest_loop(&run, corpus, &ingests, &signal))
    };
    let mut sampler = Sampler::new(server.id());
    let mut csv = CsvFile::create(run.args.out.join("soak.csv"))?;
    let mut samples = Vec::new();
    let mut blocks: Vec<Vec<f64>> = Vec::new();
    let (mut requests_total, mut searches_total) = (0, 0);
    let duration = Duration::from_secs_f64(run.args.minutes * 60.0);
    let mut next = run.t0 + run.args.sample_every;
    let end = loop {
        let deadline = next.min(run.t0 + duration);
        while Instant::now() < deadline && !signal.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let window = std::mem::take(&mut *run.window.lock().unwrap());
        requests_total += window.requests;
        searches_total += window.search_ms.len() as u64;
        let s = sampler.sample(run, window, &mut blocks);
        print_progress(run, &s, requests_total);
        csv.append(&s)?;
        samples.push(s);
        next += run.args.sample_every;
        if let Some(st) = server.exited() {
            run.error(format!("indexer serve exited ({st}); its log: serve.log"));
            break format!("the server exited ({st})");
        }
        if signal.load(Ordering::Relaxed) {
            break "interrupted by a signal".to_string();
        }
        if run.t0.elapsed() >= duration {
            break "completed".to_string();
        }
    };
    run.stop.store(true, Ordering::Relaxed);
    for c in clients {
        let _ = c.join();
    }
    let _ = ingest_thread.join();
    let seconds = run.seconds();
    let ingests = std::mem::take(&mut *ingests.lock().unwrap());
    Ok(Report {
        samples,
        ingests,
        blocks,
        requests_total,
        searches_total,
        errors_total: run.errors_total.load(Ordering::Relaxed),
        first_errors: run.errors.lock().unwrap().clone(),
        seconds,
        end,
        corpus: plan.clone(),
        other_cpu: sampler.other.top(8),
        busy: sampler
            .other
            .cores_busy(std::thread::available_parallelism().map_or(1, |n| n.get())),
        sample_every: run.args.sample_every,
        started_utc: String::new(),
        indexer_version: String::new(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
    })
}

fn print_progress(run: &Run, s: &Sample, requests_total: u64) {
    let every = (60.0 / run.args.sample_every.as_secs_f64())
        .round()
        .max(1.0) as usize;
    let n = (s.seconds / run.args.sample_every.as_secs_f64()).round() as usize;
    if n.is_multiple_of(every) {
        eprintln!(
            "soak: {:>5.0} s  rss {:.1} MiB  p99 {} ms  {} requests  {} errors  load {:.2}",
            s.seconds,
            s.rss_mib,
            fmt_ms(s.p99_ms),
            requests_total,
            run.errors_total.load(Ordering::Relaxed),
            s.load1
        );
    }
}

fn check_inputs(args: &Args) -> Result<()> {
    if !args.indexer.is_file() {
        return Err(format!(
            "{}: no such file; build it with cargo build --release --bin indexer",
            args.indexer.display()
        ));
    }
    if !args.docs.is_dir() {
        return Err(format!("{}: not a folder of PDFs", args.docs.display()));
    }
    if !Path::new("/proc/self/status").exists() {
        return Err("/proc is not there: the soak reads memory from /proc (Linux only)".into());
    }
    Ok(())
}

/// The children run in the work folder: the paths they are given must not be relative.
fn absolute_paths(args: &Args) -> Result<Args> {
    let abs = |p: &Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    Ok(Args {
        indexer: abs(&args.indexer)?,
        runtime: args.runtime.as_deref().map(abs).transpose()?,
        ..args.clone()
    })
}

/// The work folder: `--work DIR`, else a temporary folder removed at the end (the guard).
fn work_dir(args: &Args) -> Result<(PathBuf, Option<tempfile::TempDir>)> {
    if let Some(w) = &args.work {
        if w.join("index").exists() || w.join("docs").exists() {
            return Err(format!(
                "{} already holds docs/ or index/ of an earlier soak: remove them or choose another --work",
                w.display()
            ));
        }
        std::fs::create_dir_all(w).map_err(|e| format!("{}: {e}", w.display()))?;
        let w = w
            .canonicalize()
            .map_err(|e| format!("{}: {e}", w.display()))?;
        return Ok((w, None));
    }
    let t = tempfile::Builder::new()
        .prefix("indexer-soak-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    Ok((t.path().to_path_buf(), Some(t)))
}

fn read_queries(path: Option<&Path>) -> Result<Vec<String>> {
    let Some(path) = path else {
        return Ok(QUERIES.iter().map(|q| q.to_string()).collect());
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let qs: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    if qs.is_empty() {
        return Err(format!(
            "{}: no questions in it (one a line)",
            path.display()
        ));
    }
    Ok(qs)
}

/// A loopback port nobody listens on now (the kernel's pick; the window until the server binds
/// it is short).
fn free_port() -> Result<u16> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("cannot bind a loopback port: {e}"))
}

/// On Ctrl-C or SIGTERM the flag is set and the run ends as if its time were up, so the
/// children are killed and what was measured is written; without this handler the children,
/// in their own process groups, would outlive the harness.
fn stop_on_signal(flag: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            use tokio::signal::unix::{SignalKind, signal};
            let Ok(mut term) = signal(SignalKind::terminate()) else {
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        });
        eprintln!("soak: stopping (signal)");
        flag.store(true, Ordering::Relaxed);
    });
}

fn utc_now() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn indexer_version(indexer: &Path) -> String {
    Command::new(indexer)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Child processes

/// A child process in its own process group, killed with the whole group on drop (PDF workers
/// of an ingest included), however the harness ends.
#[derive(Debug)]
struct Child {
    inner: std::process::Child,
}

impl Child {
    fn spawn(name: &str, cmd: &mut Command) -> Result<Child> {
        let inner = cmd
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        Ok(Child { inner })
    }

    fn id(&self) -> u32 {
        self.inner.id()
    }

    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.inner.try_wait().ok().flatten()
    }

    fn kill(&mut self) {
        if self.exited().is_none() {
            // The group id is the child's pid (process_group(0)): this reaches its children.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.inner.id())])
                .stderr(Stdio::null())
                .status();
            let _ = self.inner.kill();
        }
        let _ = self.inner.wait();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `indexer --index WORK/index ARGS...` in the work folder, with `--runtime` passed on.
fn indexer(run: &Run, args: &[&str]) -> Command {
    let mut cmd = Command::new(&run.args.indexer);
    cmd.arg("--index")
        .arg(run.work.join("index"))
        .args(args)
        .current_dir(&run.work)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    if let Some(rt) = &run.args.runtime {
        cmd.env("INDEXER_RUNTIME", rt);
    }
    cmd
}

/// Starts `indexer serve` (stderr to OUT/serve.log) and waits until `/health` answers.
fn start_server(run: &Run, signal: &AtomicBool) -> Result<Child> {
    let log_path = run.args.out.join("serve.log");
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let addr = run.addr.to_string();
    let mut child = Child::spawn(
        "indexer serve",
        indexer(run, &["serve", "--addr", &addr])
            .stdout(Stdio::null())
            .stderr(log),
    )?;
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.exited() {
            return Err(format!(
                "indexer serve exited ({st}): see {}",
                log_path.display()
            ));
        }
        if let Ok(r) = Conn::new(run.addr, false).request("GET", "/health", None)
            && r.status == 200
        {
            return Ok(child);
        }
        if signal.load(Ordering::Relaxed) {
            return Err("interrupted while the server started".into());
        }
        if t0.elapsed() > Duration::from_secs(120) {
            return Err(format!(
                "indexer serve did not answer /health within 120 s: see {}",
                log_path.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus and its ingests

/// Which PDFs of `--docs` the run uses.
#[derive(Debug, Clone)]
struct CorpusPlan {
    initial: Vec<PathBuf>,
    spare: Vec<PathBuf>,
    /// PDFs left out for their size.
    too_large: Vec<PathBuf>,
}

/// The PDFs of `dir` (by name) up to `max_mib`: the first `initial` are ingested at the start,
/// the others wait their turn to be added.
fn plan_corpus(dir: &Path, max_mib: f64, initial: Option<usize>) -> Result<CorpusPlan> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut pdfs: Vec<(PathBuf, u64)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("pdf")))
        .filter_map(|p| std::fs::metadata(&p).ok().map(|m| (p, m.len())))
        .collect();
    pdfs.sort();
    let max_bytes = (max_mib * 1024.0 * 1024.0) as u64;
    let (used, too_large): (Vec<_>, Vec<_>) = pdfs.into_iter().partition(|(_, n)| *n <= max_bytes);
    let used: Vec<PathBuf> = used.into_iter().map(|(p, _)| p).collect();
    let initial = initial.unwrap_or(used.len().saturating_sub(2).max(1));
    if used.len() < initial + 1 || initial == 0 {
        return Err(format!(
            "{} has {} PDFs of at most {max_mib} MiB: the soak needs --initial ({initial}) and at \
             least one more to add (raise --max-doc-mib or lower --initial)",
            dir.display(),
            used.len()
        ));
    }
    Ok(CorpusPlan {
        initial: used[..initial].to_vec(),
        spare: used[initial..].to_vec(),
        too_large: too_large.into_iter().map(|(p, _)| p).collect(),
    })
}

/// The ingested folder and the PDFs in and out of it. Documents rotate: an addition copies the
/// PDF that has been out longest, a removal deletes the one that has been in longest, so over
/// a long run every document is added and removed, and the index stays about one size.
#[derive(Debug)]
struct Corpus {
    dir: PathBuf,
    inside: VecDeque<PathBuf>,
    outside: VecDeque<PathBuf>,
}

impl Corpus {
    fn new(plan: &CorpusPlan, dir: PathBuf) -> Corpus {
        Corpus {
            dir,
            inside: plan.initial.iter().cloned().collect(),
            outside: plan.spare.iter().cloned().collect(),
        }
    }

    /// Change `k` (from 0): additions and removals alternate, starting with an addition.
    fn change(&mut self, k: usize) -> Result<String> {
        let add = (k.is_multiple_of(2) && !self.outside.is_empty()) || self.inside.len() <= 1;
        if add {
            let p = self.outside.pop_front().ok_or("no PDF left to add")?;
            copy_into(&p, &self.dir)?;
            self.inside.push_back(p.clone());
            Ok(format!("add {}", file_name(&p)))
        } else {
            let p = self.inside.pop_front().ok_or("no PDF left to remove")?;
            let at = self.dir.join(file_name(&p));
            std::fs::remove_file(&at).map_err(|e| format!("{}: {e}", at.display()))?;
            self.outside.push_back(p.clone());
            Ok(format!("remove {}", file_name(&p)))
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn copy_into(p: &Path, dir: &Path) -> Result<()> {
    let to = dir.join(file_name(p));
    std::fs::copy(p, &to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", p.display(), to.display()))
}

/// One ingest: what changed, when, and what came of it.
#[derive(Debug, Clone)]
struct IngestRecord {
    change: String,
    start_s: f64,
    end_s: f64,
    status: String,
    ok: bool,
    generation: Option<u64>,
    notes: Option<u64>,
    documents: usize,
    /// Seconds from the ingest's end until `/health` named its generation.
    served_after_s: Option<f64>,
}

/// Every `--ingest-every` seconds: a change of the folder, then `indexer ingest` of it, while
/// there is time left.
fn ingest_loop(
    run: &Run,
    mut corpus: Corpus,
    records: &Mutex<Vec<IngestRecord>>,
    signal: &AtomicBool,
) {
    let end = run.t0 + Duration::from_secs_f64(run.args.minutes * 60.0);
    for k in 0.. {
        let due = run.t0 + run.args.ingest_every * (k as u32 + 1);
        if due >= end || !run.sleep_until(due) {
            return;
        }
        let change = match corpus.change(k) {
            Ok(c) => c,
            Err(e) => {
                run.error(format!("changing the corpus: {e}"));
                return;
            }
        };
        eprintln!("soak: {:>5.0} s  ingest: {change}", run.seconds());
        let mut rec = run_ingest(run, k + 1, change, signal);
        rec.documents = corpus.inside.len();
        if rec.ok {
            rec.served_after_s = wait_served(run, rec.generation.unwrap_or(0));
            if rec.served_after_s.is_none() && !run.stopped() {
                run.error(format!(
                    "generation {:?} was not served {} s after its ingest",
                    rec.generation,
                    PICKUP_TIMEOUT.as_secs()
                ));
            }
        } else if !run.stopped() {
            run.error(format!(
                "ingest {} ({}) failed: {}",
                k + 1,
                rec.change,
                rec.status
            ));
        }
        records.lock().unwrap().push(rec);
    }
}

/// `indexer ingest docs --quiet --json`: its summary read from the JSON, its stderr appended
/// to OUT/ingest.log. Killed when the run stops.
fn run_ingest(run: &Run, n: usize, change: String, signal: &AtomicBool) -> IngestRecord {
    let mut rec = IngestRecord {
        change,
        start_s: run.seconds(),
        end_s: 0.0,
        status: String::new(),
        ok: false,
        generation: None,
        notes: None,
        documents: 0,
        served_after_s: None,
    };
    match ingest_child(run, n, signal) {
        Ok(summary) => {
            rec.ok = true;
            rec.status = "exit 0".into();
            rec.generation = summary["generation"].as_u64();
            rec.notes = summary["notes_total"].as_u64();
        }
        Err(e) => rec.status = e,
    }
    rec.end_s = run.seconds();
    rec
}

fn ingest_child(run: &Run, n: usize, signal: &AtomicBool) -> Result<Value> {
    let json_path = run.work.join(format!("ingest-{n}.json"));
    let log_path = run.args.out.join("ingest.log");
    let open = |p: &Path, append: bool| {
        std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(p)
            .map_err(|e| format!("cannot open {}: {e}", p.display()))
    };
    let mut log = open(&log_path, n > 0)?;
    let _ = writeln!(log, "== ingest {n} at {:.1} s", run.seconds());
    let mut child = Child::spawn(
        "indexer ingest",
        indexer(run, &["ingest", "docs", "--quiet", "--json"])
            .stdout(open(&json_path, false)?)
            .stderr(log),
    )?;
    let status = loop {
        if let Some(st) = child.exited() {
            break st;
        }
        if signal.load(Ordering::Relaxed) || run.stopped() {
            return Err("stopped at the end of the run".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if !status.success() {
        return Err(format!("{status}: see {}", log_path.display()));
    }
    let text = std::fs::read(&json_path).map_err(|e| format!("{}: {e}", json_path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("the ingest summary is not JSON: {e}"))
}

/// Seconds until `/health` answers `generation` or a newer one; `None` after the pickup limit.
fn wait_served(run: &Run, generation: u64) -> Option<f64> {
    let t = Instant::now();
    while t.elapsed() < PICKUP_TIMEOUT && !run.stopped() {
        if let Ok(r) = Conn::new(run.addr, false).request("GET", "/health", None)
            && let Ok(v) = serde_json::from_slice::<Value>(&r.body)
            && v["generation"].as_u64() >= Some(generation)
        {
            return Some(t.elapsed().as_secs_f64());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Clients

/// The requests of the mix, in proportion: out of 20, 12 plain searches with the default
/// selector, 3 as the search page sends them as someone types, 3 POST bodies, one `/stats`
/// and one `/health`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Search,
    PageSearch,
    PostSearch,
    Stats,
    Health,
}

const MIX: [(Kind, u32); 5] = [
    (Kind::Search, 12),
    (Kind::PageSearch, 3),
    (Kind::PostSearch, 3),
    (Kind::Stats, 1),
    (Kind::Health, 1),
];

impl Kind {
    fn pick(x: u32) -> Kind {
        let total: u32 = MIX.iter().map(|(_, w)| w).sum();
        let mut x = x % total;
        for (k, w) in MIX {
            if x < w {
                return k;
            }
            x -= w;
        }
        Kind::Search
    }

    fn is_search(self) -> bool {
        matches!(self, Kind::Search | Kind::PageSearch | Kind::PostSearch)
    }
}

/// One request: method, path, body.
#[derive(Debug)]
struct Req {
    kind: Kind,
    method: &'static str,
    path: String,
    body: Option<Vec<u8>>,
}

impl Req {
    fn new(kind: Kind, q: &str) -> Req {
        let (method, path, body) = match kind {
            Kind::Search => ("GET", format!("/search?q={}", encode(q)), None),
            Kind::PageSearch => (
                "GET",
                format!("/search?q={}&{PAGE_PARAMS}", encode(&as_typed(q))),
                None,
            ),
            Kind::PostSearch => {
                let body =
                    serde_json::json!({"q": q, "budget": 5, "kind": ["text", "figure", "table"]});
                (
                    "POST",
                    "/search".to_string(),
                    Some(body.to_string().into_bytes()),
                )
            }
            Kind::Stats => ("GET", "/stats".to_string(), None),
            Kind::Health => ("GET", "/health".to_string(), None),
        };
        Req {
            kind,
            method,
            path,
            body,
        }
    }
}

/// The question as the search page sends it mid-word: the last word cut to 3 letters.
fn as_typed(q: &str) -> String {
    let q = q.trim_end_matches('?');
    match q.rsplit_once(' ') {
        Some((head, last)) => format!("{head} {}", last.chars().take(3).collect::<String>()),
        None => q.chars().take(3).collect(),
    }
}

/// A small deterministic generator (a 64-bit LCG, the high bits): each client's sequence of
/// requests is reproducible from its number.
#[derive(Debug)]
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

/// One client: requests back to back until the run stops; each answer checked, each search
/// timed, each failure counted with its message.
fn client(run: &Run, id: usize) {
    let mut conn = Conn::new(run.addr, id >= FRESH_CONNECTION_CLIENTS);
    let mut rng = Lcg(id as u64 * 7919 + 1);
    let mut last_generation = 0;
    while !run.stopped() {
        let kind = Kind::pick(rng.next());
        let q = &run.queries[rng.next() as usize % run.queries.len()];
        let req = Req::new(kind, q);
        let t = Instant::now();
        let result = conn
            .request(req.method, &req.path, req.body.as_deref())
            .and_then(|reply| check(&req, &reply));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match result {
            Ok(g) if g < last_generation => run.error(format!(
                "client {id}: {} {}: generation went back from {last_generation} to {g}",
                req.method, req.path
            )),
            Ok(g) => {
                last_generation = g;
                let mut w = run.window.lock().unwrap();
                w.requests += 1;
                if req.kind.is_search() {
                    w.search_ms.push(ms);
                }
            }
            Err(e) => {
                run.window.lock().unwrap().requests += 1;
                run.error(format!("client {id}: {} {}: {e}", req.method, req.path));
                // A dead server would otherwise be asked in a busy loop.
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// A 200 with JSON of the expected shape; the generation that answered.
fn check(req: &Req, r: &Reply) -> Result<u64> {
    if r.status != 200 {
        return Err(format!("status {}: {}", r.status, r.excerpt()));
    }
    let v: Value =
        serde_json::from_slice(&r.body).map_err(|e| format!("not JSON ({e}): {}", r.excerpt()))?;
    let (generation, ok) = match req.kind {
        Kind::Search | Kind::PostSearch => (&v["generation"], v["hits"].is_array()),
        Kind::PageSearch => (&v["generation"], v["groups"].is_array()),
        Kind::Stats => (&v["stats"]["generation"], v["stats"]["notes"].is_u64()),
        Kind::Health => (&v["generation"], v["status"].is_string()),
    };
    match generation.as_u64() {
        Some(g) if ok => Ok(g),
        _ => Err(format!("unexpected JSON: {}", r.excerpt())),
    }
}

/// Percent-encodes a query-string value.
fn encode(s: &str) -> String {
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

// ---------------------------------------------------------------------------------------------
// HTTP/1.1 over TcpStream

/// An HTTP answer.
#[derive(Debug)]
struct Reply {
    status: u16,
    body: Vec<u8>,
}

impl Reply {
    /// The start of the body, for an error message.
    fn excerpt(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        text.chars().take(200).collect()
    }
}

/// A client's connection: kept alive between requests, or a new one for each.
#[derive(Debug)]
struct Conn {
    addr: SocketAddr,
    keep_alive: bool,
    stream: Option<TcpStream>,
}

impl Conn {
    fn new(addr: SocketAddr, keep_alive: bool) -> Conn {
        Conn {
            addr,
            keep_alive,
            stream: None,
        }
    }

    /// One request and its whole answer. After any failure the connection is dropped, so the
    /// next request starts on a new one (a failure is never retried: it is what we count).
    fn request(&mut self, method: &str, path: &str, body: Option<&[u8]>) -> Result<Reply> {
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

// ---------------------------------------------------------------------------------------------
// Sampling /proc

/// One sample: the server's memory and CPU, the window's requests and latency, the machine's
/// load and the generation served.
#[derive(Debug, Clone)]
struct Sample {
    seconds: f64,
    /// VmRSS of the server and of any process it started.
    rss_mib: f64,
    /// Its anonymous part (heap, stacks) and its file-backed part (the index's memory-mapped
    /// files, the program and its libraries): a leak grows the first, a larger or newer
    /// generation the second.
    anon_mib: f64,
    file_mib: f64,
    requests: u64,
    searches: usize,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    errors: u64,
    /// The 1-minute load average of the machine (2 cores: 2.0 is full).
    load1: f64,
    /// Cores the server used in the window.
    server_cpu: f64,
    threads: u64,
    fds: usize,
    generation: Option<u64>,
    notes: Option<u64>,
}

/// Reads the server's process (and its descendants) and the rest of the machine.
#[derive(Debug)]
struct Sampler {
    server: u32,
    ticks_per_s: f64,
    last_cpu: Option<(Instant, u64)>,
    other: OtherCpu,
}

impl Sampler {
    fn new(server: u32) -> Sampler {
        let mut s = Sampler {
            server,
            ticks_per_s: clock_ticks(),
            last_cpu: None,
            other: OtherCpu::default(),
        };
        let procs = scan_procs();
        s.other.update(&procs, s.ticks_per_s);
        s.last_cpu = Some((Instant::now(), s.tree_ticks(&procs)));
        s
    }

    /// CPU ticks of the server and its descendants.
    fn tree_ticks(&self, procs: &HashMap<u32, ProcInfo>) -> u64 {
        descendants(procs, self.server)
            .iter()
            .filter_map(|p| procs.get(p).map(|i| i.ticks))
            .sum()
    }

    fn sample(&mut self, run: &Run, window: Window, blocks: &mut Vec<Vec<f64>>) -> Sample {
        let procs = scan_procs();
        self.other.update(&procs, self.ticks_per_s);
        let tree = descendants(&procs, self.server);
        let kib = |key: &str| -> f64 {
            tree.iter()
                .filter_map(|p| status_field(*p, key))
                .sum::<u64>() as f64
                / 1024.0
        };
        let ticks = self.tree_ticks(&procs);
        let now = Instant::now();
        let server_cpu = match self.last_cpu.replace((now, ticks)) {
            Some((t, before)) => {
                ticks.saturating_sub(before) as f64
                    / self.ticks_per_s
                    / (now - t).as_secs_f64().max(1e-3)
            }
            None => 0.0,
        };
        let health = Conn::new(run.addr, false)
            .request("GET", "/health", None)
            .ok()
            .and_then(|r| serde_json::from_slice::<Value>(&r.body).ok());
        let seconds = run.seconds();
        let mut ms = window.search_ms;
        ms.sort_by(f64::total_cmp);
        // A window belongs to the block of its middle (the last one ends at the run's end).
        let middle = seconds - run.args.sample_every.as_secs_f64() / 2.0;
        let block = (middle.max(0.0) / BLOCK.as_secs_f64()) as usize;
        if blocks.len() <= block {
            blocks.resize(block + 1, Vec::new());
        }
        blocks[block].extend_from_slice(&ms);
        Sample {
            seconds,
            rss_mib: kib("VmRSS:"),
            anon_mib: kib("RssAnon:"),
            file_mib: kib("RssFile:") + kib("RssShmem:"),
            requests: window.requests,
            searches: ms.len(),
            p50_ms: percentile(&ms, 0.50),
            p99_ms: percentile(&ms, 0.99),
            errors: window.errors,
            load1: load1(),
            server_cpu,
            threads: status_field(self.server, "Threads:").unwrap_or(0),
            fds: count_fds(self.server),
            generation: health.as_ref().and_then(|h| h["generation"].as_u64()),
            notes: health.as_ref().and_then(|h| h["notes"].as_u64()),
        }
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// A process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone)]
struct ProcInfo {
    ppid: u32,
    name: String,
    /// User + system CPU time, in clock ticks.
    ticks: u64,
}

fn scan_procs() -> HashMap<u32, ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, proc_info(pid)?)))
        .collect()
}

fn proc_info(pid: u32) -> Option<ProcInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold spaces: the fields after it start at the last ')'.
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let name = stat.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = stat.get(close + 2..)?.split(' ').collect();
    // After the name: state(3) ppid(4) ... utime(14) stime(15), numbered as in proc(5).
    let field = |n: usize| rest.get(n - 3)?.parse::<u64>().ok();
    Some(ProcInfo {
        ppid: field(4)? as u32,
        name,
        ticks: field(14)? + field(15)?,
    })
}

/// `root` and every process below it.
fn descendants(procs: &HashMap<u32, ProcInfo>, root: u32) -> Vec<u32> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(
            procs
                .iter()
                .filter(|(_, p)| p.ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    out
}

/// A number field of `/proc/PID/status` (`VmRSS:` in kB, `Threads:`).
fn status_field(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

fn count_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

fn load1() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// (busy, total) ticks of all cores since boot, from the first line of `/proc/stat`.
fn machine_ticks() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let v: Vec<u64> = text
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user already).
    let busy = v.first()? + v.get(1)? + v.get(2)? + v.get(5)? + v.get(6)? + v.get(7)?;
    Some((busy, busy + v.get(3)? + v.get(4)?))
}

/// The harness's CPU time with that of its children it has waited for (ended ingests and, in
/// turn, their PDF workers): utime, stime, cutime, cstime of `/proc/self/stat`.
fn own_ticks() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
        return 0;
    };
    let f: Vec<u64> = rest
        .split(' ')
        .skip(11)
        .take(4)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum()
}

/// Clock ticks a second of `/proc/PID/stat` (`getconf CLK_TCK`; 100 on every Linux we know).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// What else the machine did during the run. Two measures: the CPU time of the whole machine
/// (`/proc/stat`) against the soak's own (the harness with its clients, the server, the
/// ingests and their PDF workers), which counts every other process however short; and, by
/// program name, the CPU time of the other processes seen at a sample, which names them but
/// misses those that start and end between two samples (a build's many short compiler runs).
#[derive(Debug, Default)]
struct OtherCpu {
    seen: HashMap<u32, u64>,
    started: bool,
    by_name: BTreeMap<String, f64>,
    /// (machine busy, machine total, the soak's own) ticks at the first and the last sample.
    first: Option<[u64; 3]>,
    last: Option<[u64; 3]>,
}

/// Cores busy on average between the first and the last sample: (the machine, the soak).
#[derive(Debug, Clone, Copy, Default)]
struct CoresBusy {
    machine: f64,
    soak: f64,
}

impl OtherCpu {
    fn cores_busy(&self, cores: usize) -> Option<CoresBusy> {
        let (a, b) = (self.first?, self.last?);
        let total = b[1].saturating_sub(a[1]) as f64;
        if total <= 0.0 {
            return None;
        }
        // /proc/stat counts every core: its total is the wall time times the cores.
        let per_core = total / cores as f64;
        Some(CoresBusy {
            machine: b[0].saturating_sub(a[0]) as f64 / per_core,
            soak: b[2].saturating_sub(a[2]) as f64 / per_core,
        })
    }

    fn update(&mut self, procs: &HashMap<u32, ProcInfo>, ticks_per_s: f64) {
        let ours = descendants(procs, std::process::id());
        if let Some((busy, total)) = machine_ticks() {
            let live: u64 = ours
                .iter()
                .filter(|p| **p != std::process::id())
                .filter_map(|p| procs.get(p).map(|i| i.ticks))
                .sum();
            let now = [busy, total, own_ticks() + live];
            self.first.get_or_insert(now);
            self.last = Some(now);
        }
        for (pid, p) in procs {
            if ours.contains(pid) {
                continue;
            }
            // A process first seen after the start began during the run: all its time counts.
            let before =
                self.seen
                    .insert(*pid, p.ticks)
                    .unwrap_or(if self.started { 0 } else { p.ticks });
            let used = p.ticks.saturating_sub(before) as f64 / ticks_per_s;
            if used > 0.0 {
                *self.by_name.entry(p.name.clone()).or_default() += used;
            }
        }
        self.started = true;
    }

    /// The `n` programs that used most CPU, in CPU-seconds.
    fn top(&self, n: usize) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = self.by_name.iter().map(|(k, v)| (k.clone(), *v)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v.truncate(n);
        v
    }
}

// ---------------------------------------------------------------------------------------------
// Outputs

fn write_outputs(out: &Path, r: &Report) -> Result<()> {
    let write = |name: &str, text: String| {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    write("soak.md", markdown(r))?;
    plot(&out.join("soak.png"), r)
}

fn fmt_ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

const CSV_HEADER: &str = "seconds,rss_mib,searches,p50_ms,p99_ms,errors,requests,load1,server_cpu,threads,fds,generation,notes,anon_mib,file_mib";

/// `OUT/soak.csv`, written a row at a time: a run that is killed keeps what it measured.
#[derive(Debug)]
struct CsvFile {
    file: std::fs::File,
    path: PathBuf,
}

impl CsvFile {
    fn create(path: PathBuf) -> Result<CsvFile> {
        let mut file = std::fs::File::create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        writeln!(file, "{CSV_HEADER}").map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(CsvFile { file, path })
    }

    fn append(&mut self, x: &Sample) -> Result<()> {
        self.file
            .write_all(csv_row(x).as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

fn csv_row(x: &Sample) -> String {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.2}"));
    let opt_u = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
    format!(
        "{:.1},{:.2},{},{},{},{},{},{:.2},{:.2},{},{},{},{},{:.2},{:.2}\n",
        x.seconds,
        x.rss_mib,
        x.searches,
        opt(x.p50_ms),
        opt(x.p99_ms),
        x.errors,
        x.requests,
        x.load1,
        x.server_cpu,
        x.threads,
        x.fds,
        opt_u(x.generation),
        opt_u(x.notes),
        x.anon_mib,
        x.file_mib
    )
}

/// How long the server warms up before its memory is compared: 2 minutes, or a quarter of a
/// shorter run (caches, the allocator's arenas and the first generations settle in that time).
fn warmup(r: &Report) -> f64 {
    120f64.min(r.seconds / 4.0)
}

/// Least-squares slope of RSS after the warm-up, in MiB an hour.
fn rss_slope(samples: &[Sample], after: f64) -> Option<f64> {
    let pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.seconds >= after)
        .map(|s| (s.seconds / 3600.0, s.rss_mib))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# indexer serve soak\n");
    let _ = writeln!(
        s,
        "Started {}; {}; {} cores. Ended: {} after {:.0} s.\n",
        r.started_utc, r.indexer_version, r.cores, r.end, r.seconds
    );
    md_traffic(&mut s, r);
    md_memory(&mut s, r);
    md_blocks(&mut s, r);
    md_ingests(&mut s, r);
    md_machine(&mut s, r);
    if !r.first_errors.is_empty() {
        let _ = writeln!(s, "## First errors\n\n```");
        for e in &r.first_errors {
            let _ = writeln!(s, "{e}");
        }
        let _ = writeln!(s, "```\n");
    }
    let _ = writeln!(
        s,
        "Files: `soak.csv` (one row per sample), `soak.png`, `serve.log`, `ingest.log`."
    );
    s
}

fn all_search_ms(r: &Report) -> Vec<f64> {
    let mut all: Vec<f64> = r.blocks.iter().flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    all
}

fn md_traffic(s: &mut String, r: &Report) {
    let all = all_search_ms(r);
    let _ = writeln!(
        s,
        "## Traffic\n\n- requests: {} ({:.0}/s), of which searches: {} ({:.0}/s)\n- errors: **{}** (status other than 200, invalid JSON, connection errors, a generation going back, a generation not served after its ingest)\n- search latency over the run: p50 {} ms, p99 {} ms, max {} ms\n",
        r.requests_total,
        r.requests_total as f64 / r.seconds.max(1.0),
        r.searches_total,
        r.searches_total as f64 / r.seconds.max(1.0),
        r.errors_total,
        fmt_ms(percentile(&all, 0.5)),
        fmt_ms(percentile(&all, 0.99)),
        fmt_ms(all.last().copied()),
    );
}

fn md_memory(s: &mut String, r: &Report) {
    let Some(first) = r.samples.first() else {
        return;
    };
    let w = warmup(r);
    let warm = r.samples.iter().find(|x| x.seconds >= w).unwrap_or(first);
    let last = r.samples.last().unwrap_or(first);
    let max = r
        .samples
        .iter()
        .max_by(|a, b| a.rss_mib.total_cmp(&b.rss_mib))
        .unwrap_or(first);
    let _ = writeln!(
        s,
        "## Memory of the server (VmRSS, with any child)\n\n| at | seconds | RSS MiB | anonymous | file-backed | notes served | threads | open fds |\n|---|---|---|---|---|---|---|---|"
    );
    for (label, x) in [
        ("start", first),
        ("after warm-up", warm),
        ("end", last),
        ("max", max),
    ] {
        let _ = writeln!(
            s,
            "| {label} | {:.0} | {:.1} | {:.1} | {:.1} | {} | {} | {} |",
            x.seconds,
            x.rss_mib,
            x.anon_mib,
            x.file_mib,
            x.notes.map_or("-".into(), |n| n.to_string()),
            x.threads,
            x.fds
        );
    }
    let _ = writeln!(
        s,
        "\nSlope of RSS after the warm-up ({w:.0} s), least squares: {} MiB an hour.",
        rss_slope(&r.samples, w).map_or("-".into(), |v| format!("{v:+.1}"))
    );
    let half = r.seconds / 2.0;
    let range = |f: fn(&Sample) -> f64| {
        let v: Vec<f64> = r
            .samples
            .iter()
            .filter(|x| x.seconds >= half)
            .map(f)
            .collect();
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{min:.1} to {max:.1}")
    };
    let _ = writeln!(
        s,
        "Over the second half of the run (from {half:.0} s): RSS {} MiB, anonymous {} MiB, file-backed {} MiB.\n",
        range(|x| x.rss_mib),
        range(|x| x.anon_mib),
        range(|x| x.file_mib)
    );
}

fn md_blocks(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## Search latency by {}-minute block\n\n| block | searches | p50 ms | p99 ms | max ms | server cores | searches per server CPU-s | load | RSS MiB at end | ingests started |\n|---|---|---|---|---|---|---|---|---|---|",
        BLOCK.as_secs() / 60
    );
    let window = r.sample_every.as_secs_f64();
    let len = BLOCK.as_secs_f64();
    for (i, b) in r.blocks.iter().enumerate() {
        let mut b = b.clone();
        b.sort_by(f64::total_cmp);
        let (from, to) = (i as f64 * len, ((i + 1) as f64 * len).min(r.seconds));
        let rss = r
            .samples
            .iter()
            .rev()
            .find(|x| x.seconds <= to + 0.5)
            .map_or("-".into(), |x| format!("{:.1}", x.rss_mib));
        let ingests = r
            .ingests
            .iter()
            .filter(|g| g.start_s >= from && g.start_s < to && g.change != "initial")
            .count();
        // The samples whose window lies in the block (a window belongs to its middle's block).
        let in_block: Vec<&Sample> = r
            .samples
            .iter()
            .filter(|x| ((x.seconds - window / 2.0).max(0.0) / len) as usize == i)
            .collect();
        let n = in_block.len().max(1) as f64;
        let cores = in_block.iter().map(|x| x.server_cpu).sum::<f64>() / n;
        let cpu_s = in_block.iter().map(|x| x.server_cpu * window).sum::<f64>();
        let load = in_block.iter().map(|x| x.load1).sum::<f64>() / n;
        let _ = writeln!(
            s,
            "| {:.0}-{:.0} min | {} | {} | {} | {} | {cores:.2} | {:.0} | {load:.1} | {rss} | {ingests} |",
            from / 60.0,
            to / 60.0,
            b.len(),
            fmt_ms(percentile(&b, 0.5)),
            fmt_ms(percentile(&b, 0.99)),
            fmt_ms(b.last().copied()),
            b.len() as f64 / cpu_s.max(1e-9),
        );
    }
    let _ = writeln!(
        s,
        "\nOn a shared machine the latency follows the CPU the server gets: searches per server CPU-second is the figure that shows whether the server itself slows down.\n"
    );
}

fn md_ingests(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## Ingests\n\n| change | start s | end s | took s | result | generation | documents | notes | served after s | RSS MiB before, after |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for (i, g) in r.ingests.iter().enumerate() {
        let next = r.ingests.get(i + 1).map_or(f64::INFINITY, |n| n.start_s);
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} | {:.1} | {} | {} | {} | {} | {} | {} |",
            g.change,
            g.start_s,
            g.end_s,
            g.end_s - g.start_s,
            g.status,
            g.generation.map_or("-".into(), |v| v.to_string()),
            if g.change == "initial" {
                r.corpus.initial.len()
            } else {
                g.documents
            },
            g.notes.map_or("-".into(), |v| v.to_string()),
            g.served_after_s.map_or("-".into(), |v| format!("{v:.1}")),
            rss_around(&r.samples, g.start_s, next),
        );
    }
    let names = |v: &[PathBuf]| {
        v.iter()
            .map(|p| file_name(p))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "\nThe initial ingest ran before the server started (the clock starts with the clients). Corpus: at the start {}; to rotate in {}; left out for size: {}.\n",
        names(&r.corpus.initial),
        names(&r.corpus.spare),
        if r.corpus.too_large.is_empty() {
            "none".into()
        } else {
            names(&r.corpus.too_large)
        }
    );
}

/// RSS at the last sample before an ingest and at the last before the next one (settled).
fn rss_around(samples: &[Sample], start: f64, next: f64) -> String {
    let last_before = |t: f64| samples.iter().rev().find(|x| x.seconds <= t);
    let (before, after) = (last_before(start), last_before(next));
    let mib = |x: Option<&Sample>| x.map_or("-".into(), |x| format!("{:.1}", x.rss_mib));
    format!("{}, {}", mib(before), mib(after))
}

fn md_machine(s: &mut String, r: &Report) {
    let loads: Vec<f64> = r.samples.iter().map(|x| x.load1).collect();
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let max = loads.iter().copied().fold(0.0, f64::max);
    let cpu: Vec<f64> = r.samples.iter().map(|x| x.server_cpu).collect();
    let _ = writeln!(
        s,
        "## The machine\n\nLoad average (1 min): mean {mean:.2}, max {max:.2} on {} cores. The server used {:.2} cores on average.\n",
        r.cores,
        cpu.iter().sum::<f64>() / cpu.len().max(1) as f64
    );
    if let Some(b) = r.busy {
        let _ = writeln!(
            s,
            "Cores busy on average (of {}): {:.2} in all; the soak's own processes (server, clients, ingests) {:.2}; other programs {:.2}.\n",
            r.cores,
            b.machine,
            b.soak,
            (b.machine - b.soak).max(0.0)
        );
    }
    let _ = writeln!(
        s,
        "CPU-seconds of other programs by name (sampled every few seconds: programs shorter than that are missed, so this is a lower bound):\n\n| program | CPU s |\n|---|---|"
    );
    for (name, secs) in &r.other_cpu {
        let _ = writeln!(s, "| {name} | {secs:.0} |");
    }
    let _ = writeln!(s);
}

// ---------------------------------------------------------------------------------------------
// The plot

const RSS_COLOR: RGBColor = RGBColor(31, 119, 180);
const ANON_COLOR: RGBColor = RGBColor(23, 190, 207);
const P50_COLOR: RGBColor = RGBColor(44, 160, 44);
const P99_COLOR: RGBColor = RGBColor(214, 39, 40);
const ADD_COLOR: RGBColor = RGBColor(255, 127, 14);
const REMOVE_COLOR: RGBColor = RGBColor(148, 103, 189);

/// Two panels over the run's minutes: RSS above, search p50 and p99 below; each ingest a
/// shaded span from its start to its end (orange: an addition, purple: a removal).
fn plot(path: &Path, r: &Report) -> Result<()> {
    let err = |e: String| format!("cannot draw {}: {e}", path.display());
    let font = register_font();
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (top, bottom) = root.split_vertically(240);
    let minutes = (r.seconds / 60.0).max(0.1);
    let rss: Vec<(f64, f64)> = r
        .samples
        .iter()
        .map(|x| (x.seconds / 60.0, x.rss_mib))
        .collect();
    let anon: Vec<(f64, f64)> = r
        .samples
        .iter()
        .map(|x| (x.seconds / 60.0, x.anon_mib))
        .collect();
    let rss_max = rss.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    let rss_panel = Panel {
        caption: format!(
            "server RSS (MiB); {} errors in {} requests",
            r.errors_total, r.requests_total
        ),
        y_desc: "MiB",
        legend: SeriesLabelPosition::LowerRight,
        x_max: minutes,
        y_max: rss_max,
    };
    rss_panel
        .draw(
            &top,
            font,
            &r.ingests,
            &[("RSS", RSS_COLOR, rss), ("anonymous", ANON_COLOR, anon)],
        )
        .map_err(err)?;
    let p = |f: fn(&Sample) -> Option<f64>| -> Vec<(f64, f64)> {
        r.samples
            .iter()
            .filter_map(|x| f(x).map(|v| (x.seconds / 60.0, v)))
            .collect()
    };
    let (p50, p99) = (p(|x| x.p50_ms), p(|x| x.p99_ms));
    // Room above the lines for the legend.
    let ms_max = p99.iter().map(|p| p.1).fold(1.0, f64::max) * 1.5;
    let latency_panel = Panel {
        caption: format!(
            "search latency per {} s window (ms)",
            r.sample_every.as_secs_f64()
        ),
        y_desc: "ms",
        legend: SeriesLabelPosition::UpperRight,
        x_max: minutes,
        y_max: ms_max,
    };
    let lines = [("p50", P50_COLOR, p50), ("p99", P99_COLOR, p99)];
    latency_panel
        .draw(&bottom, font, &r.ingests, &lines)
        .map_err(err)?;
    root.present().map_err(|e| err(e.to_string()))
}

type Series<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// One panel: minutes on x up to `x_max`, values on y from 0 to `y_max`.
#[derive(Debug)]
struct Panel {
    caption: String,
    y_desc: &'static str,
    legend: SeriesLabelPosition,
    x_max: f64,
    y_max: f64,
}

impl Panel {
    /// Draws `lines` with the ingests shaded behind them.
    fn draw(
        &self,
        area: &DrawingArea<BitMapBackend, Shift>,
        font: bool,
        ingests: &[IngestRecord],
        lines: &[Series],
    ) -> Result<()> {
        let Panel {
            caption,
            y_desc,
            legend,
            x_max,
            y_max,
        } = self;
        let (x_max, y_max, legend) = (*x_max, *y_max, legend.clone());
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let mut builder = ChartBuilder::on(area);
        builder.margin(10);
        if font {
            builder
                .caption(caption.as_str(), ("sans-serif", 16))
                .x_label_area_size(28)
                .y_label_area_size(50);
        }
        let mut chart = builder
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)
            .map_err(|x| e(&x))?;
        if font {
            chart
                .configure_mesh()
                .x_desc("minutes")
                .y_desc(*y_desc)
                .y_label_formatter(&|v| format!("{v:.0}"))
                .light_line_style(WHITE.mix(0.0))
                .draw()
                .map_err(|x| e(&x))?;
        }
        for g in ingests
            .iter()
            .filter(|g| g.start_s >= 0.0 && g.change != "initial")
        {
            let c = if g.change.starts_with("add") {
                ADD_COLOR
            } else {
                REMOVE_COLOR
            };
            let (x0, x1) = (
                g.start_s / 60.0,
                (g.end_s / 60.0).max(g.start_s / 60.0 + x_max / 300.0),
            );
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x0, 0.0), (x1.min(x_max), y_max)],
                    c.mix(0.25).filled(),
                )))
                .map_err(|x| e(&x))?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x0, 0.0), (x0, y_max)],
                    c.stroke_width(1),
                )))
                .map_err(|x| e(&x))?;
        }
        for (name, color, pts) in lines {
            let c = *color;
            let series = chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(|x| e(&x))?;
            if font {
                series.label(*name).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 15, y)], c.stroke_width(2))
                });
            }
        }
        if font {
            for (name, c) in [("ingest: add", ADD_COLOR), ("ingest: remove", REMOVE_COLOR)] {
                chart
                    .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
                    .map_err(|x| e(&x))?
                    .label(name)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 15, y + 5)], c.mix(0.5).filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(legend)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|x| e(&x))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), Some(50.0));
        assert_eq!(percentile(&v, 0.99), Some(99.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn replies_are_read_by_length_and_by_chunks() {
        let head = Head::parse(b"HTTP/1.1 200 OK\r\ncontent-length: 2").unwrap();
        assert_eq!(head.complete_body(b"{", false), Ok(None));
        assert_eq!(head.complete_body(b"{}", false), Ok(Some(b"{}".to_vec())));
        assert_eq!(dechunk(b"2\r\n{}\r\n0\r\n\r\n"), Some(b"{}".to_vec()));
        assert_eq!(dechunk(b"2\r\n{}\r\n"), None);
    }

    #[test]
    fn typed_queries_cut_the_last_word() {
        assert_eq!(as_typed("What is a mosaic plot?"), "What is a mosaic plo");
        assert_eq!(as_typed("Bose-Einstein"), "Bos");
    }
}
