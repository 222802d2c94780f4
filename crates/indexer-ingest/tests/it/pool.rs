//! The worker pool with real worker processes: results, progress, and recovery from a
//! crashing and a hanging worker.

use crate::{corpus, no_crops, pdfium};
use indexer_ingest::{Error, Event, FAULTS_ENV, WorkerPool, parse_file};
use indexer_notes::WordCounter;
use std::process::Command;
use std::time::Duration;

#[test]
fn pool_parses_files_and_survives_crashes_and_hangs() {
    pdfium();
    let tmp = tempfile::tempdir().unwrap();
    let good = corpus("revtex-apssamp.pdf");
    let crash = tmp.path().join("a__crash__.pdf");
    let hang = tmp.path().join("b__hang__.pdf");
    std::fs::copy(corpus("acmart-sample-sigconf.pdf"), &crash).unwrap();
    std::fs::copy(corpus("acmart-sample-sigconf.pdf"), &hang).unwrap();
    let md = tmp.path().join("guide.md");
    std::fs::write(&md, "# Guide\n\nInstall it.\n\n## Use\n\nRun it.\n").unwrap();
    let fake = tmp.path().join("fake.pdf");
    std::fs::write(&fake, "plain text").unwrap();
    let after = corpus("lme4-lmer.pdf");

    let mut cmd = Command::new(env!("CARGO_BIN_EXE_indexer-pdf-worker"));
    cmd.env(FAULTS_ENV, "1");
    let pool = WorkerPool::new(cmd, 2);
    let opts = indexer_ingest::IngestOptions {
        file_timeout: Duration::from_secs(8),
        ..no_crops()
    };
    let files = vec![
        (good.clone(), "good.pdf".to_string()),
        (crash, "crash.pdf".to_string()),
        (hang, "hang.pdf".to_string()),
        (md, "guide.md".to_string()),
        (fake, "fake.pdf".to_string()),
        (after.clone(), "after.pdf".to_string()),
    ];
    let mut events = Vec::new();
    let results = pool.parse_all(files, &opts, &WordCounter, tmp.path(), &mut |e| {
        events.push(e)
    });
    let docs: Vec<_> = results.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(
        docs,
        [
            "good.pdf",
            "crash.pdf",
            "hang.pdf",
            "guide.md",
            "fake.pdf",
            "after.pdf"
        ]
    );

    let good_doc = results[0].1.as_ref().unwrap();
    let in_process = parse_file(
        &good,
        "good.pdf",
        &opts,
        &WordCounter,
        tmp.path(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(good_doc, &in_process, "a worker parses like the parent");
    assert!(
        matches!(results[1].1, Err(Error::WorkerCrashed { .. })),
        "{:?}",
        results[1].1
    );
    assert!(
        matches!(results[2].1, Err(Error::Timeout { .. })),
        "{:?}",
        results[2].1
    );
    assert!(
        results[2]
            .1
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("b__hang__.pdf")
    );
    let guide = results[3].1.as_ref().unwrap();
    assert_eq!(guide.title.as_deref(), Some("Guide"));
    assert!(matches!(results[4].1, Err(Error::NotPdf { .. })));
    // A file after the failures still parses: the pool restarted its workers.
    assert_eq!(results[5].1.as_ref().unwrap().pages, 51);

    for p in 1..=7 {
        assert!(
            events.contains(&Event::Page {
                doc: "good.pdf".into(),
                page: p,
                pages: 7
            }),
            "page {p}"
        );
    }
    assert!(events.contains(&Event::FileStarted {
        doc: "after.pdf".into(),
        pages: 51
    }));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::FileFailed { doc, .. } if doc == "hang.pdf"))
    );
    assert!(events.contains(&Event::FileDone {
        doc: "good.pdf".into(),
        notes: good_doc.notes.len()
    }));
}

/// The time limit is on a worker that makes no progress, not on a long file: a file whose
/// pages take half a second each parses under a limit of 2 s, though it takes 3.5 s in all
/// (a scan read by OCR takes about that a page).
#[test]
fn a_slow_file_that_makes_progress_is_not_cut_off() {
    pdfium();
    let tmp = tempfile::tempdir().unwrap();
    let slow = tmp.path().join("c__slow__.pdf");
    std::fs::copy(corpus("revtex-apssamp.pdf"), &slow).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_indexer-pdf-worker"));
    cmd.env(FAULTS_ENV, "1");
    let pool = WorkerPool::new(cmd, 1);
    let opts = indexer_ingest::IngestOptions {
        file_timeout: Duration::from_secs(2),
        ..no_crops()
    };
    let start = std::time::Instant::now();
    let results = pool.parse_all(
        vec![(slow, "slow.pdf".to_string())],
        &opts,
        &WordCounter,
        tmp.path(),
        &mut |_| {},
    );
    assert!(
        start.elapsed() > Duration::from_secs(3),
        "the fault did not slow it"
    );
    let doc = results[0].1.as_ref().expect("parsed, not timed out");
    assert_eq!(doc.pages, 7);
}
