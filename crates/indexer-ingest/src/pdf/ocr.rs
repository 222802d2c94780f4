//! OCR of pages without a text layer (slide decks exported as images, scans), by tesseract,
//! run as a separate program: Debian's `tesseract-ocr` with `tesseract-ocr-eng`. The page is
//! rendered by pdfium in grey at 300 dpi, piped to tesseract as PNG, and tesseract's TSV (one
//! row per word, with its box and its block, paragraph and line numbers) becomes text lines
//! that go through the same reading order, chunking and figure pairing as a text layer.
//!
//! `INDEXER_TESSERACT` names the program (`off` turns OCR off); without it, `tesseract` is
//! looked up on `PATH`. Without the program, such pages are reported as needing OCR.

use crate::elements::{LineRole, TextLine};
use crate::pdf::layout::rotate;
use indexer_notes::BBox;
use pdfium_render::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Resolution of the page image given to tesseract, which reads best at about 300 dpi.
const OCR_DPI: f32 = 300.0;
/// The longest side of that image; larger pages are rendered at a lower resolution.
const MAX_OCR_PX: f32 = 5000.0;
/// Pictures smaller than this many pixels a side (at [`OCR_DPI`]) are not read.
const MIN_PICTURE_PX: u32 = 120;
/// Words tesseract is less sure of (0-100) are dropped: on photographs and charts it reads
/// texture as short nonsense words, mostly below this.
const MIN_CONFIDENCE: f32 = 40.0;

/// The environment variable naming the tesseract program, or `off`.
pub const TESSERACT_ENV: &str = "INDEXER_TESSERACT";

/// The tesseract program to use, if any: found once per process.
pub(crate) fn program() -> Option<&'static Path> {
    static PROGRAM: OnceLock<Option<PathBuf>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| match std::env::var_os(TESSERACT_ENV) {
            Some(v) if v == "off" || v.is_empty() => None,
            Some(v) if Path::new(&v).components().count() > 1 => {
                Some(PathBuf::from(v)).filter(|p| p.is_file())
            }
            Some(name) => on_path(Path::new(&name)),
            None => on_path(Path::new("tesseract")),
        })
        .as_deref()
}

/// The first file called `name` in a folder of `PATH`.
fn on_path(name: &Path) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether pages without a text layer will be read by OCR (tesseract found, or named in
/// `INDEXER_TESSERACT`).
pub fn ocr_available() -> bool {
    program().is_some()
}

/// What to tell the user about pages without a text layer when OCR is not available.
pub(crate) fn unavailable_hint() -> &'static str {
    match std::env::var_os(TESSERACT_ENV) {
        Some(v) if v == "off" || v.is_empty() => "they need OCR, which INDEXER_TESSERACT turns off",
        Some(_) => "they need OCR, and the program INDEXER_TESSERACT names is not found",
        None => {
            "they need OCR: install tesseract (Debian: tesseract-ocr tesseract-ocr-eng) or name it in INDEXER_TESSERACT"
        }
    }
}

/// A page rendered in grey for OCR, with the configuration that maps its pixels to points.
struct Render<'a> {
    page: &'a PdfPage<'a>,
    config: PdfRenderConfig,
    image: image::GrayImage,
}

impl<'a> Render<'a> {
    fn new(page: &'a PdfPage<'a>) -> Result<Self, String> {
        let longest = page.width().value.max(page.height().value).max(1.0);
        let scale = (OCR_DPI / 72.0).min(MAX_OCR_PX / longest);
        let config = PdfRenderConfig::new()
            .scale_page_by_factor(scale)
            .use_grayscale_rendering(true);
        let image = page
            .render_with_config(&config)
            .and_then(|b| b.as_image())
            .map_err(|e| format!("cannot render the page ({e:?})"))?
            .to_luma8();
        Ok(Render {
            page,
            config,
            image,
        })
    }

    /// The pixel box `(x, y, width, height)` of `b` (page points) in the image, if it is at
    /// least `min_px` on each side.
    fn pixel_box(&self, b: &BBox, min_px: u32) -> Option<(u32, u32, u32, u32)> {
        let corner = |x: f32, y: f32| {
            self.page
                .points_to_pixels(PdfPoints::new(x), PdfPoints::new(y), &self.config)
                .ok()
        };
        let (x0, y0) = corner(b.left, b.top)?;
        let (x1, y1) = corner(b.right, b.bottom)?;
        let (w, h) = (self.image.width() as i32, self.image.height() as i32);
        let (l, r) = (x0.min(x1).clamp(0, w), x0.max(x1).clamp(0, w));
        let (t, bt) = (y0.min(y1).clamp(0, h), y0.max(y1).clamp(0, h));
        let (pw, ph) = ((r - l) as u32, (bt - t) as u32);
        (pw >= min_px && ph >= min_px).then_some((l as u32, t as u32, pw, ph))
    }

