//! `indexer query`: a question answered with an evidence set (or the best pages), as text,
//! JSON or a Markdown evidence pack.

use crate::cli::args::{Format, QueryArgs, Unit};
use crate::cli::commands::discover_runtime;
use crate::cli::settings::Settings;
use crate::output;
use anyhow::Result;
use indexer_engine::Engine;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

pub fn run(args: QueryArgs, settings: &Settings) -> Result<ExitCode> {
    let format = args.format.unwrap_or(Format::Text);
    if args.unit == Unit::Page && format == Format::Markdown {
        anyhow::bail!(
            "--format markdown is an evidence pack of notes; with --unit page use --format text or json"
        );
    }
    let req = settings.search_request(args.question, args.search)?;
    let engine = Engine::open(&settings.index_dir, &discover_runtime()?)?;
    let stdout = std::io::stdout();
    let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.unit == Unit::Page {
        let resp = engine.search_pages(&req)?;
        match format {
            Format::Json => {
                serde_json::to_writer_pretty(&mut out, &resp)?;
                writeln!(out)?;
            }
            Format::Text => output::pages_text(&mut out, &resp, color)?,
            Format::Markdown => unreachable!("refused before the search"),
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let resp = engine.search(&req)?;
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &resp)?;
            writeln!(out)?;
        }
        Format::Text => output::text(&mut out, &resp, color)?,
        Format::Markdown => output::markdown(&mut out, &resp)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
