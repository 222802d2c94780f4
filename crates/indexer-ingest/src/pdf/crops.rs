//! Crops of figure and table regions: where they are written, how they are named, and the
//! removal of the crops a document no longer has. The one place that knows crop file names;
//! the index owns the folder (`Writer::crop_dir`) and the engine serves from it.

use crate::elements::{LARGE_PAGE_PT, PageElements};
use crate::error::{Error, Result};
use indexer_notes::Warning;
use pdfium_render::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Crops never exceed this many pixels on a side.
const MAX_RENDER_PX: f32 = 6000.0;

/// Where and how figure crops are written.
#[derive(Debug, Clone)]
pub(crate) struct CropSpec {
    pub dir: PathBuf,
    pub dpi: f32,
}

/// The prefix of every crop file name of document `doc_id`: 16 hex digits of the sha256 of
/// the id. Crops are `<prefix>-f<n>.png` (figures) and `<prefix>-b<n>.png` (tables), so a
/// re-ingest can delete a document's old crops by prefix.
pub fn crop_file_prefix(doc_id: &str) -> String {
    indexer_notes::content_hash(doc_id.as_bytes())[..16].to_string()
}

/// Deletes the crops of document `doc_id` in `dir` that are not in `keep` (file names). A
/// reader still on an older generation may then miss such an image (a 404 for the server),
/// never get a wrong one: crop names are unique per document and figure.
pub fn remove_stale_crops(dir: &Path, doc_id: &str, keep: &BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let dash = format!("{}-", crop_file_prefix(doc_id));
    for e in entries.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(&dash) && !keep.contains(&name) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Renders each page that has regions and writes one PNG per region (the graphic plus a
/// small margin).
pub(crate) fn write_crops(
    doc: &PdfDocument,
    pages: &mut [PageElements],
    doc_id: &str,
    spec: &CropSpec,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let prefix = crop_file_prefix(doc_id);
    for page in pages.iter_mut().filter(|p| !p.regions.is_empty()) {
        let Ok(pdf_page) = doc.pages().get(page.page as i32 - 1) else {
            continue;
        };
        let mut scale = spec.dpi / 72.0;
        let longest = page.width.max(page.height).max(1.0);
        if longest * scale > MAX_RENDER_PX || longest > LARGE_PAGE_PT {
            scale = scale.min(MAX_RENDER_PX / longest);
        }
        let config = PdfRenderConfig::new().scale_page_by_factor(scale);
        let image = match pdf_page
            .render_with_config(&config)
            .and_then(|b| b.as_image())
        {
            Ok(img) => img,
            Err(e) => {
                warnings.push(Warning {
                    page: Some(page.page),
                    message: format!(
                        "{doc_id}: page {} cannot be rendered for crops ({e:?})",
                        page.page
                    ),
                });
                continue;
            }
        };
        let (iw, ih) = (image.width() as i32, image.height() as i32);
        for r in &mut page.regions {
            let m = 4.0;
            let corner = |x: f32, y: f32| {
                pdf_page.points_to_pixels(PdfPoints::new(x), PdfPoints::new(y), &config)
            };
            let (Ok((x0, y0)), Ok((x1, y1))) = (
                corner(r.bbox.left - m, r.bbox.top + m),
                corner(r.bbox.right + m, r.bbox.bottom - m),
            ) else {
                continue;
            };
            let (xa, xb) = (x0.min(x1).clamp(0, iw), x0.max(x1).clamp(0, iw));
            let (ya, yb) = (y0.min(y1).clamp(0, ih), y0.max(y1).clamp(0, ih));
            if xb - xa < 2 || yb - ya < 2 {
                continue;
            }
            let crop = image.crop_imm(xa as u32, ya as u32, (xb - xa) as u32, (yb - ya) as u32);
            let name = format!("{prefix}-{}{}.png", r.kind.tag(), r.ordinal);
            let path = spec.dir.join(&name);
            crop.to_rgb8()
                .save_with_format(&path, image::ImageFormat::Png)
                .map_err(|e| Error::Crop {
                    path: path.clone(),
                    detail: e.to_string(),
                })?;
            r.image = Some(name);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_crops_of_one_document_go_and_the_rest_stay() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (crop_file_prefix("a.pdf"), crop_file_prefix("b.pdf"));
        for name in [
            format!("{a}-f0.png"),
            format!("{a}-f1.png"),
            format!("{b}-f0.png"),
        ] {
            std::fs::write(t.path().join(name), b"png").unwrap();
        }
        let keep: BTreeSet<String> = [format!("{a}-f1.png")].into_iter().collect();
        remove_stale_crops(t.path(), "a.pdf", &keep);
        let mut left: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = vec![format!("{a}-f1.png"), format!("{b}-f0.png")];
        want.sort();
        assert_eq!(left, want);
    }
}
