//! Pages a question names, on real PDFs: a thesis whose front matter is numbered in roman
//! numerals and whose chapters start at page 1 on the file's 16th page, and a slide deck.

use super::{corpus, indexer, indexer_with, json, stderr, stdout};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const THESIS: &str = "ndsu-thesis-extended.pdf";
const SLIDES: &str = "slides-metapostpropaganda.pdf";

/// `indexer query QUESTION --doc DOC --budget 3 --format json` and `more` arguments.
fn query_json(dir: &std::path::Path, doc: &str, question: &str, more: &[&str]) -> Value {
    let mut args = vec![
        "query", question, "--doc", doc, "--budget", "3", "--format", "json",
    ];
    args.extend_from_slice(more);
    let o = indexer(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    json(&o)
}

/// A response's `rewrite` without its `reasons`, which the tests read apart.
fn rewrite_of(r: &Value) -> Value {
    let mut rw = r["rewrite"].clone();
    if let Some(o) = rw.as_object_mut() {
        o.remove("reasons");
    }
    rw
}

/// The pages of the evidence set of `question` in document `doc`, in rank order.
fn evidence_pages(dir: &std::path::Path, doc: &str, question: &str) -> Vec<u64> {
    let o = indexer(
        dir,
        &[
            "query", question, "--doc", doc, "--budget", "3", "--format", "json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    json(&o)["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["note"]["page"].as_u64().unwrap())
        .collect()
}

#[test]
fn printed_page_numbers_and_pages_named_in_questions() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for name in [THESIS, SLIDES] {
        std::fs::copy(corpus(name), docs.join(name)).unwrap();
    }
    let o = indexer(dir, &["ingest", "docs", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Every note knows the number printed on its page.
    let o = indexer(dir, &["export"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut labels: BTreeMap<(String, u64), Option<String>> = BTreeMap::new();
    let mut pages: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let note = v.get("note").unwrap_or(&v);
        // Ids are paths from the ingest's folder (`docs/NAME`): keyed here by file name.
        let doc = note["doc"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        let page = note["page"].as_u64().unwrap();
        let label = note["page_label"].as_str().map(str::to_string);
        let seen = labels.entry((doc.clone(), page)).or_insert(label.clone());
        assert_eq!(
            *seen, label,
            "notes of {doc} p.{page} disagree on its number"
        );
        pages.entry(doc).or_default().insert(page);
    }
    let label = |doc: &str, page: u64| labels[&(doc.to_string(), page)].clone();
    assert_eq!(label(THESIS, 1), None, "the title page shows no number");
    assert_eq!(label(THESIS, 3).as_deref(), Some("iii"));
    assert_eq!(label(THESIS, 15).as_deref(), Some("xv"));
    assert_eq!(label(THESIS, 16).as_deref(), Some("1"));
    assert_eq!(label(THESIS, 27).as_deref(), Some("12"));
    // Each slide starts a note of its own, though a slide holds a few words: the 41 slides
    // are 41 pages of evidence, not a few chunks each filed under its first slide.
    assert_eq!(pages[SLIDES].len(), 41, "{:?}", pages[SLIDES]);
    assert_eq!(pages[THESIS].len(), 83);

    // "Page 12" is first the page that shows 12, then the twelfth page of the file.
    let got = evidence_pages(dir, THESIS, "What is on page 12?");
    assert_eq!(got[..2], [27, 12], "{got:?}");
    // A roman numeral is the front-matter page that shows it, never a place in the file.
    let got = evidence_pages(dir, THESIS, "What does page xv list?");
    assert_eq!(got[0], 15, "{got:?}");
    // An ordinal is a place in the file.
    assert_eq!(
        evidence_pages(dir, THESIS, "What is on the second page?")[0],
        2
    );
    // The slides are numbered as they come: slide 7 is the seventh page.
    let got = evidence_pages(dir, SLIDES, "Which drawing is on slide 7?");
    assert_eq!(got[0], 7, "{got:?}");
    // A range puts its pages first, in the order of their relevance.
    let got = evidence_pages(dir, SLIDES, "What do slides 30-32 show?");
    let first: BTreeSet<u64> = got.iter().copied().collect();
    assert_eq!(first, BTreeSet::from([30, 31, 32]), "{got:?}");

    // The response says which pages were put first, and the words that named them.
    let thesis = format!("docs/{THESIS}");
    let r = query_json(dir, THESIS, "What is on page 12?", &[]);
    assert_eq!(
        rewrite_of(&r),
        serde_json::json!({"named_pages": [
            {"doc": thesis, "page": 27, "phrase": "page 12"},
            {"doc": thesis, "page": 12, "phrase": "page 12"},
        ]}),
        "{r}"
    );
    assert_eq!(r["rewrite"]["reasons"][0]["rule"], "pages", "{r}");
    assert_eq!(r["hits"][0]["named_page"], true, "{r}");
    // Without the document known, a page number names no page; a question that names the
    // document by its file name makes it known.
    let o = indexer(dir, &["query", "What is on page 12?", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(json(&o).get("rewrite").is_none(), "{}", stdout(&o));
    let o = indexer(
        dir,
        &[
            "query",
            &format!("What is on page 12 of {THESIS}?"),
            "--format",
            "json",
            "--budget",
            "2",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["hits"][0]["note"]["page"], 27, "{r}");
    assert!(
        r["rewrite"]["reasons"][0]["why"]
            .as_str()
            .unwrap()
            .contains("names it"),
        "{r}"
    );
    // Each rule has its switch: without `pages`, page 12 is not put first.
    let r = query_json(
        dir,
        THESIS,
        "What is on page 12?",
        &["--rewrite", "instructions,terms"],
    );
    assert!(r.get("rewrite").is_none(), "{r}");
    // And what it searched, when it left out instructions about the answer.
    let slides = format!("docs/{SLIDES}");
    let q = "Which drawing is on slide 7? Answer 'yes' or 'no'.";
    let r = query_json(dir, SLIDES, q, &["--rewrite", "all"]);
    assert_eq!(r["query"], q);
    assert_eq!(
        rewrite_of(&r),
        serde_json::json!({
            "searched": "Which drawing is on slide 7?",
            "dropped": "Answer 'yes' or 'no'.",
            "named_pages": [{"doc": slides, "page": 7, "phrase": "slide 7"}],
        }),
        "{r}"
    );
    // A person sees it in the text output.
    let o = indexer(
        dir,
        &[
            "query",
            q,
            "--doc",
            SLIDES,
            "--budget",
            "1",
            "--rewrite",
            "all",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(
            "searched as: \"Which drawing is on slide 7?\" (left out: \"Answer 'yes' or 'no'.\")"
        ),
        "{text}"
    );
    assert!(text.contains("  instructions: "), "{text}");
    assert!(
        text.contains("  pages: \"slide 7\" names pages of"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "pages named, put first: {slides} p.7 (\"slide 7\")"
        )),
        "{text}"
    );
    // Words the search added (a measure's line items, a fiscal year's bare year) are shown as
    // well, in the JSON and in the text, when nothing was left out.
    let capex = "What was the FY2019 capital expenditure?";
    let added = "purchases of property and equipment capital expenditures investing activities \
                 consolidated statements of cash flows 2019";
    let r = query_json(dir, THESIS, capex, &[]);
    assert_eq!(
        rewrite_of(&r),
        serde_json::json!({
            "searched": format!("{capex} {added}"),
            "related": [
                "purchases of property and equipment capital expenditures investing activities",
                "consolidated statements of cash flows",
                "2019",
            ],
        }),
        "{r}"
    );
    let o = indexer(dir, &["query", capex, "--doc", THESIS, "--budget", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(&format!(
            "searched as: \"{capex} {added}\" (added: \"{added}\")"
        )),
        "{text}"
    );
    let r = query_json(dir, THESIS, capex, &["--no-rewrite"]);
    assert!(r.get("rewrite").is_none(), "{r}");
    let r = query_json(dir, THESIS, capex, &["--rewrite", "pages,instructions"]);
    assert!(r.get("rewrite").is_none(), "{r}");
    // The switch also comes from the environment and from indexer.toml; the flag wins.
    std::fs::write(dir.join("indexer.toml"), "rewrite = \"pages\"\n").unwrap();
    let r = query_json(dir, THESIS, capex, &[]);
    assert!(r.get("rewrite").is_none(), "{r}");
    let r = query_json(dir, THESIS, capex, &["--rewrite", "terms"]);
    assert!(r["rewrite"]["related"].is_array(), "{r}");
    std::fs::write(dir.join("indexer.toml"), "rewrite = false\n").unwrap();
    let r = query_json(dir, THESIS, "What is on page 12?", &[]);
    assert!(r.get("rewrite").is_none(), "{r}");
    std::fs::remove_file(dir.join("indexer.toml")).unwrap();
    let o = indexer_with(
        dir,
        &["query", capex, "--doc", THESIS, "--format", "json"],
        &[("INDEXER_REWRITE", "instructions")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(json(&o).get("rewrite").is_none(), "{}", stdout(&o));
    let o = indexer(dir, &["query", "x", "--rewrite", "spelling"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("instructions, terms, pages"),
        "{}",
        stderr(&o)
    );
    // --no-rewrite searches the question as typed and puts no page first.
    for question in ["What is on page 12?", q] {
        let r = query_json(dir, THESIS, question, &["--no-rewrite"]);
        assert!(r.get("rewrite").is_none(), "{question}: {r}");
    }
    let o = indexer(dir, &["query", q, "--doc", SLIDES, "--no-rewrite"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("searched as:"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("pages named"), "{}", stdout(&o));
    // Ordinary questions are searched as typed: nothing to report.
    for question in [
        "What should the cover letter include?",
        "Rust. Write a string to a file",
        "How do I fetch the first page of results?",
        "How do I set the page size in LaTeX?",
    ] {
        let r = query_json(dir, THESIS, question, &[]);
        assert!(r.get("rewrite").is_none(), "{question}: {r}");
    }
    let o = indexer(
        dir,
        &[
            "query",
            "--unit",
            "page",
            "--format",
            "json",
            "--doc",
            THESIS,
            "the second page",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        json(&o)["rewrite"]["named_pages"],
        serde_json::json!([{"doc": thesis, "page": 2, "phrase": "the second page"}])
    );
}
