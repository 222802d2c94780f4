//! `indexer __pdf-worker` (internal): a PDF worker process, started by ingest; reads jobs on
//! stdin.

use anyhow::{Context, Result};
use std::process::ExitCode;

pub fn run() -> Result<ExitCode> {
    indexer_engine::run_worker().context("pdf worker")?;
    Ok(ExitCode::SUCCESS)
}
