//! Small PDFs written with pdfium, where every box is known.

use crate::{all_text, parse, pdfium};
use indexer_ingest::IngestOptions;
use indexer_notes::{LinkKind, NoteKind};
use pdfium_render::prelude::*;
use std::path::Path;

pub enum Item {
    Text(f32, f32, f32, &'static str),
    Owned(f32, f32, f32, String),
    Rect(f32, f32, f32, f32),
    Image(f32, f32, f32, f32),
    /// A given picture over the box (left, bottom, right, top).
    Picture(f32, f32, f32, f32, image::DynamicImage),
}

/// Writes a PDF with one page per `(width, height, items)`.
pub fn write_pdf(path: &Path, pages: Vec<(f32, f32, Vec<Item>)>) {
    let mut doc = pdfium().create_new_pdf().unwrap();
    let font = doc.fonts_mut().helvetica();
    for (w, h, items) in pages {
        let mut page = doc
            .pages_mut()
            .create_page_at_end(PdfPagePaperSize::Custom(
                PdfPoints::new(w),
                PdfPoints::new(h),
            ))
            .unwrap();
        for it in items {
            let objs = page.objects_mut();
            match it {
                Item::Text(x, y, size, s) => {
                    objs.create_text_object(
                        PdfPoints::new(x),
                        PdfPoints::new(y),
                        s,
                        font,
                        PdfPoints::new(size),
                    )
                    .unwrap();
                }
                Item::Owned(x, y, size, s) => {
                    objs.create_text_object(
                        PdfPoints::new(x),
                        PdfPoints::new(y),
                        s,
                        font,
                        PdfPoints::new(size),
                    )
                    .unwrap();
                }
                Item::Rect(l, b, r, t) => {
                    objs.create_path_object_rect(
                        PdfRect::new_from_values(b, l, t, r),
                        None,
                        None,
                        Some(PdfColor::GREY_50),
                    )
                    .unwrap();
                }
                Item::Picture(l, b, r, t, img) => picture(objs, (l, b, r, t), &img),
                Item::Image(l, b, r, t) => {
                    let img =
                        image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(64, 64, |x, y| {
                            image::Rgb([(x * 4) as u8, (y * 4) as u8, 128])
                        }));
                    picture(objs, (l, b, r, t), &img)
                }
            }
        }
    }
    doc.save_to_file(path).unwrap();
}

/// Places `img` over the box (left, bottom, right, top).
fn picture(
    objs: &mut PdfPageObjects,
    (l, b, r, t): (f32, f32, f32, f32),
    img: &image::DynamicImage,
) {
    objs.create_image_object(
        PdfPoints::new(l),
        PdfPoints::new(b),
        img,
        Some(PdfPoints::new(r - l)),
        Some(PdfPoints::new(t - b)),
    )
    .unwrap();
}

fn report_pages() -> Vec<(f32, f32, Vec<Item>)> {
    use Item::*;
    let furniture = |n: usize| {
        vec![
            Text(72.0, 760.0, 9.0, "Synthetic Report on Zebras"),
            Owned(300.0, 30.0, 9.0, n.to_string()),
        ]
    };
    let mut p1 = furniture(1);
    p1.extend([
        Text(72.0, 700.0, 16.0, "1 Introduction"),
        Text(
            72.0,
            676.0,
            10.0,
            "This report studies the zebra population of the valley",
        ),
        Text(
            72.0,
            664.0,
            10.0,
            "in detail, and Figure 1 shows the counts per year.",
        ),
        Text(72.0, 652.0, 10.0, "Counting happens each spring."),
        Rect(100.0, 300.0, 140.0, 400.0),
        Rect(150.0, 300.0, 190.0, 450.0),
        Rect(200.0, 300.0, 240.0, 350.0),
        Rect(250.0, 300.0, 290.0, 420.0),
        Text(72.0, 280.0, 9.0, "Figure 1: Zebra counts per year."),
    ]);
    let mut p2 = furniture(2);
    for k in 0..20 {
        let y = 700.0 - 14.0 * k as f32;
        p2.push(Owned(
            72.0,
            y,
            9.0,
            format!("Left column line {k:02} about stripes and herds."),
        ));
        p2.push(Owned(
            320.0,
            y,
            9.0,
            format!("Right column line {k:02} about grass and water."),
        ));
    }
    let mut p3 = furniture(3);
    p3.extend([
        Text(72.0, 700.0, 10.0, "Table 1: Herd sizes by valley."),
        Rect(72.0, 690.0, 400.0, 690.5),
        Text(80.0, 678.0, 9.0, "Herd A 12"),
        Rect(72.0, 670.0, 400.0, 670.5),
        Text(80.0, 655.0, 9.0, "Herd B 30"),
        Text(80.0, 640.0, 9.0, "Herd C 7"),
        Rect(72.0, 630.0, 400.0, 630.5),
        Text(72.0, 560.0, 10.0, "The herds of Table 1 grow every year."),
    ]);
    vec![(612.0, 792.0, p1), (612.0, 792.0, p2), (612.0, 792.0, p3)]
}