    /// OCR of the part of the image at pixel `(x, y)` of size `w` x `h`: lines in page
    /// points (PDF user space).
    fn read(
        &self,
        program: &Path,
        (x, y, w, h): (u32, u32, u32, u32),
    ) -> Result<Vec<TextLine>, String> {
        let part = image::imageops::crop_imm(&self.image, x, y, w, h).to_image();
        let mut png = Vec::new();
        part.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .map_err(|e| format!("cannot encode the page image ({e})"))?;
        let tsv = run(program, &png)?;
        let to_points = |px: i32, py: i32| -> Option<(f32, f32)> {
            let (a, b) = self
                .page
                .pixels_to_points(px + x as i32, py + y as i32, &self.config)
                .ok()?;
            Some((a.value, b.value))
        };
        Ok(lines_from_tsv(&tsv, |left, top, right, bottom| {
            let (x0, y0) = to_points(left, top)?;
            let (x1, y1) = to_points(right, bottom)?;
            Some(BBox::new(x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)))
        }))
    }
}

/// Reads the text of `page` by OCR: lines in the frame of a page shown turned by `turns`
/// quarter turns (as the text layer's lines are built), not yet in reading order.
pub(crate) fn page_lines(
    program: &Path,
    page: &PdfPage,
    turns: u8,
) -> Result<Vec<TextLine>, String> {
    let render = Render::new(page)?;
    let (w, h) = (render.image.width(), render.image.height());
    let mut lines = render.read(program, (0, 0, w, h))?;
    for l in &mut lines {
        l.bbox = rotate(l.bbox, turns);
    }
    Ok(lines)
}

/// Reads the text inside the pictures at `boxes` (page points) of `page` by OCR, one render
/// of the page for all: lines in the frame of the page shown turned by `turns`, not yet in
/// reading order. Pictures under [`MIN_PICTURE_PX`] pixels a side are left alone.
pub(crate) fn picture_lines(
    program: &Path,
    page: &PdfPage,
    boxes: &[BBox],
    turns: u8,
) -> Result<Vec<TextLine>, String> {
    let render = Render::new(page)?;
    let mut lines = Vec::new();
    for b in boxes {
        let Some(px) = render.pixel_box(b, MIN_PICTURE_PX) else {
            continue;
        };
        let mut read = render.read(program, px)?;
        if let Some(first) = read.first_mut() {
            first.block_start = true;
        }
        lines.append(&mut read);
    }
    for l in &mut lines {
        l.bbox = rotate(l.bbox, turns);
    }
    Ok(lines)
}

/// Runs tesseract on a PNG given on its standard input and returns its TSV output.
fn run(program: &Path, png: &[u8]) -> Result<String, String> {
    let mut child = Command::new(program)
        .args(["stdin", "stdout", "-l", "eng", "--psm", "3", "tsv"])
        // One thread each: ingest already runs one PDF worker per core.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {} ({e})", program.display()))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let output = std::thread::scope(|s| {
        // Write from another thread: tesseract may fill its output pipe before it has read
        // all of its input.
        let writer = s.spawn(move || stdin.write_all(png));
        let out = child.wait_with_output();
        let written = writer.join().unwrap_or(Ok(()));
        out.map(|o| (o, written))
    })
    .map_err(|e| format!("{} failed ({e})", program.display()))?;
    let (out, written) = output;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!(
            "{} exited with {} ({})",
            program.display(),
            out.status,
            last.trim()
        ));
    }
    written.map_err(|e| format!("cannot write the page image to tesseract ({e})"))?;
    String::from_utf8(out.stdout).map_err(|_| "tesseract wrote text that is not UTF-8".into())
}

