//! End-to-end tests of the `indexer` binary on real PDFs (fetched from Debian packages by
//! `tools/test-data`), with the real pdfium, the real encoder and a real index on disk in a
//! temporary folder. They need the runtime that `tools/setup` installs and the PDFs, and fail
//! (do not skip) without them; `tools/test` installs both.

mod ask;
mod browser;
mod docs;
mod faults;
mod load;
mod milvus;
mod mutants;
mod named_pages;
mod serve;
mod text_layers;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A test PDF of `.test-data/corpus/` (or `$INDEXER_TEST_DATA/corpus/`).
fn corpus(name: &str) -> PathBuf {
    let data = std::env::var_os("INDEXER_TEST_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".test-data"));
    let p = data.join("corpus").join(name);
    assert!(
        p.is_file(),
        "test PDF {} is missing\nhint: run tools/test-data",
        p.display()
    );
    p
}

fn runtime() -> PathBuf {
    let rt = Path::new(env!("CARGO_MANIFEST_DIR")).join(".runtime");
    assert!(
        rt.join("lib/libpdfium.so").is_file(),
        "the runtime is missing in {}\nhint: run tools/setup",
        rt.display()
    );
    rt
}

/// Whether every hit of a `query --format json` answer is a note of document `doc`.
fn all_from(r: &Value, doc: &str) -> bool {
    r["hits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["note"]["doc"] == doc)
}

fn indexer(dir: &Path, args: &[&str]) -> Output {
    indexer_with(dir, args, &[])
}

/// `indexer` with more environment variables set.
fn indexer_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(args)
        .current_dir(dir)
        .env("INDEXER_RUNTIME", runtime())
        .env_remove("INDEXER_INDEX")
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run indexer")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Snapshots of what a person reads, with what changes between runs masked: timings, scores
/// (last-digit noise across CPUs), sizes, and the temporary folder.
fn snapshot(name: &str, dir: &Path, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.add_filter(&regex_escape(&dir.display().to_string()), "[dir]");
    settings.add_filter(r"\b\d+(\.\d+)? ?(ms|s|µs)\b", "[time]");
    settings.add_filter(r"score -?\d+\.\d+", "score [score]");
    settings.add_filter(r"\b\d+(\.\d+)? (B|KB|MB|KiB|MiB|GiB|kB)\b", "[size]");
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// The shape of a JSON value: every object's keys (sorted) and the type of every leaf, with
/// arrays shown by their first element. A snapshot of it pins the documented schema.
fn schema(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), schema(v))).collect()),
        Value::Array(a) => Value::Array(a.first().map(schema).into_iter().collect()),
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => Value::Null,
    }
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr:\n{}", stdout(o), stderr(o)))
}

/// A folder with two small real papers, a corrupt PDF and a file of an unsupported type.
fn setup() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let c = t.path().join("corpus");
    std::fs::create_dir_all(c.join("sub")).unwrap();
    std::fs::copy(corpus("acmart-sample-sigconf.pdf"), c.join("acmart.pdf")).unwrap();
    std::fs::copy(corpus("revtex-apssamp.pdf"), c.join("sub/revtex.pdf")).unwrap();
    std::fs::write(c.join("broken.pdf"), b"%PDF-1.4\n1 0 obj <<").unwrap();
    std::fs::write(c.join("notes.md"), "# Mosaic plots\n\nA mosaic plot shows a contingency table as tiles whose areas are the cell frequencies.\n").unwrap();
    std::fs::write(c.join("data.bin"), [0u8, 1, 2]).unwrap();
    t
}

