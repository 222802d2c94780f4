//! Parse speed in pages per second (criterion's throughput): parse + notes without crops and
//! with figure crops, in one process, on the two long manuals; and the worker pool with one
//! and with two worker processes on the same files (the speed-up is the ratio of the two
//! throughputs measured in the same run).
//!
//! `cargo bench -p indexer-ingest --bench parse`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use indexer_ingest::{IngestOptions, WorkerPool, parse_file};
use indexer_notes::WordCounter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn corpus(name: &str) -> PathBuf {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus"
    ))
    .join(name);
    assert!(
        p.is_file(),
        "{} is missing: this benchmark reads the PDFs of ../shared/corpus/ beside the project, which a clone of the project does not have",
        p.display()
    );
    p
}

const MANUALS: [(&str, u64); 2] = [("memoir-memman.pdf", 615), ("octave.pdf", 1158)];

fn in_process(c: &mut Criterion) {
    indexer_ingest::pdfium().unwrap_or_else(|e| panic!("{e}\nhint: run tools/setup"));
    let crops = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("in_process");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for (file, pages) in MANUALS {
        g.throughput(Throughput::Elements(pages));
        for with_crops in [false, true] {
            let opts = IngestOptions {
                crops: with_crops,
                ..IngestOptions::default()
            };
            let id = format!("{}/{file}", if with_crops { "crops" } else { "no_crops" });
            g.bench_function(id, |b| {
                b.iter(|| {
                    let doc = parse_file(
                        &corpus(file),
                        file,
                        &opts,
                        &WordCounter,
                        crops.path(),
                        &mut |_| {},
                    )
                    .unwrap();
                    assert_eq!(doc.pages as u64, pages);
                    doc.notes.len()
                })
            });
        }
    }
    g.finish();
}

fn pool(c: &mut Criterion) {
    let crops = tempfile::tempdir().unwrap();
    let files: Vec<(PathBuf, String)> = MANUALS
        .iter()
        .chain(&[("pgfplots.pdf", 573), ("hvfloat.pdf", 137)])
        .map(|(f, _)| (corpus(f), f.to_string()))
        .collect();
    let pages = 615 + 1158 + 573 + 137;
    let opts = IngestOptions {
        crops: false,
        ..IngestOptions::default()
    };
    let mut g = c.benchmark_group("pool");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    g.throughput(Throughput::Elements(pages));
    for jobs in [1, 2] {
        let pool = WorkerPool::new(Command::new(env!("CARGO_BIN_EXE_indexer-pdf-worker")), jobs);
        g.bench_function(format!("workers_{jobs}"), |b| {
            b.iter(|| {
                let res = pool.parse_all(
                    files.clone(),
                    &opts,
                    &WordCounter,
                    crops.path(),
                    &mut |_| {},
                );
                assert!(res.iter().all(|(_, r)| r.is_ok()));
                res.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, in_process, pool);
criterion_main!(benches);
