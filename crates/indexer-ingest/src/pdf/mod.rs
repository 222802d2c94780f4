//! The pdfium side: binding the library once per process and reading a PDF into page elements.

pub(crate) mod captions;
pub(crate) mod crops;
pub(crate) mod figures;
pub(crate) mod layout;
pub(crate) mod ocr;
pub(crate) mod page_numbers;
pub(crate) mod readable;
pub(crate) mod tables;
pub(crate) mod worker;

pub(crate) use crops::CropSpec;

use crate::elements::LARGE_PAGE_PT;
use crate::elements::{PageElements, PdfElements};
use crate::error::{Error, Result};
use indexer_notes::{BBox, Warning};
use layout::{CharEvent, rotate};
use pdfium_render::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

static PDFIUM: OnceLock<std::result::Result<Pdfium, String>> = OnceLock::new();

/// Binds pdfium from `library`, or from the runtime folder `indexer_runtime` finds when
/// `None`. The first call of a process decides: pdfium can be bound only once.
pub fn init_pdfium(library: Option<&Path>) -> Result<()> {
    pdfium_with(library).map(|_| ())
}

/// The process's pdfium binding, bound on first use. For tests and tools of this crate that
/// write or render PDFs; other crates go through the parsing API.
#[doc(hidden)]
pub fn pdfium() -> Result<&'static Pdfium> {
    pdfium_with(None)
}

fn pdfium_with(library: Option<&Path>) -> Result<&'static Pdfium> {
    let bound = PDFIUM.get_or_init(|| {
        let path = match library {
            Some(p) => p.to_path_buf(),
            None => indexer_runtime::Runtime::discover()
                .and_then(|rt| rt.pdfium_library())
                .map_err(|e| e.to_string())?,
        };
        Pdfium::bind_to_library(&path)
            .map(Pdfium::new)
            .map_err(|e| format!("cannot load {}: {e:?}", path.display()))
    });
    bound.as_ref().map_err(|detail| Error::PdfiumUnavailable {
        detail: detail.clone(),
    })
}

fn has_pdf_header(bytes: &[u8]) -> bool {
    // The spec allows junk before the header; readers accept it within the first 1024 bytes.
    let head = &bytes[..bytes.len().min(1024)];
    head.windows(5).any(|w| w == b"%PDF-")
}

fn has_eof_marker(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(2048)..];
    tail.windows(5).any(|w| w == b"%%EOF")
}

fn load_error(path: &Path, e: PdfiumError) -> Error {
    let path = path.to_path_buf();
    match e {
        PdfiumError::PdfiumLibraryInternalError(
            PdfiumInternalError::PasswordError | PdfiumInternalError::SecurityError,
        ) => Error::Encrypted { path },
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FormatError) => {
            Error::Corrupt {
                path,
                detail: "pdfium cannot parse its structure".into(),
            }
        }
        other => Error::Corrupt {
            path,
            detail: format!("{other:?}"),
        },
    }
}

/// What reading a PDF does besides its text, graphics and captions (the options of
/// [`IngestOptions`](crate::IngestOptions) that the worker needs).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reading {
    pub ocr_pictures: bool,
    pub aligned_tables: bool,
}

impl From<&crate::IngestOptions> for Reading {
    fn from(o: &crate::IngestOptions) -> Reading {
        Reading {
            ocr_pictures: o.ocr_pictures,
            aligned_tables: o.aligned_tables,
        }
    }
}

