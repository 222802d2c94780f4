//! A bounded load test: 16 concurrent clients query a real `indexer serve` for 20 seconds
//! while `indexer ingest` adds a PDF to the same index and commits a new generation. Every
//! answer must be a 200 with valid JSON, and every answer must be of one complete generation.

use super::serve::{Guard, Server, encode, heavy_lock, http};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const CLIENTS: usize = 16;
const RUN: Duration = Duration::from_secs(20);
const INITIAL: [&str; 2] = ["acmart-sample-sigconf.pdf", "vcd-strucplot.pdf"];
const ADDED: &str = "revtex-apssamp.pdf";
/// The second query names the added paper (its references cite "Bose-einstein condensation").
const QUERIES: [&str; 6] = [
    "mosaic plot",
    "Bose-Einstein condensation proceedings",
    "sieve plot of expected values",
    "author affiliations and email",
    "table of results",
    "shading of residuals",
];

/// What one client saw.
#[derive(Default)]
struct Seen {
    searches: usize,
    /// Per generation: the documents its hits named.
    hit_docs: BTreeMap<u64, HashSet<String>>,
    /// Per generation: the largest candidate count of an answer.
    candidates: BTreeMap<u64, u64>,
    /// Per generation: (documents, notes) from `/stats`.
    stats: BTreeMap<u64, HashSet<(u64, u64)>>,
    errors: Vec<String>,
}

fn get(addr: SocketAddr, path: &str) -> Result<Value, String> {
    let r = http(addr, "GET", path, &[], None).map_err(|e| format!("GET {path}: {e}"))?;
    if r.status != 200 {
        return Err(format!("GET {path}: status {}: {}", r.status, r.text()));
    }
    r.json().map_err(|e| format!("GET {path}: {e}"))
}

/// One search, checked on its own: ranks 1..n, distinct notes, and the first hit's note can be
/// fetched (it exists in the generation the server holds now, never older than the answer's).
fn search(addr: SocketAddr, q: &str, selector: &str, seen: &mut Seen) -> Result<u64, String> {
    let path = format!("/search?q={}&selector={selector}&budget=5", encode(q));
    let v = get(addr, &path)?;
    let generation = v["generation"]
        .as_u64()
        .ok_or(format!("no generation: {v}"))?;
    let hits = v["hits"].as_array().ok_or(format!("no hits: {v}"))?;
    if hits.is_empty() {
        return Err(format!("{path}: no hits"));
    }
    let mut ids = HashSet::new();
    for (i, h) in hits.iter().enumerate() {
        if h["rank"].as_u64() != Some(i as u64 + 1) {
            return Err(format!("{path}: hit {i} has rank {}", h["rank"]));
        }
        let id = h["note"]["id"].as_str().unwrap_or_default().to_string();
        let doc = h["note"]["doc"].as_str().unwrap_or_default().to_string();
        if !id.starts_with(&format!("{doc}#")) || !ids.insert(id) {
            return Err(format!("{path}: bad or repeated note {}", h["note"]["id"]));
        }
        seen.hit_docs.entry(generation).or_default().insert(doc);
    }
    let cands = v["candidates"].as_u64().unwrap_or_default();
    let c = seen.candidates.entry(generation).or_default();
    *c = (*c).max(cands);
    let first = hits[0]["note"]["id"].as_str().unwrap_or_default();
    let note = get(addr, &format!("/notes/{}", encode(first)))?;
    if note["id"] != hits[0]["note"]["id"] {
        return Err(format!("/notes/{first} answered {}", note["id"]));
    }
    seen.searches += 1;
    Ok(generation)
}

