//! The command line: its usage text and its parsing into `Args`.

use crate::error::Result;
use std::path::PathBuf;
use std::time::Duration;

pub(crate) const USAGE: &str = "\
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
  --selector SPEC       the selector every search asks for, with options as the API takes them
                        (cds, mmr:lambda=0.6, ...; default: none asked, the server's default)
  --runtime DIR         INDEXER_RUNTIME for the children (default: what indexer finds itself)
  --work DIR            keep the index and documents here instead of a temporary folder

Exit status: 0 when every answer was a 200 with valid JSON and every ingest succeeded, 1 when
not (the first errors are printed and in soak.md), 2 when the soak could not run.";

#[derive(Debug, Clone)]
pub(crate) struct Args {
    pub(crate) indexer: PathBuf,
    pub(crate) docs: PathBuf,
    pub(crate) out: PathBuf,
    pub(crate) minutes: f64,
    pub(crate) clients: usize,
    pub(crate) ingest_every: Duration,
    pub(crate) sample_every: Duration,
    pub(crate) initial: Option<usize>,
    pub(crate) max_doc_mib: f64,
    pub(crate) queries: Option<PathBuf>,
    /// The `selector` parameter of every search; `None` leaves it out.
    pub(crate) selector: Option<String>,
    pub(crate) runtime: Option<PathBuf>,
    pub(crate) work: Option<PathBuf>,
    /// The command line as given, for the report.
    pub(crate) command: String,
}

/// `Ok(None)` for `--help`.
pub(crate) fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Option<Args>> {
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
        selector: None,
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
            "--selector" if value.trim().is_empty() => {
                return Err("--selector takes a selector, such as cds or mmr:lambda=0.6".into());
            }
            "--selector" => a.selector = Some(value),
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
