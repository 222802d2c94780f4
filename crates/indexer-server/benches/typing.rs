//! What searching as you type costs at scale: `/search` latency and answer size on a real
//! server over an index of 100,000 notes, for the search page's own request
//! (`PAGE_SEARCH_PARAMS`: grouped by document, as-you-type matching, the page's fields), with
//! queries that end in a 3-letter prefix, one 3-letter prefix alone, and the full words, each
//! against `matching=exact` in the same run.
//!
//! Notes are runs of real words of the SciFact corpus (`../shared/eval/beir/scifact`, which a
//! clone of the project does not have), 100 to a document; their vectors are clustered unit
//! vectors (the search time does not depend on what they mean); queries are embedded by the
//! real encoder. `INDEXER_BENCH_NOTES` changes the number of notes; `INDEXER_BENCH_INDEX=DIR`
//! keeps the index in DIR and reuses it (the HNSW build of 100,000 notes takes minutes).
//!
//! `cargo bench -p indexer-server --bench typing` prints a table on stderr.

use indexer_engine::{Encoder, Engine};
use indexer_index::bench_support::{
    NOTES_PER_DOC, percentile, scifact_claims, scifact_words, synthetic_doc, synthetic_document,
    synthetic_note,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

const QUERIES: usize = 200;

fn unit_near(rng: &mut StdRng, centre: &[f32]) -> Vec<f32> {
    let mut v: Vec<f32> = centre
        .iter()
        .map(|x| x + rng.random_range(-0.15f32..0.15))
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// Builds the index in `dir` unless one is there.
fn build(dir: &Path, encoder: &dyn Encoder, n_notes: usize, words: &[String]) {
    if dir.join("MANIFEST").exists() {
        eprintln!("reusing the index in {}", dir.display());
        return;
    }
    let t0 = Instant::now();
    let dim = encoder.dim();
    let mut rng = StdRng::seed_from_u64(11);
    let mut w = indexer_index::Writer::open_or_create(dir, encoder.model_id(), dim).unwrap();
    let mut made = 0;
    let mut d = 0;
    while made < n_notes {
        let doc = synthetic_doc(d);
        let centre: Vec<f32> = (0..dim).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let mut notes = Vec::with_capacity(NOTES_PER_DOC);
        let mut vectors = Vec::with_capacity(NOTES_PER_DOC * dim);
        for i in 0..NOTES_PER_DOC.min(n_notes - made) {
            let len = rng.random_range(40..160);
            let at = rng.random_range(0..words.len() - len);
            notes.push(synthetic_note(&doc, i, &words[at..at + len]));
            vectors.extend(unit_near(&mut rng, &centre));
        }
        made += notes.len();
        w.upsert(synthetic_document(doc, d, notes), vectors)
            .unwrap();
        d += 1;
    }
    w.commit().unwrap();
    eprintln!(
        "index of {n_notes} notes built in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// One keep-alive connection; `get` returns the body of a 200.
struct Conn {
    s: TcpStream,
}

impl Conn {
    fn get(&mut self, path: &str) -> Vec<u8> {
        write!(self.s, "GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n").unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        let (head_end, len) = loop {
            let n = self.s.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..p]).to_ascii_lowercase();
                assert!(head.starts_with("http/1.1 200"), "{head}");
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .expect("a content-length");
                break (p + 4, len);
            }
        };
        while buf.len() < head_end + len {
            let n = self.s.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        }
        buf[head_end..head_end + len].to_vec()
    }
}

fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A row group of the table: its name, its queries, and (matching, parameters) per row.
type Row<'a> = (&'a str, &'a Vec<String>, &'a [(&'a str, &'a str)]);

