//! `indexer ingest`: files and folders into the index, with PDF worker processes and progress
//! on stderr; [`run_ingest`] is also the ingest `indexer eval` runs first.

use crate::cli::args::IngestArgs;
use crate::cli::commands::discover_runtime;
use crate::cli::settings::{Settings, cores};
use crate::{output, progress};
use anyhow::{Context, Result, bail};
use indexer_engine::{Chunking, IngestConfig, OnnxEncoder};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(args: IngestArgs, settings: &Settings) -> Result<ExitCode> {
    let index_dir = &settings.index_dir;
    let jobs = settings.jobs(args.workers.jobs)?;
    for p in &args.paths {
        if !p.exists() {
            bail!("{}: no such file or folder", p.display());
        }
    }
    let rt = discover_runtime()?;
    // Fail early, before any work, if pdfium is missing; the workers bind it themselves.
    rt.pdfium_library().map_err(indexer_engine::Error::from)?;
    // Embedding is the slow part of ingest and runs after parsing: give it every core.
    let encoder = indexer_engine::load_encoder(&rt, &settings.model(args.notes.model), cores())?;
    let quiet = args.quiet;
    let summary = run_ingest(
        &args.paths,
        IngestRun {
            index_dir,
            base: std::env::current_dir()?,
            jobs,
            crops: !args.no_crops,
            paper_chunks: args.paper_chunks,
            ocr_pictures: args.notes.ocr_pictures,
            aligned_tables: args.notes.aligned_tables,
            quiet,
        },
        &encoder,
    )?;
    if args.json {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
    } else if !quiet {
        output::ingest_summary(&mut std::io::stderr().lock(), &summary, index_dir)?;
    }
    Ok(if summary.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The settings `indexer ingest` and `indexer eval` share.
pub struct IngestRun<'a> {
    pub index_dir: &'a Path,
    /// Document ids are paths relative to this folder.
    pub base: PathBuf,
    pub jobs: usize,
    pub crops: bool,
    pub paper_chunks: bool,
    pub ocr_pictures: bool,
    pub aligned_tables: bool,
    pub quiet: bool,
}

/// Ingests `paths` with PDF worker processes and progress on stderr.
pub fn run_ingest(
    paths: &[PathBuf],
    run: IngestRun<'_>,
    encoder: &OnnxEncoder,
) -> Result<indexer_engine::IngestSummary> {
    let mut icfg = IngestConfig::new(run.index_dir, run.base, worker_command()?);
    icfg.options.jobs = run.jobs;
    icfg.options.crops = run.crops;
    icfg.options.ocr_pictures = run.ocr_pictures;
    icfg.options.aligned_tables = run.aligned_tables;
    icfg.options.chunking = if run.paper_chunks {
        Chunking::PAPER
    } else {
        indexer_engine::default_chunking(encoder)
    };
    let mut reporter = progress::Reporter::new(run.quiet, std::io::stderr().is_terminal());
    let summary = indexer_engine::ingest(paths, &icfg, encoder, &mut |e| reporter.event(e))?;
    reporter.finish();
    Ok(summary)
}

/// This executable as `indexer __pdf-worker`, the command of a PDF worker process.
fn worker_command() -> Result<std::process::Command> {
    let exe = std::env::current_exe()
        .context("cannot find the indexer executable to start PDF workers")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("__pdf-worker");
    Ok(cmd)
}
