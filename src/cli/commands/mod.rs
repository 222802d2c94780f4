//! One module per command, each with its `run`; `main` dispatches to them. `ingest` also
//! holds the ingest that `eval` runs first.

pub mod ask;
pub mod eval;
pub mod export;
pub mod ingest;
pub mod mcp;
pub mod pdf_worker;
pub mod query;
pub mod runtime;
pub mod serve;
pub mod show;
pub mod stats;

use anyhow::Result;
use indexer_engine::Runtime;

/// The runtime folder (pdfium, ONNX Runtime, models), as `indexer-runtime` finds it.
pub fn discover_runtime() -> Result<Runtime> {
    Ok(Runtime::discover().map_err(indexer_engine::Error::from)?)
}
