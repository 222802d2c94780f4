use crate::{all_text, assert_in_order, corpus, no_crops, parse};
use indexer_notes::NoteKind;
use std::collections::HashSet;

#[test]
fn two_column_papers_read_in_column_order() {
    let tmp = tempfile::tempdir().unwrap();
    let acm = parse(
        &corpus("acmart-sample-sigconf.pdf"),
        &no_crops(),
        tmp.path(),
    )
    .unwrap();
    let text = all_text(&acm);
    assert_in_order(
        &text,
        &[
            "1 INTRODUCTION",
            "2 TEMPLATE OVERVIEW",
            "2.1 Template Styles",
            "2.2 Template Parameters",
            "3 MODIFICATIONS",
            "4 TYPEFACES",
            "5 TITLE INFORMATION",
            "6 AUTHORS AND AFFILIATIONS",
            "8 CCS CONCEPTS AND USER-DEFINED KEYWORDS",
            "12 FIGURES",
            "15 APPENDICES",
        ],
    );
    // A sentence over several lines of one column comes out whole.
    assert!(text.contains("The primary parameter given to the “acmart” document class is the template style which corresponds to the kind of publication or SIG publishing the work."));
    // The running header is furniture, kept out of chunks.
    assert!(
        !text.contains("Woodstock, NY Trovato et al."),
        "running header leaked"
    );

    let rev = parse(&corpus("revtex-apssamp.pdf"), &no_crops(), tmp.path()).unwrap();
    let text = all_text(&rev);
    assert_in_order(
        &text,
        &[
            "I. FIRST-LEVEL HEADING",
            "2. Example citations",
            "3. References",
            "II. MATH AND EQUATIONS",
            "III. CROSS-REFERENCING",
            "IV. FLOATS",
        ],
    );
    assert!(text.contains("REVTEX will automatically number such things as sections, footnotes, equations, figure captions, and table captions."));
}

/// True figure and table captions, counted by eye on the page renders (every numbered
/// caption; continued floats repeat their caption and count again): (file, captions).
const TRUE_CAPTIONS: &[(&str, usize)] = &[
    // Figures 1-4, Tables 1-8.
    ("lme4-lmer.pdf", 12),
    // Figures 1-34, Tables 1-2.
    ("vcd-strucplot.pdf", 36),
    // Tables 2.1-2.11, Figures 3.1-3.7 (3.7 on three pages), appendices: A1, A2, Table A1,
    // A1, Table A1, Figures B1-B2, Tables B1-B2. Table 2.10, Figures 3.5 and B2 are on
    // landscape (/Rotate 90) pages.
    ("ndsu-thesis-extended.pdf", 29),
    // Figures 15.1-15.8, 22.1-22.6, 28.1-28.5, 29.1-29.4, 30.1-30.6; Table 15.1 (two pages),
    // Table 34.1.
    ("octave.pdf", 32),
    // Figures 1-2, Tables 1-2.
    ("acmart-sample-sigconf.pdf", 4),
    // FIG. 1-2, TABLE I-IV.
    ("revtex-apssamp.pdf", 6),
];

#[test]
fn captions_pair_with_graphics() {
    let tmp = tempfile::tempdir().unwrap();
    for &(file, truth) in TRUE_CAPTIONS {
        let doc = parse(&corpus(file), &no_crops(), tmp.path()).unwrap();
        let figures: Vec<_> = doc
            .notes
            .iter()
            .filter(|n| n.kind != NoteKind::Text)
            .collect();
        // Each paired caption is distinct (page + caption), so none is counted twice.
        let distinct: HashSet<_> = figures
            .iter()
            .map(|n| (n.page, n.caption.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            distinct.len(),
            figures.len(),
            "{file}: a caption paired twice"
        );
        for f in &figures {
            let cap = f.caption.as_deref().unwrap_or("");
            let want = if f.kind == NoteKind::Table {
                ["Table", "TABLE", "Tab."]
            } else {
                ["Figure", "FIG.", "Fig."]
            };
            assert!(
                want.iter().any(|w| cap.starts_with(w)),
                "{file}: {:?} caption {cap:?}",
                f.kind
            );
            assert_eq!(f.bbox.len(), 2, "{file}: graphic and caption boxes");
            assert!(
                f.context
                    .as_ref()
                    .is_some_and(|c| c.split_whitespace().count() > 100)
            );
        }
        let paired = figures.len();
        assert!(
            paired * 10 >= truth * 9 && paired <= truth,
            "{file}: {paired} of {truth} captions paired"
        );
    }
}

#[test]
fn named_figure_crop_contains_the_figure() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = parse(
        &corpus("vcd-strucplot.pdf"),
        &indexer_ingest::IngestOptions::default(),
        tmp.path(),
    )
    .unwrap();
    let fig = doc
        .notes
        .iter()
        .find(|n| {
            n.caption
                .as_deref()
                .is_some_and(|c| c.starts_with("Figure 1: Mosaic plot for the Arthritis data"))
        })
        .expect("Figure 1 found");
    assert_eq!(fig.page, Some(4));
    let b = fig.bbox[0];
    // Measured on the 72 dpi render of page 4: the mosaic from the "Improved" label
    // (x 174) to the residual legend (x 437), from the "Marked" row (y 510) to the
    // "Treatment" title (y 699).
    let inner = indexer_notes::BBox::new(178.0, 514.0, 425.0, 695.0);
    let outer = indexer_notes::BBox::new(160.0, 495.0, 450.0, 715.0);
    assert!(
        b.contains(&inner, 0.0) && outer.contains(&b, 0.0),
        "box {b:?}"
    );
    let name = fig.image.as_deref().expect("crop written");
    assert!(name.starts_with(&indexer_ingest::crop_file_prefix(&doc.doc)));
    let img = image::open(tmp.path().join(name)).unwrap();
    let scale = 150.0 / 72.0;
    assert!(((img.width() as f32) - (b.width() + 8.0) * scale).abs() < 4.0);
    assert!(((img.height() as f32) - (b.height() + 8.0) * scale).abs() < 4.0);
    // Crop names are unique in the document.
    let names: HashSet<_> = doc.notes.iter().filter_map(|n| n.image.clone()).collect();
    assert_eq!(
        names.len(),
        doc.notes.iter().filter(|n| n.image.is_some()).count()
    );
}

