//! Resources running out: a write that fails mid-ingest (the disk is full, or a file size limit
//! is reached) stops the ingest with an error that says what happened and what to do, and the
//! index keeps its last complete generation, readable, which the next ingest builds on. An
//! index folder that may not be written is still searched, by any user.

use super::{corpus, indexer, runtime, stderr, stdout};
use std::process::Command;

#[test]
fn a_write_that_fails_mid_ingest_keeps_the_last_generation() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::copy(corpus("revtex-apssamp.pdf"), dir.join("docs/revtex.pdf")).unwrap();
    let o = indexer(
        dir,
        &["--index", "idx", "ingest", "docs", "--no-crops", "--quiet"],
    );
    assert!(o.status.success(), "{}", stderr(&o));

    // The next ingest may not grow any file past 100 KiB: the store it appends to is larger,
    // so the commit's first write fails as on a full disk (EFBIG instead of ENOSPC; the signal
    // a process gets for it is ignored, as a shell's `trap "" XFSZ` does).
    std::fs::copy(corpus("vcd-strucplot.pdf"), dir.join("docs/vcd.pdf")).unwrap();
    let o = Command::new("bash")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 100; exec \"$0\" --index idx ingest docs --no-crops --quiet",
            env!("CARGO_BIN_EXE_indexer"),
        ])
        .current_dir(dir)
        .env("INDEXER_RUNTIME", runtime())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(err.contains("hint:") && err.contains("free space"), "{err}");

    // The last complete generation answers, with its one document.
    let o = indexer(dir, &["--index", "idx", "stats", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["stats"]["documents"], 1, "{s}");
    assert_eq!(s["stats"]["generation"], 1, "{s}");
    let o = indexer(
        dir,
        &[
            "--index",
            "idx",
            "query",
            "Bose-Einstein condensation",
            "-b",
            "3",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("docs/revtex.pdf"), "{}", stdout(&o));

    // With room again the same ingest completes.
    let o = indexer(
        dir,
        &["--index", "idx", "ingest", "docs", "--no-crops", "--quiet"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = indexer(dir, &["--index", "idx", "stats", "--json"]);
    let s: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["stats"]["documents"], 2, "{s}");
}

/// Two `indexer ingest` processes on one index: the second stops at once with a message that
/// says why and what to do; the first is not disturbed.
#[test]
fn a_second_writer_stops_with_a_clear_message() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::copy(corpus("vcd-strucplot.pdf"), dir.join("a/vcd.pdf")).unwrap();
    std::fs::copy(corpus("revtex-apssamp.pdf"), dir.join("b/revtex.pdf")).unwrap();
    let log = dir.join("first.log");
    let mut first = Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["--index", "idx", "ingest", "a", "--no-crops"])
        .current_dir(dir)
        .env("INDEXER_RUNTIME", runtime())
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // Wait until the first holds the lock: it prints its plan once it has the index open.
    let t0 = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("parsing")
    {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = indexer(dir, &["--index", "idx", "ingest", "b", "--quiet"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("another ingest holds the index lock"), "{err}");
    assert!(
        err.contains("hint: wait for the other ingest to finish"),
        "{err}"
    );
    assert!(
        first.wait().unwrap().success(),
        "{}",
        std::fs::read_to_string(&log).unwrap()
    );
    let o = indexer(dir, &["--index", "idx", "stats", "--json"]);
    let s: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["stats"]["documents"], 1, "{s}");
    // Now the second goes in.
    let o = indexer(dir, &["--index", "idx", "ingest", "b", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// An index folder nobody may write: searching it works, for another user too (a server's
/// user), and an ingest stops at once with an error and a hint, leaving the index as it was.
/// As root, whom permissions do not stop, the commands run as `nobody`.
#[test]
fn a_read_only_index_answers_and_refuses_writes() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::create_dir_all(dir.join("more")).unwrap();
    std::fs::copy(corpus("revtex-apssamp.pdf"), dir.join("docs/revtex.pdf")).unwrap();
    std::fs::copy(corpus("vcd-strucplot.pdf"), dir.join("more/vcd.pdf")).unwrap();
    let o = indexer(dir, &["--index", "idx", "ingest", "docs", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(dir.join("idx/MANIFEST")).unwrap();

    // Everything readable by all, nothing writable by anyone.
    fn read_only(p: &std::path::Path) {
        let meta = std::fs::metadata(p).unwrap();
        let mode = if meta.is_dir() { 0o555 } else { 0o444 };
        if meta.is_dir() {
            for e in std::fs::read_dir(p).unwrap() {
                read_only(&e.unwrap().path());
            }
        }
        assert_eq!(
            meta.permissions().mode() & 0o044,
            0o044,
            "{} is not readable by others: an index must be searchable by another user",
            p.display()
        );
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    read_only(&dir.join("idx"));
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();

    // Root or not, from /proc (no libc call needed).
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let run = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_indexer"));
        cmd.args(args)
            .current_dir(dir)
            .env("INDEXER_RUNTIME", runtime())
            .env("NO_COLOR", "1");
        if root {
            cmd.uid(65534).gid(65534);
        }
        cmd.output().unwrap()
    };
    let o = run(&[
        "--index",
        "idx",
        "query",
        "Bose-Einstein condensation",
        "-b",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("docs/revtex.pdf"), "{}", stdout(&o));
    let o = run(&["--index", "idx", "stats"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let o = run(&["--index", "idx", "ingest", "more", "--quiet"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    assert!(
        err.contains("hint: the index folder is not writable")
            && err.contains("read-only index works"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("idx/MANIFEST")).unwrap(), before);

    // Writable again (for the temporary folder's removal, too).
    fn writable(p: &std::path::Path) {
        let meta = std::fs::metadata(p).unwrap();
        std::fs::set_permissions(
            p,
            std::fs::Permissions::from_mode(if meta.is_dir() { 0o755 } else { 0o644 }),
        )
        .unwrap();
        if meta.is_dir() {
            for e in std::fs::read_dir(p).unwrap() {
                writable(&e.unwrap().path());
            }
        }
    }
    writable(&dir.join("idx"));
}