/// Reads a PDF into page elements. `progress(page, pages)` is called after each page.
pub(crate) fn extract_pdf(
    path: &Path,
    doc_id: &str,
    crops: Option<&CropSpec>,
    reading: Reading,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<PdfElements> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if !has_pdf_header(&bytes) {
        return Err(Error::NotPdf {
            path: path.to_path_buf(),
        });
    }
    let pdfium = pdfium()?;
    let doc = pdfium
        .load_pdf_from_byte_slice(&bytes, None)
        .map_err(|e| load_error(path, e))?;
    let n = doc.pages().len() as u32;
    if n == 0 {
        return Err(Error::NoPages {
            path: path.to_path_buf(),
        });
    }
    let mut warnings = Vec::new();
    if !has_eof_marker(&bytes) {
        warnings.push(Warning {
            page: None,
            message: format!(
                "{}: the file has no %%EOF marker and may be truncated; pages may be missing",
                path.display()
            ),
        });
    }
    let title = doc
        .metadata()
        .get(PdfDocumentMetadataTagType::Title)
        .map(|t| t.value().trim().to_string())
        .filter(|t| !t.is_empty());
    let mut pages = Vec::with_capacity(n as usize);
    let mut pages_without_text = Vec::new();
    let mut ocr_pages: Vec<u32> = Vec::new();
    // Pages whose text layer is unreadable (see `readable`): those OCR read, and those it
    // did not (no tesseract, no words found, or it failed, with the first error).
    let mut unreadable_read: Vec<u32> = Vec::new();
    let mut unreadable_left: Vec<u32> = Vec::new();
    let mut unreadable_error = String::new();
    let mut ocr_failed: Vec<u32> = Vec::new();
    let mut ocr_error = String::new();
    let mut picture_failed: Vec<u32> = Vec::new();
    let mut picture_error = String::new();
    let mut graphics_per_page = Vec::with_capacity(n as usize);
    for i in 0..n {
        let number = i + 1;
        let page = match doc.pages().get(i as i32) {
            Ok(p) => p,
            Err(e) => {
                warnings.push(Warning {
                    page: Some(number),
                    message: format!("{}: page {number} cannot be loaded ({e:?})", path.display()),
                });
                pages.push(PageElements {
                    page: number,
                    width: 0.0,
                    height: 0.0,
                    lines: Vec::new(),
                    regions: Vec::new(),
                });
                graphics_per_page.push(figures::PageGraphics {
                    graphics: Vec::new(),
                    turns: 0,
                });
                progress(number, n);
                continue;
            }
        };
        let (width, height) = (page.width().value, page.height().value);
        if width > LARGE_PAGE_PT || height > LARGE_PAGE_PT {
            warnings.push(Warning {
                page: Some(number),
                message: format!(
                    "{}: page {number} is very large ({width:.0} x {height:.0} pt); its crops are rendered at a lower resolution",
                    path.display()
                ),
            });
        }
        // Quarter turns of a /Rotate page, clockwise: lines and reading order are built as
        // the page is shown (landscape floats), then boxes go back to PDF user space.
        let turns = match page.rotation() {
            Ok(PdfPageRenderRotation::Degrees90) => 1,
            Ok(PdfPageRenderRotation::Degrees180) => 2,
            Ok(PdfPageRenderRotation::Degrees270) => 3,
            _ => 0,
        };
        let mut raw = match page.text() {
            Ok(text) => page_lines(&text, turns),
            Err(_) => Vec::new(),
        };
        let graphics = crate::pdf::figures::collect_graphics(&page, width, height);
        // A text layer whose characters are not the ones printed (a font without a correct
        // Unicode map) is dropped, and the page read as if it had none: indexing it would
        // make notes no question finds.
        let unreadable = !raw.is_empty() && readable::unreadable_text_layer(&page_text(&raw));
        if unreadable {
            raw.clear();
            // Read by OCR like a page without a text layer; without OCR (or when it reads
            // nothing) the page is one without text, and the bad layer is not indexed.
            match crate::pdf::ocr::program().map(|p| crate::pdf::ocr::page_lines(p, &page, turns)) {
                Some(Ok(read)) if !read.is_empty() => {
                    raw = read;
                    unreadable_read.push(number);
                }
                Some(Err(e)) => {
                    unreadable_error = e;
                    unreadable_left.push(number);
                }
                _ => unreadable_left.push(number),
            }
        } else if raw.is_empty() && !page.objects().is_empty() {
            // A page with neither text nor graphics is blank (chapter ends in books), not a
            // scan. One with graphics but no text layer is read by OCR when tesseract is there.
            match crate::pdf::ocr::program().map(|p| crate::pdf::ocr::page_lines(p, &page, turns)) {
                Some(Ok(read)) if read.is_empty() => pages_without_text.push(number),
                Some(Ok(read)) => {
                    raw = read;
                    ocr_pages.push(number);
                }
                Some(Err(e)) => {
                    if ocr_failed.is_empty() {
                        ocr_error = e;
                    }
                    ocr_failed.push(number);
                }
                None => pages_without_text.push(number),
            }
        } else if reading.ocr_pictures
            && !raw.is_empty()
            && let Some(program) = crate::pdf::ocr::program()
        {
            // Pictures on a page with a text layer whose words are not in it (raster
            // charts, diagrams, screenshots) are read by OCR into the page's lines, as a
            // vector chart's labels are in its text layer.
            let pictures = pictures_to_read(&graphics, &raw, turns, width * height);
            if !pictures.is_empty() {
                match crate::pdf::ocr::picture_lines(program, &page, &pictures, turns) {
                    Ok(mut read) => raw.append(&mut read),
                    Err(e) => {
                        if picture_failed.is_empty() {
                            picture_error = e;
                        }
                        picture_failed.push(number);
                    }
                }
            }
        }
        let mut lines = layout::reading_order(raw);
        for l in &mut lines {
            l.bbox = rotate(l.bbox, (4 - turns) % 4);
        }
        graphics_per_page.push(figures::PageGraphics { graphics, turns });
        pages.push(PageElements {
            page: number,
            width,
            height,
            lines,
            regions: Vec::new(),
        });
        progress(number, n);
    }
    layout::mark_furniture(&mut pages);
    figures::detect_regions(&mut pages, graphics_per_page, reading.aligned_tables);
    if let Some(spec) = crops {
        crops::write_crops(&doc, &mut pages, doc_id, spec, &mut warnings)?;
    }
    if !ocr_pages.is_empty() {
        warnings.push(Warning {
            page: ocr_pages.first().copied(),
            message: format!(
                "{}: {} of {n} pages have no text layer; their text comes from OCR (tesseract), which can misread",
                path.display(),
                ocr_pages.len(),
            ),
        });
    }
    if !unreadable_left.is_empty() {
        // Those OCR read are said in the ingest summary (`unreadable_pages`), with no warning:
        // their text is what is printed. These are pages without text.
        warnings.push(Warning {
            page: unreadable_left.first().copied(),
            message: format!(
                "{}: {} of {n} pages have a text layer whose characters are not the ones printed (pages {}); it is not indexed, and {}",
                path.display(),
                unreadable_left.len(),
                page_list(&unreadable_left),
                match crate::pdf::ocr::program() {
                    None => crate::pdf::ocr::unavailable_hint().to_string(),
                    Some(_) if unreadable_error.is_empty() => "OCR found no words on them".into(),
                    Some(_) => format!("OCR failed on them: {unreadable_error}"),
                }
            ),
        });
    }
    if !pages_without_text.is_empty() {
        warnings.push(Warning {
            page: pages_without_text.first().copied(),
            message: format!(
                "{}: {} of {n} pages have no text layer (pages {}); {}",
                path.display(),
                pages_without_text.len(),
                page_list(&pages_without_text),
                if crate::pdf::ocr::program().is_some() {
                    "OCR found no words on them"
                } else {
                    crate::pdf::ocr::unavailable_hint()
                }
            ),
        });
    }
    if !picture_failed.is_empty() {
        warnings.push(Warning {
            page: picture_failed.first().copied(),
            message: format!(
                "{}: OCR of the pictures on {} pages failed (pages {}); their words are not indexed: {picture_error}",
                path.display(),
                picture_failed.len(),
                page_list(&picture_failed),
            ),
        });
    }
    if !ocr_failed.is_empty() {
        warnings.push(Warning {
            page: ocr_failed.first().copied(),
            message: format!(
                "{}: {} of {n} pages have no text layer and OCR failed on them (pages {}): {ocr_error}",
                path.display(),
                ocr_failed.len(),
                page_list(&ocr_failed),
            ),
        });
        pages_without_text.extend(ocr_failed);
    }
    pages_without_text.extend(unreadable_left);
    pages_without_text.sort_unstable();
    Ok(PdfElements {
        title,
        pages,
        pages_without_text,
        ocr_pages: {
            let mut all = ocr_pages;
            all.extend(&unreadable_read);
            all.sort_unstable();
            all
        },
        unreadable_pages: unreadable_read,
        warnings,
    })
}

