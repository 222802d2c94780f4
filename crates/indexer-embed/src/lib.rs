//! Sentence embeddings for `indexer`: the [`Encoder`] trait the rest of the workspace calls, and
//! [`OnnxEncoder`], its implementation with ONNX Runtime (loaded at run time from the runtime
//! folder `tools/setup` fills) and a Hugging Face `tokenizer.json`.
//!
//! A model folder holds the ONNX file, the tokenizer and a manifest, `model.toml`
//! ([`ModelManifest`]): pooling, normalisation, max length, query and document prefixes,
//! output name, dimension and an optional Matryoshka width.
//!
//! ```no_run
//! use indexer_embed::{Encoder, OnnxEncoder};
//!
//! let rt = indexer_runtime::Runtime::discover()?;
//! let encoder = OnnxEncoder::from_runtime(&rt, indexer_runtime::DEFAULT_MODEL)?;
//! let docs = encoder.embed_documents(&["Fig. 3 shows the recall per selector."])?;
//! let query = encoder.embed_query("which selector has the best recall?")?;
//! let score: f32 = docs.row(0).iter().zip(&query).map(|(a, b)| a * b).sum();
//! assert!(score > 0.0);
//! # Ok::<(), indexer_embed::Error>(())
//! ```

mod encoder;
mod error;
mod manifest;
mod onnx;

pub use encoder::{Embeddings, Encoder, check_model_id};
pub use error::{Error, Result};
pub use manifest::{MANIFEST_FILE, ModelManifest, Pooling};
pub use onnx::{DEFAULT_BATCH_SIZE, OnnxEncoder, OnnxEncoderBuilder};
