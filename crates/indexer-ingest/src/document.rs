//! One file into a [`ParsedDocument`], in this process.

use crate::elements::PdfElements;
use crate::error::{Error, Result};
use crate::notes::{self, assemble, markup};
use crate::options::{FileType, IngestOptions, Progress, supported};
use crate::pdf::{self, CropSpec};
use indexer_notes::{ParsedDocument, TokenCounter};
use std::path::Path;

/// Parses one file into notes, in this process (for PDFs: with pdfium bound in this process;
/// see [`WorkerPool`](crate::WorkerPool) for many files). Figure crops go to `crop_dir` as
/// PNG files named by [`crop_file_prefix`](crate::crop_file_prefix).
///
/// The document's `hash` is left empty: the caller hashed the file already, to decide that it
/// needs parsing, and sets it (reading a large PDF a second time only to hash it again would
/// double the I/O of an ingest).
pub fn parse_file(
    path: &Path,
    doc_id: &str,
    opts: &IngestOptions,
    counter: &dyn TokenCounter,
    crop_dir: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<ParsedDocument> {
    let kind = supported(path).ok_or_else(|| Error::Unsupported {
        path: path.to_path_buf(),
    })?;
    match kind {
        FileType::Pdf => {
            let crops = crop_spec(opts, crop_dir)?;
            let el = pdf::extract_pdf(
                path,
                doc_id,
                crops.as_ref(),
                pdf::Reading::from(opts),
                &mut |page, pages| progress(Progress { page, pages }),
            )?;
            Ok(pdf_document(doc_id, el, opts, counter))
        }
        _ => {
            let doc = markup_document(path, doc_id, kind, opts, counter)?;
            progress(Progress { page: 1, pages: 1 });
            Ok(doc)
        }
    }
}

pub(crate) fn crop_spec(opts: &IngestOptions, crop_dir: &Path) -> Result<Option<CropSpec>> {
    if !opts.crops {
        return Ok(None);
    }
    std::fs::create_dir_all(crop_dir).map_err(|e| Error::io(crop_dir, e))?;
    Ok(Some(CropSpec {
        dir: crop_dir.to_path_buf(),
        dpi: opts.dpi,
    }))
}

pub(crate) fn pdf_document(
    doc_id: &str,
    el: PdfElements,
    opts: &IngestOptions,
    counter: &dyn TokenCounter,
) -> ParsedDocument {
    let (paras, figures) = assemble::paragraphs(&el);
    let mut notes = notes::build_notes(doc_id, &paras, &figures, opts, counter);
    let printed = pdf::page_numbers::printed_page_numbers(&el.pages);
    for n in &mut notes {
        n.page_label = n.page.and_then(|p| printed.get(&p).cloned());
    }
    ParsedDocument {
        doc: doc_id.to_string(),
        hash: String::new(),
        title: assemble::title(&el),
        pages: el.pages.len() as u32,
        pages_without_text: el.pages_without_text,
        ocr_pages: el.ocr_pages,
        unreadable_pages: el.unreadable_pages,
        notes,
        warnings: el.warnings,
    }
}

pub(crate) fn markup_document(
    path: &Path,
    doc_id: &str,
    kind: FileType,
    opts: &IngestOptions,
    counter: &dyn TokenCounter,
) -> Result<ParsedDocument> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let src = String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
        path: path.to_path_buf(),
    })?;
    Ok(parse_markup(&src, doc_id, kind, opts, counter))
}

/// Parses Markdown, HTML or text (`kind`; a PDF is read as text) from memory into notes, as
/// [`parse_file`] does for a file of that type.
pub fn parse_markup(
    src: &str,
    doc_id: &str,
    kind: FileType,
    opts: &IngestOptions,
    counter: &dyn TokenCounter,
) -> ParsedDocument {
    let m = match kind {
        FileType::Markdown => markup::markdown(src),
        FileType::Html => markup::html(src),
        _ => markup::text(src),
    };
    let notes = notes::build_notes(doc_id, &m.paras, &m.figures, opts, counter);
    ParsedDocument {
        doc: doc_id.to_string(),
        hash: String::new(),
        title: m.title,
        pages: 1,
        pages_without_text: Vec::new(),
        ocr_pages: Vec::new(),
        unreadable_pages: Vec::new(),
        notes,
        warnings: Vec::new(),
    }
}
