//! The notes half of ingestion, without pdfium: paragraphs and figures (assembled from PDF
//! page elements, or read from Markdown, HTML and text) into notes: chunks sized by a token
//! counter, figure and table notes with their context, a note of the words of each page of numbers,
//! links, summaries and keywords.

pub(crate) mod assemble;
mod build;
pub(crate) mod chunk;
pub(crate) mod markup;
mod number_pages;

pub(crate) use build::*;
