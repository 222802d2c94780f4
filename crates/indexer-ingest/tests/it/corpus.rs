use crate::synthetic::{Item, write_pdf};
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
        // The parts of a long table are notes with the table's boxes: one table.
        let mut figures: Vec<&indexer_notes::Note> = Vec::new();
        for n in doc.notes.iter().filter(|n| n.kind != NoteKind::Text) {
            if !figures.iter().any(|f| f.page == n.page && f.bbox == n.bbox) {
                figures.push(n);
            }
        }
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
        .filter(|n| n.kind == NoteKind::Figure)
        .count();
    assert_eq!(figures, 0, "slides have no captions, so no figures");
    assert!(doc.notes.iter().all(|n| n.kind == NoteKind::Text));
    // With aligned tables, tables need no caption: slide 17's table of colours is found from
    // its columns, a row a line.
    let opts = indexer_ingest::IngestOptions {
        aligned_tables: true,
        ..no_crops()
    };
    let doc = parse(&corpus("slides-metapostpropaganda.pdf"), &opts, tmp.path()).unwrap();
    let colours = doc
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::Table && n.page == Some(17))
        .expect("the table of colours");
    assert!(
        colours.text.contains("black | (0,0,0)\nred | (1,0,0)"),
        "{}",
        colours.text
    );
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

/// Fails with a hint when tesseract (installed by `tools/test`) is missing.
fn need_tesseract() {
    assert!(
        indexer_ingest::ocr_available(),
        "tesseract not found\nhint: run tools/test-deps (Debian's tesseract-ocr and tesseract-ocr-eng)"
    );
}

/// Page `number` (1-based) of a real PDF rendered at `dpi`, with the page's size in points.
fn render(pdf: &std::path::Path, number: i32, dpi: f32) -> (f32, f32, image::DynamicImage) {
    use pdfium_render::prelude::*;
    let doc = crate::pdfium().load_pdf_from_file(pdf, None).unwrap();
    let page = doc.pages().get(number - 1).unwrap();
    let img = page
        .render_with_config(&PdfRenderConfig::new().scale_page_by_factor(dpi / 72.0))
        .and_then(|b| b.as_image())
        .unwrap();
    (page.width().value, page.height().value, img)
}

/// Words of five letters or more, lower-cased: what OCR of a clean page should get right.
fn long_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 5)
        .map(str::to_lowercase)
        .collect()
}

/// A PDF without a text layer (a scan: every page one picture, rendered here from the pages
/// of a real paper) is read by OCR, which `tools/test` installs: the OCR text has nearly every
/// word of the paper's own text layer, on the right pages.
#[test]
fn a_scan_without_text_layer_is_read_by_ocr() {
    need_tesseract();
    let paper = corpus("revtex-apssamp.pdf");
    let tmp = tempfile::tempdir().unwrap();
    let pages: Vec<_> = (1..=2).map(|n| render(&paper, n, 200.0)).collect();
    let scan = tmp.path().join("scan.pdf");
    write_pdf(
        &scan,
        pages
            .into_iter()
            .map(|(w, h, img)| (w, h, vec![Item::Picture(0.0, 0.0, w, h, img)]))
            .collect(),
    );
    let original = parse(&paper, &no_crops(), tmp.path()).unwrap();
    let read = parse(&scan, &no_crops(), tmp.path()).unwrap();
    assert_eq!(read.pages, 2);
    assert!(
        read.pages_without_text.is_empty(),
        "{:?}",
        read.pages_without_text
    );
    assert!(
        read.warnings.iter().any(|w| w
            .message
            .contains("2 of 2 pages have no text layer; their text comes from OCR")),
        "{:?}",
        read.warnings
    );
    // Chunks cross pages, so the words are compared over the two pages together; each page
    // has notes of its own.
    let words_of = |d: &indexer_notes::ParsedDocument| {
        let t: Vec<&str> = d
            .notes
            .iter()
            .filter(|n| n.page.is_some_and(|p| p <= 2) && n.kind == NoteKind::Text)
            .map(|n| n.text.as_str())
            .collect();
        long_words(&t.join(" "))
    };
    let (want, got) = (words_of(&original), words_of(&read));
    let found = want.intersection(&got).count();
    assert!(
        want.len() > 100 && found * 100 >= want.len() * 90,
        "OCR found {found} of {} words of the text layer; missed {:?}",
        want.len(),
        want.difference(&got).take(20).collect::<Vec<_>>()
    );
    for page in [1, 2] {
        assert!(
            read.notes.iter().any(|n| n.page == Some(page)),
            "no note on page {page}"
        );
    }
}

/// With `ocr_pictures`, a raster picture on a page with a text layer is read by OCR: here a
/// picture of a real paper's title block (rendered, so its words are in no text layer) under a
/// line of real text.
#[test]
fn picture_words_are_read_with_ocr_pictures() {
    need_tesseract();
    let paper = corpus("revtex-apssamp.pdf");
    let tmp = tempfile::tempdir().unwrap();
    // The top third of the first page: the title, authors and affiliations.
    let (w, h, page) = render(&paper, 1, 200.0);
    let px = page.width() as f32 / w;
    let (crop_w, crop_h) = (page.width(), (page.height() as f32 / 3.0) as u32);
    let picture = page.crop_imm(0, 0, crop_w, crop_h);
    let title_words = {
        let original = parse(&paper, &no_crops(), tmp.path()).unwrap();
        let first = original
            .notes
            .iter()
            .find(|n| n.page == Some(1))
            .expect("a note on page 1");
        long_words(first.text.split('\n').next().unwrap_or(""))
    };
    assert!(title_words.len() >= 3, "{title_words:?}");
    let file = tmp.path().join("page.pdf");
    let line = "The quarterly summary below shows the figures of every office";
    let (pic_w, pic_h) = (crop_w as f32 / px, crop_h as f32 / px);
    write_pdf(
        &file,
        vec![(
            w,
            h,
            vec![
                Item::Text(72.0, h - 72.0, 11.0, line),
                Item::Picture(0.0, h - 120.0 - pic_h, pic_w, h - 120.0, picture),
            ],
        )],
    );
    let page_text = |opts: &indexer_ingest::IngestOptions| {
        let d = parse(&file, opts, tmp.path()).unwrap();
        d.notes
            .iter()
            .filter(|n| n.page == Some(1))
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let plain = page_text(&no_crops());
    assert!(plain.contains(line), "{plain}");
    assert!(
        long_words(&plain).is_disjoint(&title_words),
        "the picture's words are in the text layer: {plain}"
    );
    let read = page_text(&indexer_ingest::IngestOptions {
        ocr_pictures: true,
        ..no_crops()
    });
    let found = long_words(&read);
    assert!(
        title_words.iter().all(|w| found.contains(w)),
        "{title_words:?} not all read from the picture: {read}"
    );
    // The page's own text is there once, not read a second time from the picture.
    assert_eq!(read.matches(line).count(), plain.matches(line).count());
}
