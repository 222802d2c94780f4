//! `indexer export`: every note, for another engine.

use crate::cli::args::{ExportArgs, ExportFormat};
use crate::cli::settings::Settings;
use anyhow::Result;
use indexer_engine::IndexView;
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: ExportArgs, settings: &Settings) -> Result<ExitCode> {
    let ExportFormat::Jsonl = args.format;
    let view = IndexView::open(&settings.index_dir)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for note in view.notes()? {
        serde_json::to_writer(&mut out, &note)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