/// Pictures at least this share of the page are read by OCR when their text is not in the
/// text layer; smaller ones are icons, logos and photographs of people.
const MIN_PICTURE_SHARE: f32 = 0.03;
/// A picture with this many characters of the text layer over it has its words already
/// (a scan with a text layer, a chart with its labels set as text).
const PICTURE_TEXT_CHARS: usize = 20;
/// At most this many pictures of a page are read, the largest first.
const MAX_PICTURES: usize = 8;

/// The boxes (PDF user space) of the pictures of a page worth reading by OCR: raster images,
/// touching ones joined (tiled images), covering at least [`MIN_PICTURE_SHARE`] of the page,
/// with fewer than [`PICTURE_TEXT_CHARS`] characters of the text layer's `lines` (built in
/// the frame of the page turned by `turns`) over them.
fn pictures_to_read(
    graphics: &[crate::pdf::figures::Graphic],
    lines: &[crate::elements::TextLine],
    turns: u8,
    page_area: f32,
) -> Vec<BBox> {
    let mut boxes: Vec<BBox> = graphics
        .iter()
        .filter(|g| g.kind == crate::pdf::figures::GraphicKind::Image)
        .map(|g| g.bbox)
        .collect();
    // Join touching images (within 2 pt) until none touch.
    let mut joined = true;
    while joined {
        joined = false;
        'outer: for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if crate::pdf::figures::near(&boxes[i], &boxes[j], 2.0) {
                    boxes[i] = boxes[i].union(&boxes[j]);
                    boxes.swap_remove(j);
                    joined = true;
                    break 'outer;
                }
            }
        }
    }
    let mut out: Vec<BBox> = boxes
        .into_iter()
        .filter(|b| b.area() >= MIN_PICTURE_SHARE * page_area)
        .filter(|b| {
            let shown = rotate(*b, turns);
            let chars: usize = lines
                .iter()
                .filter(|l| {
                    let (cx, cy) = (
                        (l.bbox.left + l.bbox.right) / 2.0,
                        (l.bbox.bottom + l.bbox.top) / 2.0,
                    );
                    shown.left <= cx && cx <= shown.right && shown.bottom <= cy && cy <= shown.top
                })
                .map(|l| l.text.chars().count())
                .sum();
            chars < PICTURE_TEXT_CHARS
        })
        .collect();
    out.sort_by(|a, b| b.area().total_cmp(&a.area()));
    out.truncate(MAX_PICTURES);
    out
}