/// `/stats`, `/documents`, `/stats`: when both stats are of the same generation, the document
/// list in between must add up to them.
fn probe(addr: SocketAddr, seen: &mut Seen) -> Result<u64, String> {
    let before = get(addr, "/stats")?;
    let docs = get(addr, "/documents")?;
    let after = get(addr, "/stats")?;
    let mut last = 0;
    for s in [&before, &after] {
        let st = &s["stats"];
        let generation = st["generation"].as_u64().ok_or(format!("{s}"))?;
        let pair = (
            st["documents"].as_u64().unwrap_or_default(),
            st["notes"].as_u64().unwrap_or_default(),
        );
        seen.stats.entry(generation).or_default().insert(pair);
        if generation < last {
            return Err(format!(
                "/stats went back from generation {last} to {generation}"
            ));
        }
        last = generation;
    }
    if before["stats"]["generation"] == after["stats"]["generation"] {
        let list = docs["documents"].as_array().ok_or(format!("{docs}"))?;
        let notes: u64 = list.iter().map(|d| d["notes"].as_u64().unwrap_or(0)).sum();
        let st = &after["stats"];
        if Some(list.len() as u64) != st["documents"].as_u64()
            || Some(notes) != st["notes"].as_u64()
        {
            return Err(format!(
                "generation {}: /documents lists {} documents with {notes} notes, /stats says {st}",
                st["generation"],
                list.len()
            ));
        }
    }
    Ok(last)
}

fn client(addr: SocketAddr, n: usize, stop: &AtomicBool) -> Seen {
    let mut seen = Seen::default();
    let mut last_generation = 0;
    let mut i = n;
    while !stop.load(Ordering::Relaxed) {
        let r = if i % 8 == 7 {
            probe(addr, &mut seen)
        } else {
            // The default selector and MMR: CDS takes over a second per query in a debug build.
            let selector = if i.is_multiple_of(2) { "cosine" } else { "mmr" };
            search(addr, QUERIES[i % QUERIES.len()], selector, &mut seen)
        };
        match r {
            Ok(g) if g < last_generation => seen.errors.push(format!(
                "client {n}: generation went back from {last_generation} to {g}"
            )),
            Ok(g) => last_generation = g,
            Err(e) => seen.errors.push(format!("client {n}: {e}")),
        }
        if seen.errors.len() > 20 {
            break;
        }
        i += 1;
    }
    seen
}

