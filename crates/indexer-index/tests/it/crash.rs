//! kill -9 the writer at random moments; every time, the index opens at the last complete
//! generation, with exactly that generation's contents, and search works.

use indexer_index::{CandidateQuery, Filter, Index};
use rand::Rng;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The documents generation `g` has, replaying the helper's plan (see src/bin/crash_writer.rs).
fn expected(g: u64) -> BTreeMap<String, u64> {
    let mut docs = BTreeMap::new();
    for k in 1..=g {
        docs.insert(format!("d{}", k % 7), k);
        if k.is_multiple_of(5) {
            docs.remove(&format!("d{}", (k + 3) % 7));
        }
    }
    docs
}

#[test]
fn killed_writer_never_leaves_a_partial_generation_visible() {
    let exe = env!("CARGO_BIN_EXE_index-crash-writer");
    let dir = tempfile::tempdir().unwrap();
    let mut rng = crate::common::rng(
        std::env::var("INDEXER_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5),
    );
    let mut last = 0u64;
    let mut kills = 0;
    for round in 0..40 {
        let mut child = Command::new(exe)
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(rng.random_range(0..250)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        let status = child.wait_with_output().unwrap();
        if status.status.success() {
            panic!("the writer exited on its own");
        }
        if status.status.code().is_some() {
            panic!("writer failed: {}", String::from_utf8_lossy(&status.stderr));
        }
        let Some(g) = Index::latest_generation(dir.path()).unwrap() else {
            continue;
        };
        assert!(g >= last, "generation went back from {last} to {g}");
        last = g;
        let index = Index::open(dir.path()).unwrap();
        assert_eq!(index.generation(), g, "round {round}");
        let want = expected(g);
        let got: BTreeMap<String, u64> = index
            .documents()
            .into_iter()
            .map(|d| (d.doc, d.hash[1..].parse().unwrap()))
            .collect();
        assert_eq!(got, want, "generation {g}");
        let notes: u64 = want.values().map(|k| 5 + k % 13).sum();
        assert_eq!(index.len() as u64, notes);
        // The newest upsert is searchable by BM25 and its vectors by vector search.
        let hits = index
            .bm25(&format!("gen{g}"), 100, &Filter::default())
            .unwrap();
        assert_eq!(hits.len() as u64, 5 + g % 13, "generation {g}");
        let (o, _) = hits[0];
        let v = index.vector(o).to_vec();
        let set = index
            .candidates(&CandidateQuery {
                text: &format!("gen{g}"),
                vector: &v,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(set.hits.len() as u64, notes.min(100).max(5 + g % 13));
        let best = set.hits.iter().find(|h| h.vector_rank == Some(1)).unwrap();
        assert!(best.cosine.unwrap() > 0.999);
    }
    println!("{kills} kills, last generation {last}");
    assert!(kills >= 20, "only {kills} kills");
    assert!(
        last >= 3,
        "the writer made too little progress ({last} generations)"
    );
}
