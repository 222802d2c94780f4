//! Byte-level mutants of PDFs ingested in one run: the parent never panics or hangs, every
//! file ends up either indexed or listed as failed with a reason, every good file is indexed,
//! and the run's time stays bounded. The mutants are seeded (the same files every run): of a
//! small two-page PDF written here (most of them, so the run stays short) and of a real paper.

use super::{corpus, indexer_with, json, stderr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// A valid two-page PDF with a text layer, its xref table computed.
fn small_pdf(words: &str) -> Vec<u8> {
    let page = |text: &str| format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET");
    let c1 = page(&format!("Mosaic plots and {words}"));
    let c2 = page("Residual shading of the tiles of a contingency table");
    let objs = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> >> >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{c1}\nendstream", c1.len() + 1),
        format!("<< /Length {} >>\nstream\n{c2}\nendstream", c2.len() + 1),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// Replaces the first `from` in `pdf` by `to`.
fn replace(pdf: &[u8], from: &str, to: &str) -> Vec<u8> {
    let f = from.as_bytes();
    match pdf.windows(f.len()).position(|w| w == f) {
        Some(i) => [&pdf[..i], to.as_bytes(), &pdf[i + f.len()..]].concat(),
        None => pdf.to_vec(),
    }
}

/// One mutant of `pdf`, of the kind `kind`.
fn mutate(pdf: &[u8], kind: usize, rng: &mut StdRng) -> Vec<u8> {
    let mut m = pdf.to_vec();
    match kind % 7 {
        // Truncated anywhere.
        0 => m.truncate(rng.random_range(0..pdf.len())),
        // A few bytes flipped.
        1 => {
            for _ in 0..rng.random_range(1..12) {
                let i = rng.random_range(0..m.len());
                m[i] ^= 1 << rng.random_range(0..8);
            }
        }
        // Random bytes written over a run.
        2 => {
            let at = rng.random_range(0..m.len());
            let n = rng.random_range(1..64).min(m.len() - at);
            for b in &mut m[at..at + n] {
                *b = rng.random();
            }
        }
        // A broken xref: its offset or its entries.
        3 => {
            m = replace(
                &m,
                "startxref\n",
                &format!("startxref\n{}", rng.random_range(0..99_999)),
            );
            if rng.random_bool(0.5) {
                m = replace(&m, "0000000009", "99999x9999");
            }
        }
        // Absurd counts and sizes.
        4 => {
            let huge = ["2147483647", "99999999999999999999", "-5", "0"][rng.random_range(0..4)];
            m = replace(&m, "/Count ", &format!("/Count {huge} "));
            m = replace(&m, "/Size ", &format!("/Size {huge} "));
            m = replace(&m, "/Length ", &format!("/Length {huge} "));
        }
        // Bytes inserted.
        5 => {
            let at = rng.random_range(0..m.len());
            let junk: Vec<u8> = (0..rng.random_range(1..200))
                .map(|_| rng.random())
                .collect();
            m.splice(at..at, junk);
        }
        // Objects that refer to themselves.
        _ => {
            m = replace(&m, "/Parent 2 0 R", "/Parent 3 0 R");
            m = replace(&m, "/Kids [3 0 R 4 0 R]", "/Kids [2 0 R 2 0 R 3 0 R]");
        }
    }
    m
}

#[test]
fn mutated_pdfs_fail_alone_and_good_files_go_in() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let c = dir.join("corpus");
    std::fs::create_dir_all(&c).unwrap();
    let mut rng = StdRng::seed_from_u64(22);
    let small = small_pdf("association plots");
    let paper = std::fs::read(corpus("revtex-apssamp.pdf")).unwrap();
    let mut good = BTreeSet::new();
    // Good files, each of its own content: they must all go in.
    for i in 0..4 {
        let name = format!("good-{i}.pdf");
        std::fs::write(
            c.join(&name),
            small_pdf(&format!("sieve diagram number {i}")),
        )
        .unwrap();
        good.insert(format!("corpus/{name}"));
    }
    std::fs::write(c.join("good-paper.pdf"), &paper).unwrap();
    good.insert("corpus/good-paper.pdf".to_string());
    let mut all = good.clone();
    for i in 0..280 {
        let name = format!("mutant-{i:03}.pdf");
        std::fs::write(c.join(&name), mutate(&small, i, &mut rng)).unwrap();
        all.insert(format!("corpus/{name}"));
    }
    for i in 0..21 {
        let name = format!("mutant-paper-{i:02}.pdf");
        std::fs::write(c.join(&name), mutate(&paper, i, &mut rng)).unwrap();
        all.insert(format!("corpus/{name}"));
    }

    let t0 = Instant::now();
    let o = indexer_with(
        dir,
        &[
            "ingest",
            "corpus",
            "--json",
            "--quiet",
            "--no-crops",
            "--jobs",
            "2",
        ],
        &[],
    );
    let took = t0.elapsed();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "the parent panicked:\n{err}");
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "exit {:?}:\n{err}",
        o.status.code()
    );
    let s = json(&o);
    let names = |key: &str, field: Option<&str>| -> BTreeSet<String> {
        s[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| match field {
                Some(f) => v[f].as_str().unwrap().to_string(),
                None => v.as_str().unwrap().to_string(),
            })
            .collect()
    };
    let added = names("added", None);
    let failed = names("failed", Some("doc"));
    assert!(
        good.is_subset(&added),
        "good files not indexed: {:?}",
        good.difference(&added)
    );
    assert!(added.is_disjoint(&failed));
    let accounted: BTreeSet<String> = added.union(&failed).cloned().collect();
    assert_eq!(accounted, all, "files neither indexed nor failed");
    for f in s["failed"].as_array().unwrap() {
        let e = f["error"].as_str().unwrap();
        assert!(e.len() > 5, "no reason for {}: {e:?}", f["doc"]);
    }
    assert!(
        !failed.is_empty(),
        "no mutant failed: the mutations do nothing"
    );
    // Bounded: a few seconds of work per hundred small files; a hang would run to the timeout.
    assert!(took < Duration::from_secs(600), "{took:?}");
    eprintln!(
        "mutants: {} files in {:.1} s: {} indexed, {} failed",
        all.len(),
        took.as_secs_f64(),
        added.len(),
        failed.len()
    );

    // The index that came out answers, and a query finds a good file.
    let o = indexer_with(
        dir,
        &["query", "sieve diagram number 2", "--format", "json"],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let q = json(&o);
    let docs: Vec<&str> = q["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["note"]["doc"].as_str().unwrap())
        .collect();
    assert!(docs.contains(&"corpus/good-2.pdf"), "{docs:?}");
}
