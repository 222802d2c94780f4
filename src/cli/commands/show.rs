//! `indexer show`: one note whole, with its links.

use crate::cli::args::ShowArgs;
use crate::cli::settings::Settings;
use crate::output;
use anyhow::{Result, bail};
use indexer_engine::IndexView;
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: ShowArgs, settings: &Settings) -> Result<ExitCode> {
    let index_dir = &settings.index_dir;
    let view = IndexView::open(index_dir)?;
    let Some(note) = view.note(&args.note_id)? else {
        bail!("no note {:?} in {}", args.note_id, index_dir.display());
    };
    let mut out = std::io::stdout().lock();
    if args.json.json {
        serde_json::to_writer_pretty(&mut out, &note)?;
        writeln!(out)?;
    } else {
        output::show_note(&mut out, &note, &view)?;
    }
    Ok(ExitCode::SUCCESS)
}
