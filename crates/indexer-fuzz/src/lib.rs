//! The fuzz targets of `indexer`, as functions of bytes. Each must return for any input: no
//! panic, no hang, no crash of this process (a PDF that crashes pdfium crashes a worker
//! process, not the caller). `fuzz/` runs them under libFuzzer (`tools/fuzz`); the regression
//! tests of this crate run every input kept in `regressions/` (crashes found by fuzzing) and
//! `seeds/` through them in the normal suite.
//!
//! The targets that need an index share one, made once per process from a few Markdown
//! documents with the real encoder (`tools/setup`'s runtime, found as `indexer` finds it).

mod fixture;
mod targets;

pub use targets::{TARGETS, Target, markup, mcp, pdf, pdf_with, query, selector_of, server, store};
