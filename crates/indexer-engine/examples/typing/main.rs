//! Top-1 and top-3 page hit rates of the typed-query set (`queries.jsonl` beside this file):
//! queries typed partway, with typos, and in full, each under every matching mode asked for.
//!
//! ```sh
//! (cd demo/corpus && indexer --index /tmp/typing-demo ingest .)
//! (cd ../shared/corpus && indexer --index /tmp/typing-shared ingest .)
//! cargo run --release -p indexer-engine --example typing -- \
//!     --index demo=/tmp/typing-demo --index shared=/tmp/typing-shared --matching exact,typing
//! ```
//!
//! A query hits at k when one of the first k pages of a page search (`Engine::search_pages`,
//! the default candidates and fusion) is its page, or its document when the document has no
//! pages. A document id matches when it is the expected id or ends with `/` and it, so the
//! indexes may be built from any folder.

use indexer_engine::{Engine, Matching, Runtime, SearchRequest};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// The results of one query set under one matching mode.
#[derive(Default)]
struct Tally {
    queries: usize,
    top1: usize,
    top3: usize,
    /// Milliseconds per page search.
    ms: Vec<f64>,
}

#[derive(Deserialize)]
struct Query {
    id: String,
    set: String,
    corpus: String,
    query: String,
    doc: String,
    page: Option<u32>,
}

fn usage() -> ! {
    eprintln!(
        "usage: typing --index CORPUS=DIR [--index CORPUS=DIR ...] [--matching LIST] [--queries FILE] [--misses]"
    );
    std::process::exit(2)
}

fn main() {
    let mut indexes: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut modes: Vec<Matching> = vec![Matching::EXACT, Matching::TYPING];
    let mut queries =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/typing/queries.jsonl");
    let mut misses = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--index" => {
                let v = args.next().unwrap_or_else(|| usage());
                let (name, dir) = v.split_once('=').unwrap_or_else(|| usage());
                indexes.insert(name.to_string(), PathBuf::from(dir));
            }
            "--matching" => {
                let v = args.next().unwrap_or_else(|| usage());
                modes = v
                    .split(',')
                    .map(|m| m.parse().unwrap_or_else(|e: String| panic!("{e}")))
                    .collect();
            }
            "--queries" => queries = PathBuf::from(args.next().unwrap_or_else(|| usage())),
            "--misses" => misses = true,
            _ => usage(),
        }
    }
    if indexes.is_empty() {
        usage();
    }
    let text =
        std::fs::read_to_string(&queries).unwrap_or_else(|e| panic!("{}: {e}", queries.display()));
    let queries: Vec<Query> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let runtime = Runtime::discover().unwrap_or_else(|e| panic!("{e}"));
    let engines: BTreeMap<&str, Engine> = indexes
        .iter()
        .map(|(name, dir)| {
            let e =
                Engine::open(dir, &runtime).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            (name.as_str(), e)
        })
        .collect();

    let mut table: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for q in &queries {
        let Some(engine) = engines.get(q.corpus.as_str()) else {
            continue;
        };
        for &m in &modes {
            let mut req = SearchRequest::new(&q.query);
            req.budget = 3;
            req.matching = m;
            let t0 = Instant::now();
            let r = engine
                .search_pages(&req)
                .unwrap_or_else(|e| panic!("{}: {e}", q.id));
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            let is_gold = |doc: &str, page: Option<u32>| {
                (doc == q.doc || doc.ends_with(&format!("/{}", q.doc)))
                    && (q.page.is_none() || page == q.page)
            };
            let at = r.pages.iter().position(|p| is_gold(&p.doc, p.page));
            let row = table.entry((q.set.clone(), m.to_string())).or_default();
            row.queries += 1;
            row.top1 += usize::from(at == Some(0));
            row.top3 += usize::from(at.is_some());
            row.ms.push(ms);
            if misses && at.is_none() {
                let got: Vec<String> = r
                    .pages
                    .iter()
                    .map(|p| {
                        format!(
                            "{} p{}",
                            p.doc,
                            p.page.map_or("-".into(), |n| n.to_string())
                        )
                    })
                    .collect();
                println!(
                    "miss {} [{m}] {:?}: want {} p{:?}, got {}",
                    q.id,
                    q.query,
                    q.doc,
                    q.page,
                    got.join("; ")
                );
            }
        }
    }
    println!("| set | matching | queries | top-1 | top-3 | median ms |");
    println!("|---|---|---|---|---|---|");
    for ((set, m), mut t) in table {
        t.ms.sort_by(f64::total_cmp);
        let pct = |h: usize| 100.0 * h as f64 / t.queries.max(1) as f64;
        println!(
            "| {set} | {m} | {} | {:.1}% | {:.1}% | {:.1} |",
            t.queries,
            pct(t.top1),
            pct(t.top3),
            t.ms[t.ms.len() / 2]
        );
    }
}
