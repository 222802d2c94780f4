//! Unreadable text layers: a PDF whose text layer is not the text printed is read by OCR, and
//! the ingest summary says which pages.

use super::*;

/// The tesseract `tools/test-deps` installs: the test fails, not skips, without it.
fn need_tesseract() {
    let named = std::env::var_os("INDEXER_TESSERACT").is_some_and(|v| v != "off");
    let on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("tesseract").is_file()));
    assert!(
        named || on_path,
        "tesseract not found\nhint: run tools/test-deps (Debian's tesseract-ocr and tesseract-ocr-eng)"
    );
}

/// A folder `corpus/` holding the given test PDFs.
fn corpus_of(names: &[&str]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let c = t.path().join("corpus");
    std::fs::create_dir_all(&c).unwrap();
    for n in names {
        std::fs::copy(corpus(n), c.join(n)).unwrap();
    }
    t
}

/// Dingbats, miscellaneous symbols, enclosed alphanumerics, private use: what the bad text
/// layer is made of.
fn is_glyph_junk(ch: char) -> bool {
    matches!(ch as u32, 0x2460..=0x24FF | 0x2600..=0x27BF | 0xE000..=0xF8FF)
}

/// lme4's `PLSvGLS.pdf` sets its text in fonts without a Unicode map: pdfium exports
/// "P❡♥❛❧✐③❡❞ ❧❡❛st sq✉❛r❡s" on every page. Every page is read by OCR instead, its notes read
/// as English, and the summary names the pages; lme4's `lmer.pdf`, a normal paper from the same
/// package, has no page read by OCR.
#[test]
fn unreadable_text_layers_are_read_by_ocr() {
    need_tesseract();
    let t = corpus_of(&["lme4-plsvgls.pdf", "lme4-lmer.pdf"]);
    let dir = t.path();
    let o = indexer(dir, &["ingest", "corpus", "--json", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = json(&o);
    let ocr = s["ocr"].as_array().unwrap();
    assert_eq!(ocr.len(), 1, "only the one file has pages read by OCR: {s}");
    assert_eq!(ocr[0]["doc"], "corpus/lme4-plsvgls.pdf");
    let all: Vec<u64> = (1..=7).collect();
    let pages = |k: &str| -> Vec<u64> {
        ocr[0][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect()
    };
    assert_eq!(pages("unreadable"), all, "{s}");
    assert_eq!(pages("pages"), all, "{s}");
    // Read by OCR, they are not pages without text, and no warning is given for them.
    assert!(
        !s["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["doc"] == "corpus/lme4-plsvgls.pdf"),
        "{s}"
    );

    let o = indexer(dir, &["export", "--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|n: &Value| n["doc"] == "corpus/lme4-plsvgls.pdf")
        .collect();
    let text: String = notes
        .iter()
        .filter_map(|n| n["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!text.chars().any(is_glyph_junk), "{text}");
    let lower = text.to_lowercase();
    assert!(
        lower.contains("penalized least squares"),
        "the title is read: {text}"
    );
    for word in ["the", "of", "and", "model", "matrix", "random effects"] {
        assert!(lower.contains(word), "{word:?} is read: {text}");
    }
    for page in 1..=7u64 {
        assert!(
            notes.iter().any(|n| n["page"] == page),
            "no note on page {page}"
        );
    }
}

/// The summary a person reads says it in one line, and without OCR the bad text layer is
/// not indexed: its pages are pages without text, with a warning that says what to do.
#[test]
fn unreadable_text_layers_in_the_summary_and_without_ocr() {
    need_tesseract();
    let t = corpus_of(&["lme4-plsvgls.pdf"]);
    let o = indexer(t.path(), &["ingest", "corpus"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l
            == "ocr: corpus/lme4-plsvgls.pdf: 7 pages with an unreadable text layer read by OCR (pages 1, 2, 3, 4, 5, 6, 7)"),
        "{err}"
    );

    let t = corpus_of(&["lme4-plsvgls.pdf"]);
    let o = indexer_with(
        t.path(),
        &["ingest", "corpus", "--json", "--quiet"],
        &[("INDEXER_TESSERACT", "off")],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = json(&o);
    assert_eq!(s["ocr"], serde_json::json!([]), "{s}");
    let w = s["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{s}");
    assert_eq!(
        w[0]["message"],
        "7 of 7 pages have a text layer whose characters are not the ones printed (pages 1, 2, 3, 4, 5, 6, 7); it is not indexed, and they need OCR, which INDEXER_TESSERACT turns off"
    );
    let o = indexer(t.path(), &["export", "--format", "jsonl"]);
    assert!(
        !stdout(&o).chars().any(is_glyph_junk),
        "the bad text layer is not indexed"
    );
}