/// A page's text as the lines built from its text layer give it, one line a line.
fn page_text(lines: &[crate::elements::TextLine]) -> String {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.text);
        text.push('\n');
    }
    text
}

/// Page numbers for a message: the first 20, then "...".
fn page_list(pages: &[u32]) -> String {
    let mut list: Vec<String> = pages.iter().take(20).map(|p| p.to_string()).collect();
    if pages.len() > 20 {
        list.push("...".into());
    }
    list.join(", ")
}

fn page_lines(text: &PdfPageText, turns: u8) -> Vec<crate::elements::TextLine> {
    let chars = text.chars();
    let events = chars.iter().filter_map(|ch| {
        CharEvent::classify(ch.unicode_value(), || {
            let r = ch.loose_bounds().ok()?;
            let mut b = BBox::new(
                r.left().value,
                r.bottom().value,
                r.right().value,
                r.top().value,
            );
            if b.width() <= 0.0 || b.height() <= 0.0 {
                let t = ch.tight_bounds().ok()?;
                b = BBox::new(
                    t.left().value,
                    t.bottom().value,
                    t.right().value,
                    t.top().value,
                );
            }
            let mut size = ch.unscaled_font_size().value;
            if size <= 1.0 {
                size = ch.scaled_font_size().value;
            }
            let upright = layout::glyph_turns(ch.angle_radians().unwrap_or(0.0), turns);
            Some((rotate(b, turns), size, upright))
        })
    });
    layout::build_lines(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_round_trip() {
        let b = BBox::new(10.0, 20.0, 30.0, 60.0);
        for t in 0..4u8 {
            assert_eq!(rotate(rotate(b, t), (4 - t) % 4), b);
        }
        // A line running up the page (x fixed, y growing) reads left to right after one turn.
        let lower = rotate(BBox::new(100.0, 100.0, 110.0, 110.0), 1);
        let upper = rotate(BBox::new(100.0, 120.0, 110.0, 130.0), 1);
        assert!(upper.left > lower.right && (upper.bottom - lower.bottom).abs() < 1e-3);
    }

    #[test]
    fn pictures_to_read_are_large_images_without_text_over_them() {
        use crate::elements::{LineRole, TextLine};
        use crate::pdf::figures::{Graphic, GraphicKind};
        let image = |l, b, r, t| Graphic {
            bbox: BBox::new(l, b, r, t),
            kind: GraphicKind::Image,
        };
        let line = |text: &str, b: BBox| TextLine {
            text: text.into(),
            bbox: b,
            size: 10.0,
            hyphen: false,
            block_start: false,
            role: LineRole::Body,
            words: Vec::new(),
        };
        let page_area = 600.0 * 800.0;
        let graphics = vec![
            // Two tiles of one chart, touching: read as one.
            image(100.0, 500.0, 300.0, 700.0),
            image(300.0, 500.0, 500.0, 700.0),
            // An icon: too small.
            image(50.0, 50.0, 80.0, 80.0),
            // A scan with its text layer over it.
            image(100.0, 100.0, 500.0, 400.0),
            // A vector shape of the same size: not a picture.
            Graphic {
                bbox: BBox::new(100.0, 420.0, 500.0, 490.0),
                kind: GraphicKind::Shape,
            },
        ];
        let lines = vec![
            line(
                "Words that the text layer has over the scan",
                BBox::new(120.0, 200.0, 480.0, 212.0),
            ),
            line("x", BBox::new(200.0, 600.0, 206.0, 610.0)),
        ];
        assert_eq!(
            pictures_to_read(&graphics, &lines, 0, page_area),
            [BBox::new(100.0, 500.0, 500.0, 700.0)]
        );
        // On a page shown turned, the lines are in the turned frame.
        let turned: Vec<TextLine> = lines
            .iter()
            .map(|l| line(&l.text, rotate(l.bbox, 1)))
            .collect();
        assert_eq!(
            pictures_to_read(&graphics, &turned, 1, page_area),
            [BBox::new(100.0, 500.0, 500.0, 700.0)]
        );
    }
}
