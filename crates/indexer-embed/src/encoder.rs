use crate::error::{Error, Result};

/// A text encoder: texts in, unit vectors out. Documents and queries are embedded separately
/// because many models want a prefix or instruction on one side only.
///
/// Implementations are shared between threads (the server embeds queries from several).
pub trait Encoder: Send + Sync {
    /// The model id stored in the index (the manifest's `id`), so that a query is never
    /// embedded with another model than the index.
    fn model_id(&self) -> &str;

    /// Width of the returned vectors.
    fn dim(&self) -> usize;

    /// The most tokens a document may have, as [`Encoder::count_tokens`] counts them, without
    /// being truncated: the model's sequence length less its special tokens and the document
    /// prefix. The ingest chunker sizes chunks against this number.
    fn max_tokens(&self) -> usize;

    /// Number of tokens of `text` alone: without special tokens and without the document prefix
    /// (both are accounted for in [`Encoder::max_tokens`]), and never truncated. Counts of
    /// whitespace-separated pieces add up to the count of their concatenation, which is what a
    /// chunker that grows a chunk sentence by sentence needs.
    fn count_tokens(&self, text: &str) -> usize;

    /// Embeds documents (the manifest's `document_prefix` is prepended to each). Texts longer
    /// than the model reads are truncated and counted in [`Embeddings::truncated`], never an error.
    fn embed_documents(&self, texts: &[&str]) -> Result<Embeddings>;

    /// Embeds one query (the manifest's `query_prefix` is prepended).
    fn embed_query(&self, text: &str) -> Result<Vec<f32>>;
}

/// Vectors of a batch of texts.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    /// Width of each row.
    pub dim: usize,
    /// Row-major: one row of `dim` values per text, in input order.
    pub data: Vec<f32>,
    /// How many of the texts were longer than the model reads and were truncated.
    pub truncated: usize,
}

impl Embeddings {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Row `i`, the vector of the `i`-th input text.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// The rows in input order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f32]> + '_ {
        self.data.chunks_exact(self.dim.max(1))
    }
}

/// Checks that an index built with `index_model` can be queried with `encoder`. A mismatch is a
/// user error that names both ids.
pub fn check_model_id(index_model: &str, encoder: &dyn Encoder) -> Result<()> {
    if index_model == encoder.model_id() {
        Ok(())
    } else {
        Err(Error::IndexModelMismatch {
            index: index_model.to_string(),
            encoder: encoder.model_id().to_string(),
        })
    }
}
