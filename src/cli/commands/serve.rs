//! `indexer serve`: the JSON search API and the search page, over the index.

use crate::cli::args::ServeArgs;
use crate::cli::commands::discover_runtime;
use crate::cli::settings::{Settings, cores};
use anyhow::Result;
use indexer_engine::Engine;
use std::process::ExitCode;

pub fn run(args: ServeArgs, settings: &Settings) -> Result<ExitCode> {
    let ServeArgs {
        addr,
        cors,
        docs_root,
        site_url,
        rate_limit,
        llm,
    } = args;
    let index_dir = &settings.index_dir;
    let llm = settings
        .llm_config(&llm)?
        .map(indexer_engine::Llm::new)
        .transpose()
        .map_err(indexer_engine::Error::from)?;
    let rt = discover_runtime()?;
    let engine = std::sync::Arc::new(Engine::open_concurrent(index_dir, &rt, cores())?);
    let cfg = indexer_server::ServerConfig {
        cors_origins: cors,
        docs_root: Some(match docs_root {
            Some(d) => d,
            None => std::env::current_dir()?,
        }),
        site_url,
        rate_limit,
        ..Default::default()
    };
    eprintln!("indexer: serving {} on http://{addr}/", index_dir.display());
    match &llm {
        Some(l) => eprintln!("indexer: POST /ask sends evidence to {}", l.url()),
        None => eprintln!("indexer: POST /ask is off (no --llm-url)"),
    }
    let cfg = indexer_server::ServerConfig {
        llm: llm.map(std::sync::Arc::new),
        ..cfg
    };
    tokio::runtime::Runtime::new()?.block_on(indexer_server::serve(engine, cfg, addr))?;
    Ok(ExitCode::SUCCESS)
}
