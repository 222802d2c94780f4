//! One file into a [`ParsedDocument`], in this process.

use crate::elements::PdfElements;
use crate::error::{Error, Result};
use crate::options::{FileType, IngestOptions, Progress, supported};
use crate::pdf::{self, CropSpec};
use crate::{assemble, markup, notes};
use indexer_notes::{ParsedDocument, TokenCounter, content_hash};
use std::path::Path;

/// Parses one file into notes, in this process (for PDFs: with pdfium bound in this process;
/// see [`WorkerPool`](crate::WorkerPool) for many files). Figure crops go to `crop_dir` as
/// PNG files named by [`crop_file_prefix`](crate::crop_file_prefix).
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
            let hash = hash_file(path)?;
            let crops = crop_spec(opts, crop_dir)?;
            let el = pdf::extract_pdf(
                path,
                doc_id,
                crops.as_ref(),
                opts.ocr_pictures,
                &mut |page, pages| progress(Progress { page, pages }),
            )?;
            Ok(pdf_document(doc_id, hash, el, opts, counter))
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

pub(crate) fn hash_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(content_hash(&bytes))
}

pub(crate) fn pdf_document(
    doc_id: &str,
    hash: String,
    el: PdfElements,
    opts: &IngestOptions,
    counter: &dyn TokenCounter,
) -> ParsedDocument {
    let (paras, figures) = assemble::paragraphs(&el);
    let notes = notes::build_notes(doc_id, &paras, &figures, opts, counter);
    ParsedDocument {
        doc: doc_id.to_string(),
        hash,
        title: assemble::title(&el),
        pages: el.pages.len() as u32,
        pages_without_text: el.pages_without_text,
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
    let hash = content_hash(&bytes);
    let src = String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
        path: path.to_path_buf(),
    })?;
    let m = match kind {
        FileType::Markdown => markup::markdown(&src),
        FileType::Html => markup::html(&src),
        _ => markup::text(&src),
    };
    let notes = notes::build_notes(doc_id, &m.paras, &m.figures, opts, counter);
    Ok(ParsedDocument {
        doc: doc_id.to_string(),
        hash,
        title: m.title,
        pages: 1,
        pages_without_text: Vec::new(),
        notes,
        warnings: Vec::new(),
    })
}