/// Text lines from tesseract's TSV: the words (level 5) of each (block, paragraph, line),
/// in tesseract's order, with `bbox(left, top, right, bottom)` mapping pixel corners to page
/// points. A line's size is its height, as a font size would be. The first line of each
/// paragraph starts a block.
pub(crate) fn lines_from_tsv(
    tsv: &str,
    bbox: impl Fn(i32, i32, i32, i32) -> Option<BBox>,
) -> Vec<TextLine> {
    let mut out: Vec<TextLine> = Vec::new();
    let mut current: Option<((u32, u32, u32), TextLine)> = None;
    let mut last_par = None;
    let mut finish = |cur: Option<((u32, u32, u32), TextLine)>, out: &mut Vec<TextLine>| {
        if let Some((key, mut line)) = cur {
            line.block_start = last_par != Some((key.0, key.1));
            last_par = Some((key.0, key.1));
            line.size = line.bbox.height() * 0.8;
            out.push(line);
        }
    };
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        if f.len() < 12 || f[0] != "5" {
            continue;
        }
        let num = |i: usize| f[i].parse::<i32>().ok();
        let (Some(block), Some(par), Some(line), Some(l), Some(t), Some(w), Some(h)) =
            (num(2), num(3), num(4), num(6), num(7), num(8), num(9))
        else {
            continue;
        };
        let conf: f32 = f[10].parse().unwrap_or(-1.0);
        let word = f[11].trim();
        if word.is_empty() || conf < MIN_CONFIDENCE {
            continue;
        }
        let Some(b) = bbox(l, t, l + w, t + h) else {
            continue;
        };
        let key = (block as u32, par as u32, line as u32);
        match &mut current {
            Some((k, cur)) if *k == key => {
                cur.text.push(' ');
                cur.text.push_str(word);
                cur.bbox = cur.bbox.union(&b);
                cur.words.push((b.left, b.right));
            }
            _ => {
                finish(current.take(), &mut out);
                current = Some((
                    key,
                    TextLine {
                        text: word.to_string(),
                        bbox: b,
                        size: 0.0,
                        hyphen: false,
                        block_start: false,
                        role: LineRole::Body,
                        words: vec![(b.left, b.right)],
                    },
                ));
            }
        }
    }
    finish(current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n";

    /// A TSV row: `level`, (block, paragraph, line), top-left corner, confidence, text.
    fn row(
        level: u32,
        (b, p, l): (u32, u32, u32),
        (x, y): (i32, i32),
        conf: f32,
        text: &str,
    ) -> String {
        format!("{level}\t1\t{b}\t{p}\t{l}\t1\t{x}\t{y}\t40\t20\t{conf}\t{text}\n")
    }

    #[test]
    fn words_group_into_lines_and_paragraphs_start_blocks() {
        let mut tsv = HEAD.to_string();
        tsv += &row(1, (0, 0, 0), (0, 0), -1.0, ""); // page row
        tsv += &row(5, (1, 1, 1), (100, 100), 96.0, "Digital");
        tsv += &row(5, (1, 1, 1), (150, 100), 91.0, "crisis");
        tsv += &row(5, (1, 1, 2), (100, 130), 90.0, "analysis");
        tsv += &row(5, (1, 1, 2), (150, 130), 12.0, "~~"); // unsure: dropped
        tsv += &row(5, (2, 1, 1), (100, 300), 88.0, "Germanwings");
        tsv += &row(5, (2, 1, 1), (160, 300), 80.0, " ");
        // Pixels to points at 1:1 with the origin at the top of a 1000 px page.
        let lines = lines_from_tsv(&tsv, |l, t, r, b| {
            Some(BBox::new(
                l as f32,
                1000.0 - b as f32,
                r as f32,
                1000.0 - t as f32,
            ))
        });
        let texts: Vec<_> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Digital crisis", "analysis", "Germanwings"]);
        let starts: Vec<_> = lines.iter().map(|l| l.block_start).collect();
        assert_eq!(starts, [true, false, true]);
        assert_eq!(lines[0].bbox, BBox::new(100.0, 880.0, 190.0, 900.0));
        assert_eq!(lines[0].size, 16.0);
    }

    #[test]
    fn malformed_rows_are_skipped() {
        let tsv = format!(
            "{HEAD}5\t1\tx\n5\t1\t1\t1\t1\t1\t1\t1\t1\t1\t99\n{}",
            row(5, (1, 1, 1), (0, 0), 99.0, "ok")
        );
        let lines = lines_from_tsv(&tsv, |l, t, r, b| {
            Some(BBox::new(l as f32, t as f32, r as f32, b as f32))
        });
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text, "ok");
    }
}
