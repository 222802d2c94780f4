//! The run: its setup, the soak loop that samples until the time is up, and the report it ends
//! with (the state its threads share is [`state`](crate::state)).

use crate::args::Args;
use crate::child::{Child, start_server};
use crate::client::client;
use crate::corpus::{
    Corpus, CorpusPlan, IngestRecord, copy_into, ingest_loop, plan_corpus, run_ingest,
};
use crate::error::Result;
use crate::measured::Report;
use crate::report::{CsvFile, fmt_ms, write_outputs};
use crate::sample::{Sample, Sampler};
use crate::state::Run;
use indexer_index::bench_support::SHARED_CORPUS_QUERIES;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(crate) fn run(args: &Args) -> Result<Report> {
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
    let setup = Run::new(
        args.clone(),
        work.clone(),
        SocketAddr::from(([127, 0, 0, 1], port)),
        queries,
    );
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
    let run = Arc::new(setup.restarted_clock());
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
    run.stop();
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
        errors_total: run.errors_total(),
        first_errors: run.first_errors(),
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
            run.errors_total(),
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
        return Ok(SHARED_CORPUS_QUERIES
            .iter()
            .map(|q| q.to_string())
            .collect());
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
