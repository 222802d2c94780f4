//! `indexer mcp`: the index served to agents by the Model Context Protocol on stdin and
//! stdout (`indexer-mcp`).

use crate::cli::args::McpArgs;
use crate::cli::commands::discover_runtime;
use crate::cli::settings::Settings;
use anyhow::Result;
use indexer_engine::Engine;
use std::process::ExitCode;

pub fn run(args: McpArgs, settings: &Settings) -> Result<ExitCode> {
    let llm = settings
        .llm_config(&args.llm)?
        .map(indexer_engine::Llm::new)
        .transpose()
        .map_err(indexer_engine::Error::from)?;
    let engine = Engine::open(&settings.index_dir, &discover_runtime()?)?;
    indexer_mcp::serve_stdio(&engine, llm.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
