//! Ingestion: PDFs, Markdown, HTML and plain text into the notes of `indexer_notes`.
//!
//! PDFs are read with pdfium (bound once per process from the runtime folder) into page
//! elements: text lines built from character boxes in reading order (two columns handled),
//! running headers and footers, and figure/table regions paired with their captions and
//! cropped to PNG files. Elements become notes in the calling process: text chunks sized by
//! the caller's token counter, figure and table notes with local context, links, extractive
//! summaries and TF-IDF keywords.
//!
//! pdfium is not thread-safe, so many PDFs are parsed in worker processes: [`WorkerPool`]
//! runs a command that calls [`run_worker`] (the `indexer` binary's hidden `__pdf-worker`
//! subcommand, or this crate's `indexer-pdf-worker` binary). A crash or hang fails that file
//! only.
//!
//! ```no_run
//! use indexer_ingest::{IngestOptions, parse_file};
//! use indexer_notes::WordCounter;
//! use std::path::Path;
//! let opts = IngestOptions::default();
//! let doc = parse_file(Path::new("paper.pdf"), "paper.pdf", &opts, &WordCounter,
//!     Path::new("crops"), &mut |p| eprintln!("page {}/{}", p.page, p.pages))?;
//! println!("{} notes, {} pages without text", doc.notes.len(), doc.pages_without_text.len());
//! # Ok::<(), indexer_ingest::Error>(())
//! ```

// Two halves: `pdf` (everything that touches pdfium or tesseract: pages, layout, figures,
// crops, OCR, worker processes) turns a PDF into page elements; `notes` (no pdfium) turns
// elements or markup into notes. `document` joins them for one file.
mod document;
mod elements;
mod error;
mod labels;
mod notes;
mod options;
mod pdf;

pub use document::{parse_file, parse_markup};
pub use error::{Error, Result};
pub use options::{Chunking, FileType, IngestOptions, NOTES_REVISION, Progress, supported};
pub use pdf::crops::{crop_file_prefix, remove_stale_crops};
pub use pdf::ocr::{TESSERACT_ENV, ocr_available};
pub use pdf::readable::{TextLayerCounts, UNREADABLE_SYMBOL_SHARE, unreadable_text_layer};
pub use pdf::worker::{Event, FAULTS_ENV, WorkerPool, run_worker};
pub use pdf::{init_pdfium, pdfium};
