//! `indexer runtime`: where the runtime parts are, and whether they load.

use crate::cli::commands::discover_runtime;
use anyhow::Result;
use indexer_engine::DEFAULT_MODEL;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run() -> Result<ExitCode> {
    let rt = discover_runtime()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "runtime: {}", rt.root().display())?;
    let found = || -> Result<[PathBuf; 3], indexer_engine::Error> {
        rt.check()?;
        Ok([
            rt.pdfium_library()?,
            rt.onnxruntime_library()?,
            rt.model_dir(DEFAULT_MODEL)?,
        ])
    };
    let [pdfium, onnxruntime, model] = found()?;
    writeln!(out, "pdfium: {}", pdfium.display())?;
    writeln!(out, "onnxruntime: {}", onnxruntime.display())?;
    writeln!(out, "default model: {}", model.display())?;
    Ok(ExitCode::SUCCESS)
}