#[test]
fn beamer_slides_have_no_full_page_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = parse(
        &corpus("slides-metapostpropaganda.pdf"),
        &no_crops(),
        tmp.path(),
    )
    .unwrap();
    assert_eq!(doc.pages, 59);
    assert!(doc.pages_without_text.is_empty());
    let figures = doc
        .notes
        .iter()
        .filter(|n| n.kind != NoteKind::Text)
        .count();
    assert_eq!(figures, 0, "slides have no captions, so no figures");
    assert!(all_text(&doc).split_whitespace().count() > 500);
}

/// Text set at a quarter turn (axis labels of R plots, whole floats turned by hvfloat) is read
/// in its own direction, not glyph by glyph: each glyph of a label that reads upwards lies
/// above the last, which used to end the line after every letter ("2 e n o N d e v o").
#[test]
fn rotated_text_reads_as_words() {
    let vcd = parse(
        &corpus("vcd-strucplot.pdf"),
        &no_crops(),
        std::path::Path::new("/nonexistent"),
    )
    .unwrap();
    let mosaic = vcd
        .notes
        .iter()
        .find(|n| n.caption.as_deref() == Some("Figure 1: Mosaic plot for the Arthritis data."))
        .expect("the mosaic plot of page 4");
    for label in ["Improved", "None", "Some", "Marked", "Pearson residuals"] {
        assert!(
            mosaic.text.contains(label),
            "{label:?} not in {:?}",
            mosaic.text
        );
    }
    let hv = parse(
        &corpus("hvfloat.pdf"),
        &no_crops(),
        std::path::Path::new("/nonexistent"),
    )
    .unwrap();
    let text: String = hv
        .notes
        .iter()
        .filter(|n| n.page == Some(12))
        .map(|n| n.text.as_str())
        .collect();
    assert!(
        text.contains("It is no problem to rotate the object, too."),
        "the rotated float's text of hvfloat page 12 is not read as words"
    );
}

/// `name` among the documents of `../shared/eval/mmlb-dev/`, for a test that needs tesseract
/// (installed by `tools/ci-deps`): it fails, with a hint, without it.
fn ocr_test_file(name: &str) -> std::path::PathBuf {
    assert!(
        indexer_ingest::ocr_available(),
        "tesseract not found\nhint: run tools/ci-deps (Debian's tesseract-ocr and tesseract-ocr-eng)"
    );
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/eval/mmlb-dev/docs")
        .join(name)
}

/// A slide deck exported as images (no text layer at all) is read by OCR: tesseract, which
/// `tools/ci-deps` installs. Its slides become notes with their words and pages.
#[test]
fn a_deck_without_text_layer_is_read_by_ocr() {
    let deck =
        &ocr_test_file("germanwingsdigitalcrisisanalysis-150403064828-conversion-gate01_95.pdf");
    let d = parse(deck, &no_crops(), std::path::Path::new("/nonexistent")).unwrap();
    assert_eq!(d.pages, 23);
    assert!(
        d.pages_without_text.is_empty(),
        "{:?}",
        d.pages_without_text
    );
    assert!(
        d.warnings.iter().any(|w| w
            .message
            .contains("23 of 23 pages have no text layer; their text comes from OCR")),
        "{:?}",
        d.warnings
    );
    let first = d
        .notes
        .iter()
        .find(|n| n.page == Some(1))
        .expect("a note of the title slide");
    assert!(first.text.contains("GERMANWINGS 9525"), "{}", first.text);
    let text = all_text(&d);
    for words in ["Airbus A320", "Lufthansa", "Twitter"] {
        assert!(text.contains(words), "{words:?} not read from the deck");
    }
    let pages: HashSet<u32> = d.notes.iter().filter_map(|n| n.page).collect();
    assert!(
        pages.len() >= 10,
        "notes on only {} of 23 slides",
        pages.len()
    );
}

/// With `ocr_pictures`, a raster chart on a page with a text layer is read by OCR: the stock
/// performance graph of Netflix's 10-K (page 16) is a picture whose axis labels and legend
/// are in no text layer.
#[test]
fn raster_chart_words_are_read_with_ocr_pictures() {
    let report = &ocr_test_file("NETFLIX_2015_10K.pdf");
    let page_text = |opts: &indexer_ingest::IngestOptions| {
        let d = parse(report, opts, std::path::Path::new("/nonexistent")).unwrap();
        d.notes
            .iter()
            .filter(|n| n.page == Some(16))
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let plain = page_text(&no_crops());
    assert!(
        plain.contains("the total cumulative stockholder return"),
        "{plain}"
    );
    assert!(
        !plain.contains("$300.00"),
        "the chart's labels are in the text layer: {plain}"
    );
    let read = page_text(&indexer_ingest::IngestOptions {
        ocr_pictures: true,
        ..no_crops()
    });
    for words in ["$300.00", "12/31/13", "Netflix"] {
        assert!(
            read.contains(words),
            "{words:?} not read from the chart: {read}"
        );
    }
    // The page's own text is there once, not read a second time from the picture.
    assert_eq!(
        read.matches("the total cumulative stockholder return")
            .count(),
        plain
            .matches("the total cumulative stockholder return")
            .count()
    );
}
