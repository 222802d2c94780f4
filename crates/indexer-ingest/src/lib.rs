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

mod assemble;
mod chunk;
mod document;
mod elements;
mod error;
mod figures;
mod layout;
mod markup;
mod notes;
mod ocr;
mod options;
mod pdf;
mod worker;

pub use document::parse_file;
pub use error::{Error, Result};
pub use figures::crop_file_prefix;
pub use ocr::{TESSERACT_ENV, ocr_available};
pub use options::{Chunking, FileType, IngestOptions, Progress, supported};
pub use pdf::{init_pdfium, pdfium};
pub use worker::{Event, FAULTS_ENV, WorkerPool, run_worker};