#[test]
fn sixteen_clients_while_an_ingest_commits() {
    let _heavy = heavy_lock();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for f in INITIAL {
        std::fs::copy(super::corpus(f), docs.join(f)).unwrap();
    }
    let o = super::indexer(dir, &["--index", "idx", "ingest", "docs", "--quiet"]);
    assert!(o.status.success(), "{}", super::stderr(&o));
    let server = Server::start(dir, &dir.join("idx"), &[]);
    let g0 = get(server.addr, "/health").unwrap()["generation"]
        .as_u64()
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let stop = stop.clone();
            let addr = server.addr;
            std::thread::spawn(move || client(addr, n, &stop))
        })
        .collect();

    // One second in, a third paper is added by an ingest of the same folder.
    std::thread::sleep(Duration::from_secs(1));
    std::fs::copy(super::corpus(ADDED), docs.join(ADDED)).unwrap();
    let summary = dir.join("ingest.json");
    let mut ingest = Guard::spawn(
        "indexer ingest",
        Command::new(env!("CARGO_BIN_EXE_indexer"))
            .args(["--index", "idx", "ingest", "docs", "--quiet", "--json"])
            .current_dir(dir)
            .env("INDEXER_RUNTIME", super::runtime())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&summary).unwrap())
            .stderr(Stdio::null()),
    );
    let ingest_started = t0.elapsed();
    // The clients run 20 s, and longer if the ingest (slowed by them) has not committed yet:
    // the point is that its generation arrives while they query.
    let status = loop {
        if let Some(st) = ingest.exited() {
            break st;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "the ingest hangs");
        std::thread::sleep(Duration::from_millis(100));
    };
    let ingest_done = t0.elapsed();
    let mut picked_up = None;
    while t0.elapsed() < RUN.max(ingest_done + Duration::from_secs(3)) {
        std::thread::sleep(Duration::from_millis(50));
        if picked_up.is_none()
            && let Ok(h) = get(server.addr, "/health")
            && h["generation"].as_u64() > Some(g0)
        {
            picked_up = Some(t0.elapsed());
        }
    }
    stop.store(true, Ordering::Relaxed);
    let seen: Vec<Seen> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let elapsed = t0.elapsed();

    assert!(status.success(), "the ingest failed ({status})");
    let s: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(
        s["added"],
        serde_json::json!([format!("docs/{ADDED}")]),
        "{s}"
    );
    let g1 = s["generation"].as_u64().unwrap();
    assert!(g1 > g0, "{s}");

    let errors: Vec<&String> = seen.iter().flat_map(|s| &s.errors).collect();
    assert!(
        errors.is_empty(),
        "{} errors, the first ones:\n{:#?}\nserver log:\n{}",
        errors.len(),
        &errors[..errors.len().min(10)],
        server.log_text()
    );

    // Merge what the clients saw, per generation.
    let mut hit_docs: BTreeMap<u64, HashSet<String>> = BTreeMap::new();
    let mut stats: BTreeMap<u64, HashSet<(u64, u64)>> = BTreeMap::new();
    let mut candidates: BTreeMap<u64, u64> = BTreeMap::new();
    for c in &seen {
        for (g, d) in &c.hit_docs {
            hit_docs.entry(*g).or_default().extend(d.iter().cloned());
        }
        for (g, p) in &c.stats {
            stats.entry(*g).or_default().extend(p.iter().copied());
        }
        for (g, n) in &c.candidates {
            let m = candidates.entry(*g).or_default();
            *m = (*m).max(*n);
        }
    }
    let searches: usize = seen.iter().map(|s| s.searches).sum();
    let initial: HashSet<String> = INITIAL.iter().map(|f| format!("docs/{f}")).collect();
    let mut all = initial.clone();
    all.insert(format!("docs/{ADDED}"));

    // The generation before the ingest never names the added paper; later ones may, and do.
    let before = &hit_docs[&g0];
    assert!(
        before.is_subset(&initial),
        "generation {g0} named {before:?}"
    );
    let after: HashSet<&String> = hit_docs.range(g0 + 1..).flat_map(|(_, d)| d).collect();
    assert!(
        after.contains(&format!("docs/{ADDED}")),
        "no answer after the ingest named {ADDED}: {hit_docs:?}"
    );
    assert!(after.iter().all(|d| all.contains(*d)), "{after:?}");
    assert!(
        hit_docs.keys().all(|g| (g0..=g1).contains(g)),
        "{:?}",
        hit_docs.keys()
    );
    // A generation has one document and note count; the new one has one more document and
    // more notes; no answer drew more candidates than its generation has notes.
    for (g, pairs) in &stats {
        assert_eq!(pairs.len(), 1, "generation {g} has two shapes: {pairs:?}");
    }
    let shape = |g: u64| *stats[&g].iter().next().unwrap();
    let last = *stats.keys().last().unwrap();
    assert_eq!(last, g1, "the probes never saw generation {g1}: {stats:?}");
    let ((d0, n0), (d1, n1)) = (shape(g0), shape(g1));
    assert_eq!((d0, d1), (2, 3));
    assert!(n1 > n0, "{stats:?}");
    for (g, c) in &candidates {
        if let Some(set) = stats.get(g) {
            let notes = set.iter().next().unwrap().1;
            assert!(
                *c <= notes,
                "generation {g}: {c} candidates of {notes} notes"
            );
        }
    }
    let picked_up = picked_up.expect("the server kept the old generation");
    let h = get(server.addr, "/health").unwrap();
    assert_eq!(h["generation"].as_u64(), Some(g1), "{h}");
    eprintln!(
        "load test: {CLIENTS} clients for {:.1} s, {searches} searches ({:.0}/s) with no error; \
         ingest from {:.1} s to {:.1} s, generation {g0} -> {g1} served from {:.1} s",
        elapsed.as_secs_f64(),
        searches as f64 / elapsed.as_secs_f64(),
        ingest_started.as_secs_f64(),
        ingest_done.as_secs_f64(),
        picked_up.as_secs_f64()
    );
}
