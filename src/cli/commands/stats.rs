//! `indexer stats`: documents, pages, notes by kind, failed files, model, size and generation.

use crate::cli::args::StatsArgs;
use crate::cli::settings::Settings;
use crate::output;
use anyhow::Result;
use indexer_engine::IndexView;
use std::process::ExitCode;

pub fn run(args: StatsArgs, settings: &Settings) -> Result<ExitCode> {
    let index_dir = &settings.index_dir;
    let view = IndexView::open(index_dir)?;
    let mut out = std::io::stdout().lock();
    let report = output::StatsReport::of(&view)?;
    output::stats(&mut out, &report, index_dir, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}
