//! The `indexer` command line. Thin: argument parsing and commands over the library crates.

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "indexer", version, about = "Search engine for long documents")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show where the runtime parts are and check that they load.
    Runtime,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if let Some(rt) = e.downcast_ref::<indexer_runtime::Error>() {
                eprintln!("hint: {}", rt.hint());
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Runtime => {
            let rt = indexer_runtime::Runtime::discover()?;
            println!("runtime: {}", rt.root().display());
            rt.check()?;
            println!("pdfium: {}", rt.pdfium_library()?.display());
            println!("onnxruntime: {}", rt.onnxruntime_library()?.display());
            println!(
                "default model: {}",
                rt.model_dir(indexer_runtime::DEFAULT_MODEL)?.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
