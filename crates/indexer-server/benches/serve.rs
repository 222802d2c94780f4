//! Queries per second and latency of a real server on loopback, at 1, 4 and 16 concurrent
//! clients, for the default selector (`DEFAULT_SELECTOR`) on the fused ranking and on the
//! learned one (`ranking=learned`), and the paper's CDS, over 200 candidates (100 BM25 + 100
//! vector). The index is built once at the start from five real PDFs
//! of `../shared/corpus/` (its size and the figures measured: the crate's README, "Selectors").
//!
//! `cargo bench -p indexer-server` prints criterion's time per query (the inverse of the
//! throughput) and then a table of QPS, p50 and p99 per configuration on stderr.
//!
//! The bench binary is also its own PDF worker: run with `INDEXER_BENCH_PDF_WORKER=1` it serves
//! the worker protocol (what the `indexer` binary's hidden subcommand does), so the ingest at
//! the start parses PDFs in worker processes as `indexer ingest` does.

use criterion::{BenchmarkId, Criterion};
use indexer_engine::{DEFAULT_SELECTOR, Engine, IngestConfig, Ranking, SelectorKind};
// The questions about `../shared/corpus/` that the soak of `indexer serve` asks too.
use indexer_index::bench_support::SHARED_CORPUS_QUERIES as QUERIES;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const WORKER_ENV: &str = "INDEXER_BENCH_PDF_WORKER";
const PDFS: [&str; 5] = [
    "vcd-strucplot.pdf",
    "lme4-lmer.pdf",
    "ndsu-thesis-extended.pdf",
    "acmart-sample-sigconf.pdf",
    "revtex-apssamp.pdf",
];
/// Per list: 100 BM25 + 100 vector candidates.
const CANDIDATES: usize = 100;
const CLIENTS: [usize; 3] = [1, 4, 16];
const TABLE_RUN: Duration = Duration::from_secs(5);

struct Fixture {
    _dir: tempfile::TempDir,
    addr: SocketAddr,
    notes: usize,
    _rt: tokio::runtime::Runtime,
}

fn fixture() -> Fixture {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rt = indexer_runtime::Runtime::discover_from(None, &root, Path::new(""))
        .expect("the runtime is missing: run tools/setup");
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for f in PDFS {
        let from = root.join("../shared/corpus").join(f);
        std::fs::copy(&from, docs.join(f)).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: this benchmark reads ../shared/corpus/ beside the project, which a clone of the project does not have",
                from.display()
            )
        });
    }
    let index = dir.path().join("index");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let encoder = indexer_engine::load_encoder(&rt, indexer_runtime::DEFAULT_MODEL, cores)
        .expect("the encoder cannot be loaded: run tools/setup");
    let mut worker = std::process::Command::new(std::env::current_exe().unwrap());
    worker
        .env(WORKER_ENV, "1")
        .env("INDEXER_RUNTIME", rt.root());
    let mut cfg = IngestConfig::new(&index, dir.path(), worker);
    cfg.options.jobs = cores;
    // Crops cost ingest time and no search time beyond a file check per hit.
    cfg.options.crops = false;
    cfg.options.chunking = indexer_engine::default_chunking(&encoder);
    let t0 = Instant::now();
    let s = indexer_engine::ingest(std::slice::from_ref(&docs), &cfg, &encoder, &mut |_| {})
        .expect("ingest of the bench PDFs");
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    eprintln!(
        "bench index: {} PDFs, {} pages, {} notes in {:.1} s",
        PDFS.len(),
        s.pages,
        s.notes_total,
        t0.elapsed().as_secs_f64()
    );
    assert!(s.notes_total > 400, "{} notes", s.notes_total);
    drop(encoder);

    // The server as `indexer serve` runs it: one encoder session per core.
    let engine = Arc::new(Engine::open_concurrent(&index, &rt, cores).unwrap());
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = tokio_rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let server_cfg = indexer_server::ServerConfig::default();
    tokio_rt.spawn(indexer_server::serve_on(
        listener,
        engine,
        server_cfg,
        std::future::pending(),
    ));
    Fixture {
        _dir: dir,
        addr,
        notes: s.notes_total,
        _rt: tokio_rt,
    }
}