#[test]
fn synthetic_report_gives_exact_notes() {
    let tmp = tempfile::tempdir().unwrap();
    let pdf = tmp.path().join("report.pdf");
    write_pdf(&pdf, report_pages());
    let crops = tmp.path().join("crops");
    let doc = parse(&pdf, &IngestOptions::default(), &crops).unwrap();
    assert_eq!(doc.pages, 3);
    assert!(doc.pages_without_text.is_empty());
    let text = all_text(&doc);
    // Running header and page numbers are furniture.
    assert!(!text.contains("Synthetic Report"), "{text}");
    assert!(text.contains("This report studies the zebra population of the valley in detail, and Figure 1 shows the counts per year."));
    // Two columns: all of the left column, then the right one.
    let left_last = text.find("Left column line 19").unwrap();
    let right_first = text.find("Right column line 00").unwrap();
    assert!(left_last < right_first, "{text}");
    // The heading gives the section.
    let intro = doc
        .notes
        .iter()
        .find(|n| n.text.contains("zebra population"))
        .unwrap();
    assert_eq!(intro.section, ["1 Introduction"]);
    assert_eq!(intro.page, Some(1));

    let fig = doc
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::Figure)
        .expect("figure note");
    assert_eq!(fig.id, "report.pdf#f0");
    assert_eq!(
        fig.caption.as_deref(),
        Some("Figure 1: Zebra counts per year.")
    );
    assert_eq!(fig.page, Some(1));
    let b = fig.bbox[0];
    for (got, want) in [
        (b.left, 100.0),
        (b.bottom, 300.0),
        (b.right, 290.0),
        (b.top, 450.0),
    ] {
        assert!((got - want).abs() < 1.5, "figure box {b:?}");
    }
    let png = image::open(crops.join(fig.image.as_deref().unwrap())).unwrap();
    assert!(
        (png.width() as f32 - 198.0 * 150.0 / 72.0).abs() < 4.0,
        "{}",
        png.width()
    );
    assert!(
        intro
            .links
            .iter()
            .any(|l| l.kind == LinkKind::Reference && l.target == fig.id)
    );
    assert!(
        fig.links
            .iter()
            .any(|l| l.kind == LinkKind::Caption || l.kind == LinkKind::SamePage)
    );

    let table = doc
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::Table)
        .expect("table note");
    assert_eq!(table.id, "report.pdf#b0");
    assert_eq!(table.page, Some(3));
    assert!(
        table.text.contains("Herd A 12\nHerd B 30\nHerd C 7"),
        "{}",
        table.text
    );
    let tb = table.bbox[0];
    assert!(
        (tb.left - 72.0).abs() < 1.5 && (tb.right - 400.0).abs() < 1.5,
        "{tb:?}"
    );
    assert!(
        !text.contains("Herd B 30"),
        "table cells stay out of text chunks"
    );
    let mentions = doc
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::Text && n.text.contains("The herds of Table 1"))
        .unwrap();
    assert!(
        mentions
            .links
            .iter()
            .any(|l| l.kind == LinkKind::Reference && l.target == table.id)
    );
    assert!(
        doc.notes
            .iter()
            .all(|n| !n.summary.is_empty() && !n.keywords.is_empty())
    );
}

#[test]
fn very_large_page_parses_with_a_warning_and_bounded_crops() {
    use Item::*;
    let tmp = tempfile::tempdir().unwrap();
    let pdf = tmp.path().join("poster.pdf");
    let items = vec![
        Text(1000.0, 13000.0, 200.0, "A Poster About Zebras"),
        Rect(2000.0, 4000.0, 9000.0, 10000.0),
        Text(2000.0, 3880.0, 80.0, "Figure 1: The whole herd."),
    ];
    write_pdf(&pdf, vec![(14400.0, 14400.0, items)]);
    let crops = tmp.path().join("crops");
    let doc = parse(&pdf, &IngestOptions::default(), &crops).unwrap();
    assert!(
        doc.warnings.iter().any(|w| w.page == Some(1)
            && w.message.contains("very large")
            && w.message.contains("poster.pdf")),
        "{:?}",
        doc.warnings
    );
    let fig = doc
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::Figure)
        .expect("figure");
    let png = image::open(crops.join(fig.image.as_deref().unwrap())).unwrap();
    assert!(png.width() <= 6000 && png.height() <= 6000);
    assert!(png.width() > 100);
}
