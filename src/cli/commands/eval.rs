//! `indexer eval`: evidence quality against gold evidence pages (the documents ingested
//! first, incrementally), or retrieval on a BEIR folder.

use crate::cli::args::EvalArgs;
use crate::cli::commands::discover_runtime;
use crate::cli::commands::ingest::{IngestRun, run_ingest};
use crate::cli::settings::{Settings, cores};
use crate::output;
use anyhow::{Context, Result};
use indexer_engine::{Engine, SelectorKind};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// Runs `f` with a progress callback `(done, total)` drawn as a bar on a terminal (nothing
/// otherwise), cleared at the end.
fn with_bar<R>(what: &str, f: impl FnOnce(&mut dyn FnMut(usize, usize)) -> R) -> R {
    let pb = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    pb.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{what:>9} [{{bar:30}}] {{pos}}/{{len}}  eta {{eta}}"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    let out = f(&mut |done, total| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    });
    pb.finish_and_clear();
    out
}

/// The selector specs of a grid file: one a line, blank lines and `#` comments skipped.
fn read_grid(path: &std::path::Path) -> Result<Vec<indexer_engine::SelectorSpec>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the grid {}", path.display()))?;
    let mut specs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let spec = line
            .parse()
            .with_context(|| format!("{}:{}: bad selector spec", path.display(), i + 1))?;
        specs.push(spec);
    }
    Ok(specs)
}

pub fn run(args: EvalArgs, settings: &Settings) -> Result<ExitCode> {
    // Without --index, the evaluation's index is in its output folder.
    let index = settings.index_flag.clone();
    let rt = discover_runtime()?;
    let encoder = std::sync::Arc::new(indexer_engine::load_encoder(
        &rt,
        &settings.model(args.notes.model.clone()),
        cores(),
    )?);
    if let Some(beir) = args.beir {
        let index_dir = index.unwrap_or_else(|| args.out.join("beir-index"));
        let report = with_bar("beir", |progress| {
            indexer_eval::run_beir(
                &beir,
                &index_dir,
                encoder,
                args.matching,
                &args.out,
                progress,
            )
        })?;
        let mut out = std::io::stdout().lock();
        out.write_all(indexer_eval::beir_markdown(&report).as_bytes())?;
        writeln!(out, "report: {}", args.out.join("beir.md").display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let questions = args
        .questions
        .expect("clap requires --questions without --beir");
    let docs = args.docs.expect("clap requires --docs with --questions");
    let index_dir = index.unwrap_or_else(|| args.out.join("index"));
    let grid = match &args.grid {
        Some(path) => read_grid(path)?,
        None => Vec::new(),
    };
    // Ingest is incremental: on a rerun the documents are found unchanged in seconds.
    let summary = run_ingest(
        std::slice::from_ref(&docs),
        IngestRun {
            index_dir: &index_dir,
            base: docs.clone(),
            jobs: settings.jobs(args.workers.jobs)?,
            crops: true,
            paper_chunks: false,
            ocr_pictures: args.notes.ocr_pictures,
            aligned_tables: args.notes.aligned_tables,
            quiet: false,
        },
        &encoder,
    )?;
    output::ingest_summary(&mut std::io::stderr().lock(), &summary, &index_dir)?;
    let engine = Engine::with_encoder(&index_dir, encoder)?;
    let cfg = indexer_eval::EvalConfig {
        questions,
        docs,
        index: index_dir,
        selectors: if args.selectors.is_empty() && grid.is_empty() {
            SelectorKind::ALL.to_vec()
        } else {
            args.selectors
        },
        grid,
        budgets: if !args.budgets.is_empty() {
            args.budgets
        } else {
            vec![args.budget.unwrap_or(indexer_engine::DEFAULT_BUDGET)]
        },
        pools: args.pools,
        candidates: args.candidates,
        fusion: args.fusion,
        feedback: !args.no_feedback,
        rewrite: if args.no_rewrite {
            indexer_engine::Rules::NONE
        } else {
            args.rewrite
        },
        folds: args.folds,
        scope: args.scope,
        ranking: args.ranking,
        ranker_folds: args.ranker_folds.clone(),
        matching: args.matching,
        out: args.out.clone(),
        limit: args.limit,
    };
    if let Some(path) = &args.export_features {
        let summary = with_bar("features", |progress| {
            indexer_eval::export_features(&cfg, &engine, path, progress)
        })?;
        eprintln!(
            "features: {} rows of {} questions ({} on a gold page) in {}",
            summary.rows,
            summary.questions,
            summary.positives,
            path.display()
        );
    }
    let report = with_bar("questions", |progress| {
        indexer_eval::run_eval(&cfg, &engine, progress)
    })?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} questions: {} rows computed, {} already in results.jsonl, {} with no notes",
        report.questions, report.computed, report.skipped, report.empty_pools
    )?;
    out.write_all(indexer_eval::markdown(&report).as_bytes())?;
    writeln!(out, "report: {}", args.out.join("report.md").display())?;
    Ok(ExitCode::SUCCESS)
}