fn main() {
    let n_notes: usize = std::env::var("INDEXER_BENCH_NOTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let words = scifact_words();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rt = indexer_runtime::Runtime::discover_from(None, &root, Path::new(""))
        .expect("the runtime is missing: run tools/setup");
    let encoder: Arc<dyn Encoder> = Arc::new(
        indexer_embed::OnnxEncoder::from_runtime(&rt, indexer_runtime::DEFAULT_MODEL)
            .expect("the encoder cannot be loaded: run tools/setup"),
    );
    let temp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("INDEXER_BENCH_INDEX")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().join("index"));
    build(&dir, encoder.as_ref(), n_notes, &words);
    let engine = Arc::new(Engine::with_encoder(&dir, encoder).unwrap());
    let notes = engine.view().len().expect("count the notes");

    // Queries: words of SciFact claims; the last one of 5+ letters cut to 3.
    let claims = scifact_claims();
    let mut full = Vec::new();
    let mut typed = Vec::new();
    let mut alone = Vec::new();
    for c in claims.iter() {
        let ws: Vec<String> = c
            .split(|ch: char| !ch.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let Some(i) = ws.iter().take(4).rposition(|w| w.chars().count() >= 5) else {
            continue;
        };
        let cut: String = ws[i].chars().take(3).collect();
        full.push(ws[..=i].join(" "));
        typed.push(format!("{} {cut}", ws[..i].join(" ")).trim().to_string());
        alone.push(cut);
        if full.len() == QUERIES {
            break;
        }
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    rt.spawn(indexer_server::serve_on(
        listener,
        engine,
        indexer_server::ServerConfig::default(),
        std::future::pending(),
    ));
    let mut conn = Conn {
        s: TcpStream::connect(addr).unwrap(),
    };
    conn.s.set_nodelay(true).unwrap();

    let page = indexer_server::PAGE_SEARCH_PARAMS;
    let exact = page.replace("matching=typing", "matching=exact");
    // The first stage's second BM25 search (pseudo-relevance feedback) against none.
    let once = if page.contains("feedback=false") {
        page.replace("feedback=false", "feedback=true")
    } else {
        format!("{page}&feedback=false")
    };
    let once_name = if page.contains("feedback=false") {
        "typing, feedback"
    } else {
        "typing, no feedback"
    };
    // Warm up: the first queries load the encoder's and the index's pages.
    for q in alone.iter().take(20) {
        conn.get(&format!("/search?q={}&{page}", encode(q)));
    }
    eprintln!(
        "/search on {notes} notes, one client, {} queries a row (page parameters: {page})",
        full.len()
    );
    eprintln!("| queries | matching | p50 ms | p99 ms | mean bytes | max bytes | mean hits |");
    eprintln!("|---|---|---|---|---|---|---|");
    // Ten hits, ungrouped: the page's fields and snippet length against every field (the
    // answer before `fields`).
    let kept: Vec<&str> = page
        .split('&')
        .filter(|p| p.starts_with("fields=") || p.starts_with("snippet_chars="))
        .collect();
    let ten_lean = format!("budget=10&{}", kept.join("&"));
    let rows: [Row; 4] = [
        (
            "3-letter prefix alone",
            &alone,
            &[("typing", page), ("exact", &exact), (once_name, &once)],
        ),
        (
            "words + 3-letter prefix",
            &typed,
            &[("typing", page), ("exact", &exact), (once_name, &once)],
        ),
        (
            "full words",
            &full,
            &[("typing", page), ("exact", &exact), (once_name, &once)],
        ),
        (
            "full words, 10 hits ungrouped",
            &full,
            &[("page's fields", &ten_lean), ("all fields", "budget=10")],
        ),
    ];
    for (name, qs, modes) in rows {
        for &(m, params) in modes {
            let mut lat = Vec::with_capacity(qs.len());
            let mut bytes = Vec::with_capacity(qs.len());
            let mut hits = 0;
            for q in qs.iter() {
                let t = Instant::now();
                let body = conn.get(&format!("/search?q={}&{params}", encode(q)));
                lat.push(t.elapsed());
                bytes.push(body.len());
                hits += body
                    .windows(14)
                    .filter(|w| w == b"\"snippet_html\"")
                    .count();
            }
            lat.sort();
            eprintln!(
                "| {name} | {m} | {:.1} | {:.1} | {} | {} | {:.1} |",
                percentile(&lat, 0.5).as_secs_f64() * 1e3,
                percentile(&lat, 0.99).as_secs_f64() * 1e3,
                bytes.iter().sum::<usize>() / bytes.len(),
                bytes.iter().max().unwrap(),
                hits as f64 / qs.len() as f64
            );
        }
    }
}