#[test]
fn ingest_query_reingest_delete() {
    let t = setup();
    let dir = t.path();

    // First ingest: the two papers and the Markdown file go in; the corrupt PDF fails (exit 1)
    // and is listed with its reason; the .bin is skipped.
    let o = indexer(
        dir,
        &["ingest", "corpus", "--json", "--quiet", "--jobs", "2"],
    );
    assert_eq!(o.status.code(), Some(1), "stderr:\n{}", stderr(&o));
    let s = json(&o);
    let added: Vec<&str> = s["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        added,
        [
            "corpus/acmart.pdf",
            "corpus/notes.md",
            "corpus/sub/revtex.pdf"
        ]
    );
    assert_eq!(s["failed"][0]["doc"], "corpus/broken.pdf");
    assert!(!s["failed"][0]["error"].as_str().unwrap().is_empty());
    assert_eq!(s["skipped"][0]["doc"], "corpus/data.bin");
    snapshot(
        "ingest_summary_json_schema",
        dir,
        &serde_json::to_string_pretty(&schema(&s)).unwrap(),
    );
    let embedded = s["embedded"].as_u64().unwrap();
    assert!(embedded > 40, "{s}");
    assert_eq!(s["notes_total"].as_u64().unwrap(), embedded);

    // Query in every format.
    let o = indexer(
        dir,
        &[
            "query",
            "Which table lists the frequency of special characters?",
            "--format",
            "json",
            "--budget",
            "5",
            "--selector",
            "cds",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["selector"], "cds");
    assert_eq!(r["budget"], 5);
    let hits = r["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 5);
    for (i, h) in hits.iter().enumerate() {
        assert_eq!(h["rank"], i + 1);
        for field in ["id", "doc", "kind", "text"] {
            assert!(
                h["note"][field].is_string(),
                "hit {i} lacks note.{field}: {h}"
            );
        }
        assert!(h["score"].is_f64() && h["cosine"].is_f64());
        assert!(h["snippet"]["text"].is_string() && h["snippet"]["highlights"].is_array());
    }
    snapshot(
        "query_json_schema",
        dir,
        &serde_json::to_string_pretty(&schema(&r)).unwrap(),
    );
    let evidence: Vec<String> = hits
        .iter()
        .map(|h| {
            format!(
                "{} {} p.{} {}",
                h["rank"], h["note"]["doc"], h["note"]["page"], h["note"]["kind"]
            )
        })
        .collect();
    snapshot("query_json_cds_evidence", dir, &evidence.join("\n"));
    let d = &r["diagnostics"];
    for field in [
        "alpha",
        "lambda_max",
        "iterations",
        "kkt_residual",
        "x_query",
        "support_size",
        "objective",
    ] {
        assert!(!d[field].is_null(), "diagnostics lack {field}: {d}");
    }
    // The table with that caption is on page 3 of the ACM sample: some selected note is there.
    assert!(
        hits.iter()
            .any(|h| h["note"]["doc"] == "corpus/acmart.pdf" && h["note"]["page"] == 3),
        "no evidence from acmart.pdf p.3: {}",
        hits.iter()
            .map(|h| format!("{} p.{}", h["note"]["doc"], h["note"]["page"]))
            .collect::<Vec<_>>()
            .join(", ")
    );

    // Selector options, from a flag and from indexer.toml: `cds` is `cds-hybrid` with its
    // dominant set read at most one note a page first, so the two give the same evidence.
    let ids = |r: &Value| -> Vec<String> {
        r["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["note"]["id"].as_str().unwrap().to_string())
            .collect()
    };
    let question = "Which table lists the frequency of special characters?";
    let spelled = indexer(
        dir,
        &[
            "query",
            question,
            "--format",
            "json",
            "--budget",
            "5",
            "--selector",
            "cds-hybrid:cap=1",
        ],
    );
    assert!(spelled.status.success(), "{}", stderr(&spelled));
    let spelled = json(&spelled);
    assert_eq!(spelled["selector"], "cds-hybrid:cap=1");
    assert_eq!(ids(&spelled), ids(&r));
    std::fs::write(dir.join("indexer.toml"), "selector = \"fused-cap:cap=2\"\n").unwrap();
    let from_file = indexer(
        dir,
        &["query", question, "--format", "json", "--budget", "5"],
    );
    std::fs::remove_file(dir.join("indexer.toml")).unwrap();
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    let from_file = json(&from_file);
    assert_eq!(from_file["selector"], "fused-cap:cap=2");
    let mut per_page = std::collections::HashMap::new();
    for h in from_file["hits"].as_array().unwrap() {
        *per_page
            .entry((h["note"]["doc"].to_string(), h["note"]["page"].to_string()))
            .or_insert(0) += 1;
    }
    assert!(per_page.values().all(|&n| n <= 2), "{per_page:?}");
    let bad = indexer(
        dir,
        &["query", question, "--selector", "fused-cap:colour=red"],
    );
    assert!(!bad.status.success());
    let message = stderr(&bad);
    assert!(
        message.contains("\"colour\"") && message.contains("cap, k"),
        "{message}"
    );
    let unknown = indexer(dir, &["query", question, "--selector", "best"]);
    assert!(
        stderr(&unknown).contains("cds-paper"),
        "{}",
        stderr(&unknown)
    );

    // The default selector is the fused first-stage order with one note a page first: its
    // scores are the first stage's fused scores, in decreasing order while pages remain. The
    // default fusion weighs BM25 over its best and the cosine over its range alike, so every
    // score is in [0, 1] and the best candidate (the first hit) scores at least 0.5.
    let o = indexer(
        dir,
        &[
            "query",
            "special characters frequency table",
            "--format",
            "json",
        ],
    );
    let r = json(&o);
    assert_eq!(r["selector"], "fused-cap");
    assert_eq!(r["hits"].as_array().unwrap().len(), 10);
    let scores: Vec<f64> = r["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)), "{scores:?}");
    assert!(scores[0] >= 0.5, "{scores:?}");

    // Pages as the unit: the same candidates grouped by page, pages ranked by their best
    // note, each with at most three of its notes, all on that page.
    let o = indexer(
        dir,
        &[
            "query",
            "special characters frequency table",
            "--unit",
            "page",
            "-b",
            "4",
            "--format",
            "json",
        ],
    );
    let p = json(&o);
    let pages = p["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 4, "{p}");
    let mut seen = std::collections::HashSet::new();
    for (i, page) in pages.iter().enumerate() {
        assert_eq!(page["rank"], i + 1);
        assert!(seen.insert((page["doc"].to_string(), page["page"].to_string())));
        let notes = page["notes"].as_array().unwrap();
        assert!((1..=3).contains(&notes.len()), "{page}");
        for n in notes {
            assert_eq!(n["note"]["doc"], page["doc"]);
            assert_eq!(n["note"]["page"], page["page"]);
        }
        assert_eq!(notes[0]["score"], page["score"]);
    }
    // The best page is the page of the best note (the first hit of the default selector).
    let top = &r["hits"][0]["note"];
    assert_eq!(
        (&pages[0]["doc"], &pages[0]["page"]),
        (&top["doc"], &top["page"])
    );
    let text = stdout(&indexer(
        dir,
        &["query", "special characters", "--unit", "page"],
    ));
    assert!(text.contains(" 1. ") && text.contains(" p."), "{text}");
    let o = indexer(
        dir,
        &[
            "query",
            "special characters",
            "--unit",
            "page",
            "-f",
            "markdown",
        ],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--unit page"), "{}", stderr(&o));
    assert!(r["diagnostics"].is_null());

    let o = indexer(
        dir,
        &[
            "query",
            "special characters frequency table",
            "--budget",
            "3",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .starts_with("special characters frequency table — 3 of "),
        "{text}"
    );
    assert!(text.contains(" 1. corpus/"), "{text}");
    snapshot("query_text", dir, &text);

    let o = indexer(
        dir,
        &[
            "query",
            "special characters frequency table",
            "--format",
            "markdown",
            "--budget",
            "3",
            "--kind",
            "table",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.starts_with("# Evidence for: special characters frequency table\n"),
        "{md}"
    );
    assert!(md.contains("## [1] corpus/acmart.pdf p.3 (table)"), "{md}");
    snapshot("query_markdown", dir, &md);
    // A table note carries its crop as an image link to a PNG the index owns.
    let link = md
        .lines()
        .find(|l| l.starts_with("![table 1]("))
        .unwrap_or_else(|| panic!("no crop link:\n{md}"));
    let png = link.trim_start_matches("![table 1](").trim_end_matches(')');
    let png = dir.join(png);
    assert!(
        std::fs::read(&png).unwrap().starts_with(b"\x89PNG"),
        "{}",
        png.display()
    );

    // Filters: only the Markdown document.
    let o = indexer(
        dir,
        &[
            "query",
            "mosaic plot",
            "--doc",
            "corpus/notes.md",
            "--format",
            "json",
        ],
    );
    let r = json(&o);
    assert!(
        r["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["note"]["doc"] == "corpus/notes.md"),
        "{r}"
    );
    assert!(!r["hits"].as_array().unwrap().is_empty());

    // show, stats, export.
    let id = hits[0]["note"]["id"].as_str().unwrap().to_string();
    let o = indexer(dir, &["show", &id]);
    assert!(
        o.status.success() && stdout(&o).starts_with(&format!("id:       {id}\n")),
        "{}",
        stdout(&o)
    );
    let o = indexer(dir, &["show", &id]);
    snapshot("show", dir, &stdout(&o));
    let o = indexer(dir, &["stats"]);
    assert!(o.status.success(), "{}", stderr(&o));
    snapshot("stats_text", dir, &stdout(&o));
    let o = indexer(dir, &["stats", "--json"]);
    let st = json(&o);
    assert_eq!(st["stats"]["documents"], 3);
    assert_eq!(st["stats"]["failed_files"], 1);
    let o = indexer(dir, &["export", "--format", "jsonl"]);
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u64, embedded);

    // Re-ingest: nothing changed, nothing embedded.
    let o = indexer(dir, &["ingest", "corpus", "--json", "--quiet"]);
    let s = json(&o);
    assert_eq!(s["embedded"], 0, "{s}");
    assert_eq!(s["unchanged"], 3, "{s}");

    // Delete a file and change another: the deleted one is gone, the changed one replaced.
    let o = indexer(dir, &["export"]);
    let revtex_crops: Vec<PathBuf> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|n| n["doc"] == "corpus/sub/revtex.pdf" && n["image"].is_string())
        .map(|n| {
            dir.join(".indexer/crops")
                .join(n["image"].as_str().unwrap())
        })
        .collect();
    assert!(
        !revtex_crops.is_empty() && revtex_crops.iter().all(|p| p.is_file()),
        "{revtex_crops:?}"
    );
    std::fs::remove_file(dir.join("corpus/sub/revtex.pdf")).unwrap();
    std::fs::write(
        dir.join("corpus/notes.md"),
        "# Doubles\n\nA doubledecker plot stacks bars.\n",
    )
    .unwrap();
    let o = indexer(dir, &["ingest", "corpus", "--json", "--quiet"]);
    let s = json(&o);
    assert_eq!(s["removed"][0], "corpus/sub/revtex.pdf", "{s}");
    assert_eq!(s["updated"][0], "corpus/notes.md", "{s}");
    let o = indexer(dir, &["export"]);
    let docs: std::collections::BTreeSet<String> = stdout(&o)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["doc"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        docs.into_iter().collect::<Vec<_>>(),
        ["corpus/acmart.pdf", "corpus/notes.md"]
    );
    let o = indexer(
        dir,
        &[
            "query",
            "doubledecker",
            "--doc",
            "corpus/notes.md",
            "--format",
            "json",
        ],
    );
    assert!(
        json(&o)["hits"][0]["note"]["text"]
            .as_str()
            .unwrap()
            .contains("doubledecker")
    );
}

#[test]
fn errors_have_hints_and_exit_codes() {
    let t = tempfile::tempdir().unwrap();
    let o = indexer(t.path(), &["query", "anything"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.starts_with("error: no index in .indexer"), "{e}");
    assert!(e.contains("\nhint: run indexer ingest PATH"), "{e}");

    let o = Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["ingest", "."])
        .current_dir(t.path())
        .env("INDEXER_RUNTIME", t.path().join("no-runtime"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("INDEXER_RUNTIME points at"), "{e}");
    assert!(e.contains("hint:"), "{e}");

    let o = indexer(t.path(), &["query"]);
    assert_eq!(o.status.code(), Some(2), "usage errors exit 2");
    let o = indexer(t.path(), &["ingest", "missing-folder"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing-folder: no such file or folder"));
}

/// A one-page PDF whose page holds a filled square and no text: what a scan looks like to a
/// text extractor. No cross-reference table: pdfium rebuilds it, as it does for many real files.
const SCAN_PDF: &[u8] = b"%PDF-1.4
1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj
2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj
3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R>> endobj
4 0 obj <</Length 19>> stream
20 20 120 120 re f
endstream endobj
trailer <</Root 1 0 R/Size 5>>
%%EOF
";

#[test]
fn warnings_name_the_file_once_and_say_what_to_do() {
    let t = tempfile::tempdir().unwrap();
    let c = t.path().join("corpus");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(c.join("scan.pdf"), SCAN_PDF).unwrap();
    std::fs::write(c.join("notes.md"), "# Notes\n\nSome text to index.\n").unwrap();
    let ingest = |tesseract: &str, extra: &[&str]| {
        let args = [&["ingest", "corpus"], extra].concat();
        indexer_with(t.path(), &args, &[("INDEXER_TESSERACT", tesseract)])
    };

    // OCR turned off: the page is reported as needing it, in the summary a program reads.
    let o = ingest("off", &["--json", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = json(&o);
    let w = s["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{s}");
    assert_eq!(w[0]["doc"], "corpus/scan.pdf");
    assert_eq!(w[0]["page"], 1);
    assert_eq!(
        w[0]["message"],
        "1 of 1 pages have no text layer (pages 1); they need OCR, which INDEXER_TESSERACT turns off"
    );

    // A tesseract that fails: the reason is given once for the file, and ingest goes on.
    std::fs::write(c.join("scan.pdf"), [SCAN_PDF, b"\n"].concat()).unwrap();
    let o = ingest("/bin/false", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The summary (on standard error, as the progress is) lists it once; the progress log,
    // while it runs, once more; both name the document once, by its id.
    let err = stderr(&o);
    let summary: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(summary.len(), 1, "{err}");
    assert!(
        summary[0].starts_with(
            "warning: corpus/scan.pdf: 1 of 1 pages have no text layer and OCR failed on them (pages 1): /bin/false exited with"
        ),
        "{err}"
    );
    let logged = err
        .lines()
        .filter(|l| l.contains("] warning: corpus/scan.pdf: 1 of 1 pages"))
        .count();
    assert_eq!(logged, 1, "{err}");
    assert!(!err.contains(&c.display().to_string()), "{err}");
}

/// Notes depend on the parse settings and the parser's revision as well as on the file: an
/// ingest with other settings (here `--paper-chunks`, then back) or a newer parser parses the
/// unchanged file again; one with the same settings skips it.
#[test]
fn other_parse_settings_parse_unchanged_files_again() {
    let t = tempfile::tempdir().unwrap();
    let c = t.path().join("corpus");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(
        c.join("notes.md"),
        "# Notes\n\nA mosaic plot shows a contingency table.\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["ingest", "corpus", "--json", "--quiet"];
        args.extend_from_slice(extra);
        let o = indexer(t.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let s = json(&o);
        (
            s["added"].as_array().unwrap().len(),
            s["updated"].as_array().unwrap().len(),
            s["unchanged"].as_u64().unwrap(),
        )
    };
    assert_eq!(run(&[]), (1, 0, 0));
    assert_eq!(run(&[]), (0, 0, 1));
    assert_eq!(run(&["--paper-chunks"]), (0, 1, 0));
    assert_eq!(run(&["--paper-chunks"]), (0, 0, 1));
    assert_eq!(run(&[]), (0, 1, 0));
    // An index made by an older parser (whose manifest names no revision, as before
    // `NOTES_REVISION`) has its unchanged files parsed again, once.
    let manifest = t.path().join(".indexer/MANIFEST");
    let mut m: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    for doc in m["documents"].as_object_mut().unwrap().values_mut() {
        assert!(doc.as_object_mut().unwrap().remove("parse").is_some());
    }
    std::fs::write(&manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    assert_eq!(run(&[]), (0, 1, 0));
    assert_eq!(run(&[]), (0, 0, 1));
    // The progress says why an unchanged file is parsed again, and with what (the settings
    // the manifest records).
    let parsed_with = || {
        let m: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        let doc = m["documents"].as_object().unwrap().values().next().unwrap();
        doc["parse"].as_str().unwrap().to_string()
    };
    let before = parsed_with();
    assert!(before.starts_with("notes="), "{before}");
    let o = indexer(t.path(), &["ingest", "corpus", "--paper-chunks"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let now = parsed_with();
    assert!(
        now.ends_with("chunks=3000/300chars") && now != before,
        "{now}"
    );
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "1 unchanged file is parsed again: parsed before with {before:?}, now with {now:?}"
        )),
        "{err}"
    );
    let o = indexer(t.path(), &["ingest", "corpus", "--paper-chunks"]);
    assert!(!stderr(&o).contains("parsed again"), "{}", stderr(&o));
}

/// Found when tried as a new user would: a folder ingested by its absolute path has absolute
/// document ids, and `--doc` finds them by a unique suffix; a document the index does not have
/// is an error with the closest ids, not an empty answer; `export` into a pipe closed after
/// one line (`| head -1`) succeeds quietly.
#[test]
fn document_filters_and_closed_pipes() {
    let t = tempfile::tempdir().unwrap();
    let docs = t.path().join("papers");
    std::fs::create_dir_all(docs.join("a")).unwrap();
    std::fs::create_dir_all(docs.join("b")).unwrap();
    let text = "# Mosaic plots\n\nA mosaic plot shows a contingency table as tiles whose areas are the cell frequencies.\n";
    std::fs::write(docs.join("a/mosaic.md"), text).unwrap();
    std::fs::write(docs.join("b/mosaic.md"), text).unwrap();
    std::fs::write(
        docs.join("b/lattice.md"),
        "# Lattice\n\nTrellis displays of grouped data.\n",
    )
    .unwrap();
    // A long log, so that `export` writes more than a pipe holds (64 KiB on Linux).
    let log: String = (1..=2000)
        .map(|i| format!("## Day {i}\n\nThe weather station recorded rain on day {i}, with wind from the west and a cold night after it.\n\n"))
        .collect();
    std::fs::write(docs.join("b/weather-log.md"), log).unwrap();
    // The index is elsewhere, so the ids of the folder's files are absolute paths.
    let work = t.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let abs = docs.to_string_lossy().into_owned();
    let o = indexer(&work, &["ingest", &abs, "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let query = |doc: &str| {
        indexer(
            &work,
            &["query", "mosaic plot", "--doc", doc, "--format", "json"],
        )
    };
    let o = query("lattice.md");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o);
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    let want = format!("{abs}/b/lattice.md");
    assert!(
        hits.iter().all(|h| h["note"]["doc"] == want.as_str()),
        "{r}"
    );

    // Two documents end with mosaic.md: the error lists both; b/mosaic.md is unique.
    let o = query("mosaic.md");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("names several documents")
            && e.contains("a/mosaic.md")
            && e.contains("b/mosaic.md"),
        "{e}"
    );
    assert_eq!(query("b/mosaic.md").status.code(), Some(0));

    // A document by its title (letter case aside), or by the start of its file name.
    for (doc, want) in [("lattice", "b/lattice.md"), ("weather", "b/weather-log.md")] {
        let o = query(doc);
        assert_eq!(o.status.code(), Some(0), "{doc}: {}", stderr(&o));
        let r = json(&o);
        let want = format!("{abs}/{want}");
        assert!(all_from(&r, &want), "{doc}: {r}");
    }
    let o = query("mos");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("names several documents"),
        "{}",
        stderr(&o)
    );

    // Without a filter, the evidence says where it came from; a question that names a
    // document by its file name searches it alone.
    let o = indexer(&work, &["query", "mosaic plot tiles", "--budget", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("evidence from "), "{}", stdout(&o));
    let o = indexer(
        &work,
        &["query", "rain in weather-log.md", "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["routing"]["by"], "named", "{r}");
    let want = format!("{abs}/b/weather-log.md");
    assert!(all_from(&r, &want), "{r}");
    let o = indexer(&work, &["query", "mosaic plot tiles", "--format", "json"]);
    let r = json(&o);
    assert_eq!(r["routing"]["by"], "candidates", "{r}");
    assert!(
        r["routing"]["documents"][0]["share"].as_f64().unwrap() > 0.0,
        "{r}"
    );

    let o = query("latice.md");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("error: no document \"latice.md\" in the index"),
        "{e}"
    );
    assert!(
        e.contains(&format!("hint: did you mean {abs}/b/lattice.md?")),
        "{e}"
    );

    // A question's closing instructions about the answer are not searched: the same evidence,
    // scores and cosines as the bare question; the response keeps the whole question.
    let search = |q: &str| {
        let o = indexer(&work, &["query", q, "--format", "json", "--rewrite", "all"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        json(&o)
    };
    let bare = "What does a mosaic plot show?";
    let asked = format!("{bare} Please write the answer in list format, e.g. [\"a\", \"b\"]");
    let evidence = |r: &Value| -> Vec<(Value, Value, Value)> {
        r["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["note"]["id"].clone(),
                    h["score"].clone(),
                    h["cosine"].clone(),
                )
            })
            .collect()
    };
    let (b, a) = (search(bare), search(&asked));
    assert!(!evidence(&b).is_empty());
    assert_eq!(evidence(&a), evidence(&b));
    assert_eq!(a["query"], asked.as_str());

    // `indexer export | head -1`: the pipe closes after one line.
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["export", "--format", "jsonl"])
        .current_dir(&work)
        .env("INDEXER_RUNTIME", runtime())
        .env_remove("INDEXER_INDEX")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'), "{first}");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}
