//! The corpus and its ingests: which PDFs the run uses, how they rotate in and out of the
//! ingested folder, and the ingest loop that runs `indexer ingest` after each change.

use crate::child::{Child, indexer};
use crate::error::Result;
use crate::http::Conn;
use crate::state::Run;
use serde_json::Value;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the server may take to serve a generation an ingest has committed (it checks
/// every second).
const PICKUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Which PDFs of `--docs` the run uses.
#[derive(Debug, Clone)]
pub(crate) struct CorpusPlan {
    pub(crate) initial: Vec<PathBuf>,
    pub(crate) spare: Vec<PathBuf>,
    /// PDFs left out for their size.
    pub(crate) too_large: Vec<PathBuf>,
}

/// The PDFs of `dir` (by name) up to `max_mib`: the first `initial` are ingested at the start,
/// the others wait their turn to be added.
pub(crate) fn plan_corpus(dir: &Path, max_mib: f64, initial: Option<usize>) -> Result<CorpusPlan> {
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
pub(crate) struct Corpus {
    dir: PathBuf,
    inside: VecDeque<PathBuf>,
    outside: VecDeque<PathBuf>,
}

impl Corpus {
    pub(crate) fn new(plan: &CorpusPlan, dir: PathBuf) -> Corpus {
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

pub(crate) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub(crate) fn copy_into(p: &Path, dir: &Path) -> Result<()> {
    let to = dir.join(file_name(p));
    std::fs::copy(p, &to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", p.display(), to.display()))
}

/// One ingest: what changed, when, and what came of it.
#[derive(Debug, Clone)]
pub(crate) struct IngestRecord {
    pub(crate) change: String,
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
    pub(crate) status: String,
    pub(crate) ok: bool,
    pub(crate) generation: Option<u64>,
    pub(crate) notes: Option<u64>,
    pub(crate) documents: usize,
    /// Seconds from the ingest's end until `/health` named its generation.
    pub(crate) served_after_s: Option<f64>,
}

/// Every `--ingest-every` seconds: a change of the folder, then `indexer ingest` of it, while
/// there is time left.
pub(crate) fn ingest_loop(
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
pub(crate) fn run_ingest(run: &Run, n: usize, change: String, signal: &AtomicBool) -> IngestRecord {
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
