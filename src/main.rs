//! The `indexer` command line. Thin: argument parsing, progress and output formats over
//! `indexer-engine`. This file is the entry point (parse, dispatch, the error with its hint,
//! the exit code); `cli/` holds the arguments, the settings and one module per command.
//!
//! Exit codes: 0 success; 1 some input files failed (the rest were indexed); 2 usage or fatal
//! error. A closed output pipe (`indexer query ... | head`) is success.

mod cli;
mod output;
mod progress;

use anyhow::Result;
use clap::Parser;
use cli::args::{Cli, Command};
use cli::commands;
use cli::settings::Settings;
use indexer_engine::Hint;
use std::process::ExitCode;

/// The hint of the first error in the chain that has one. Every library error reaches the
/// binary as the engine's or the evaluation's error, and both implement [`Hint`].
fn hint_of(e: &anyhow::Error) -> Option<String> {
    e.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<indexer_engine::Error>() {
            e.hint()
        } else if let Some(e) = cause.downcast_ref::<indexer_eval::Error>() {
            e.hint()
        } else {
            None
        }
    })
}

/// A write to a closed pipe (`indexer export | head -1`), straight or through serde_json.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let kind = c
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            if let Some(h) = hint_of(&e) {
                eprintln!("hint: {h}");
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let settings = Settings::load(cli.index)?;
    match cli.command {
        Command::PdfWorker => commands::pdf_worker::run(),
        Command::Runtime => commands::runtime::run(),
        Command::Ingest(args) => commands::ingest::run(args, &settings),
        Command::Eval(args) => commands::eval::run(args, &settings),
        Command::Serve(args) => commands::serve::run(args, &settings),
        Command::Mcp(args) => commands::mcp::run(args, &settings),
        Command::Query(args) => commands::query::run(args, &settings),
        Command::Ask(args) => commands::ask::run(args, &settings),
        Command::Show(args) => commands::show::run(args, &settings),
        Command::Stats(args) => commands::stats::run(args, &settings),
        Command::Export(args) => commands::export::run(args, &settings),
    }
}