/// One keep-alive HTTP/1.1 connection, as a browser or a docs site's backend holds.
struct Conn {
    s: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn open(addr: SocketAddr) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Conn {
            s,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    /// GET `path`; panics unless the answer is a 200 with hits. Returns the body.
    fn search(&mut self, path: &str) -> &[u8] {
        write!(
            self.s,
            "GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n\r\n"
        )
        .unwrap();
        self.buf.clear();
        let mut chunk = [0u8; 16 * 1024];
        let (head_end, len) = loop {
            let n = self.s.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
            if let Some(p) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..p]).to_ascii_lowercase();
                assert!(head.starts_with("http/1.1 200"), "{head}");
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .expect("a content-length");
                break (p + 4, len);
            }
        };
        while self.buf.len() < head_end + len {
            let n = self.s.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
        let body = &self.buf[head_end..head_end + len];
        assert!(
            body.windows(9).any(|w| w == b"\"hits\":[{"),
            "no hits: {}",
            String::from_utf8_lossy(body)
        );
        body
    }
}

/// What a row of the bench asks for: a selector over a ranking.
#[derive(Clone, Copy, PartialEq)]
struct Setup {
    selector: SelectorKind,
    ranking: Ranking,
}

impl std::fmt::Display for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}", self.selector, self.ranking)
    }
}

fn path(q: &str, setup: Setup) -> String {
    let mut enc = String::new();
    for b in q.bytes() {
        if b.is_ascii_alphanumeric() {
            enc.push(b as char);
        } else {
            enc.push_str(&format!("%{b:02X}"));
        }
    }
    format!(
        "/search?q={enc}&selector={}&ranking={}&candidates={CANDIDATES}",
        setup.selector, setup.ranking
    )
}

/// `total` queries spread over `clients` connections; returns the wall time and every
/// query's latency.
fn run_queries(
    addr: SocketAddr,
    setup: Setup,
    clients: usize,
    total: Option<u64>,
    until: Option<Duration>,
) -> (Duration, Vec<Duration>) {
    let next = AtomicU64::new(0);
    let t0 = Instant::now();
    let lat: Vec<Vec<Duration>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                let next = &next;
                s.spawn(move || {
                    let mut c = Conn::open(addr);
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if total.is_some_and(|t| i >= t) || until.is_some_and(|u| t0.elapsed() >= u)
                        {
                            break;
                        }
                        let p = path(QUERIES[i as usize % QUERIES.len()], setup);
                        let q0 = Instant::now();
                        c.search(&p);
                        mine.push(q0.elapsed());
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    (t0.elapsed(), lat.into_iter().flatten().collect())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    if std::env::var_os(WORKER_ENV).is_some() {
        indexer_ingest::run_worker().expect("pdf worker");
        return;
    }
    let test_mode = std::env::args().any(|a| a == "--test");
    let f = fixture();
    let setup = |selector, ranking| Setup { selector, ranking };
    let setups = [
        setup(DEFAULT_SELECTOR, Ranking::Fused),
        setup(DEFAULT_SELECTOR, Ranking::Learned),
        setup(SelectorKind::CdsPaper, Ranking::Fused),
    ];
    let selectors: Vec<Setup> = setups
        .iter()
        .copied()
        .enumerate()
        .filter(|(i, s)| !setups[..*i].contains(s))
        .map(|(_, s)| s)
        .collect();

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    {
        let mut g = c.benchmark_group("search_per_query");
        for &sel in &selectors {
            for clients in CLIENTS {
                g.bench_function(BenchmarkId::new(sel.to_string(), clients), |b| {
                    b.iter_custom(|iters| run_queries(f.addr, sel, clients, Some(iters), None).0)
                });
            }
        }
        g.finish();
    }
    c.final_summary();
    if test_mode {
        return;
    }

    // Candidates after the fusion of the two lists (notes in both count once).
    let mut conn = Conn::open(f.addr);
    let fused: Vec<f64> = QUERIES
        .iter()
        .map(|q| {
            let v: serde_json::Value =
                serde_json::from_slice(conn.search(&path(q, selectors[0]))).unwrap();
            v["candidates"].as_f64().unwrap()
        })
        .collect();
    eprintln!(
        "\n{} notes, {CANDIDATES} BM25 + {CANDIDATES} vector candidates ({:.0} after fusion on \
         average), budget 10, {} cores, {} s per row (default selector: {DEFAULT_SELECTOR})",
        f.notes,
        fused.iter().sum::<f64>() / fused.len() as f64,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        TABLE_RUN.as_secs()
    );
    eprintln!("| selector on ranking | clients | queries/s | p50 ms | p99 ms |");
    eprintln!("|---|---|---|---|---|");
    for &sel in &selectors {
        for clients in CLIENTS {
            let (wall, mut lat) = run_queries(f.addr, sel, clients, None, Some(TABLE_RUN));
            lat.sort();
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "| {sel} | {clients} | {:.0} | {:.1} | {:.1} |",
                lat.len() as f64 / wall.as_secs_f64(),
                ms(percentile(&lat, 0.5)),
                ms(percentile(&lat, 0.99))
            );
        }
    }
}
