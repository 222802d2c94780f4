//! The `indexer` command line. Thin: argument parsing, progress and output formats over
//! `indexer-engine`.
//!
//! Exit codes: 0 success; 1 some input files failed (the rest were indexed); 2 usage or fatal
//! error. A closed output pipe (`indexer query ... | head`) is success.

mod ask;
mod config;
mod output;
mod progress;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use indexer_engine::{
    Chunking, DEFAULT_MODEL, Engine, Filter, Hint, IndexView, IngestConfig, NoteKind, OnnxEncoder,
    Runtime, SearchRequest, SelectorKind,
};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "indexer",
    version,
    about = "Search engine for long documents: evidence sets from PDFs, Markdown, HTML and text"
)]
struct Cli {
    /// Index folder, or a Milvus collection as milvus://HOST:PORT/COLLECTION[?crops=DIR]
    /// [env: INDEXER_INDEX] [default: ./.indexer, or `index` in ./indexer.toml]
    #[arg(long, global = true, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Add files and folders to the index, or update it (unchanged files are skipped)
    Ingest(IngestArgs),
    /// Answer a question with an evidence set
    Query(QueryArgs),
    /// Answer a question in prose: the evidence set read by a model server (any
    /// OpenAI-compatible chat-completions API), with the sources it cites
    Ask(AskArgs),
    /// Show one note whole, with its links
    Show {
        /// A note id as printed by `query` (for example `paper.pdf#t12`)
        note_id: String,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Documents, pages, notes by kind, failed files, model, size and generation of the index
    Stats {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Export every note (for another engine)
    Export {
        #[arg(long, value_enum, default_value = "jsonl")]
        format: ExportFormat,
    },
    /// Serve the JSON search API and a search page (the search backend of a docs site)
    Serve {
        /// Address to listen on (loopback by default)
        #[arg(long, default_value = "127.0.0.1:7700")]
        addr: std::net::SocketAddr,
        /// Origins allowed to call the API from a browser (repeatable), e.g. http://localhost:8000
        #[arg(long = "cors", value_name = "ORIGIN")]
        cors: Vec<String>,
        /// Folder the document ids are relative to, for links to the PDFs [default: working directory]
        #[arg(long, value_name = "DIR")]
        docs_root: Option<PathBuf>,
        /// The URL the documents are published at (a docs site): results link to
        /// URL/DOC#section (PDFs: #page=N) instead of the files served here
        #[arg(long, value_name = "URL")]
        site_url: Option<String>,
        /// Requests a second per client address (a burst of as many, then that rate); over it
        /// a 429 with Retry-After [default: no limit]
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        rate_limit: Option<u32>,
        /// The model server `POST /ask` sends evidence to (off without one)
        #[command(flatten)]
        llm: LlmArgs,
    },
    /// Measure evidence quality against gold evidence pages, or retrieval on a BEIR folder
    Eval(EvalArgs),
    /// Serve the index to agents: a Model Context Protocol server on stdin and stdout (tools
    /// search, ask, show, list_documents; crop images as resources)
    Mcp {
        /// The model server of the `ask` tool (as for `ask`; without one the tool says so)
        #[command(flatten)]
        llm: LlmArgs,
    },
    /// Show where the runtime parts are and check that they load
    Runtime,
    /// Internal: a PDF worker process (reads jobs on stdin)
    #[command(name = "__pdf-worker", hide = true)]
    PdfWorker,
}

#[derive(clap::Args, Debug)]
struct IngestArgs {
    /// Files and folders (folders are read recursively)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Worker processes for PDFs [env: INDEXER_JOBS] [default: number of cores]
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// No progress output
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print the summary as JSON on stdout
    #[arg(long)]
    json: bool,
    /// Do not render figure and table crops
    #[arg(long)]
    no_crops: bool,
    /// Chunk by characters as the paper does (3000 with 300 overlap) instead of encoder tokens
    #[arg(long)]
    paper_chunks: bool,
    /// Also read raster pictures on pages with text (charts, diagrams, screenshots) by OCR,
    /// so their words are found (slower; needs tesseract)
    #[arg(long)]
    ocr_pictures: bool,
    /// Also find tables without ruling lines or a caption from the alignment of their text
    /// (financial statements, report tables): table notes with crops
    #[arg(long)]
    aligned_tables: bool,
    /// Encoder: a folder name under the runtime's models/ or a path to a model folder
    /// [env: INDEXER_MODEL] [default: all-MiniLM-L6-v2]
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
}

#[derive(clap::Args, Debug)]
struct QueryArgs {
    /// The question
    question: String,
    #[command(flatten)]
    search: SearchArgs,
    /// Output format [default: text]
    #[arg(long, short = 'f', value_enum)]
    format: Option<Format>,
    /// What to return: `note`, an evidence set of B notes; `page`, the B best pages, each
    /// with its best notes (the selector is not used)
    #[arg(long, value_enum, default_value = "note")]
    unit: Unit,
}

/// How the evidence is chosen: the options `query` and `ask` share.
#[derive(clap::Args, Debug)]
struct SearchArgs {
    /// Selector: fused-cap, fused, cosine, cds, cds-exact, cds-hybrid, mmr, mmr-hybrid, dpp, dpp-hybrid, ppr, random [env: INDEXER_SELECTOR] [default: fused-cap]
    #[arg(long, short = 's', value_name = "NAME")]
    selector: Option<String>,
    /// Evidence notes to select (the paper's B) [env: INDEXER_BUDGET] [default: 10]
    #[arg(long, short = 'b', value_name = "B")]
    budget: Option<usize>,
    /// Candidates from each of BM25 and vectors [env: INDEXER_CANDIDATES] [default: 100]
    #[arg(long, short = 'k', value_name = "K")]
    candidates: Option<usize>,
    /// Only these documents (repeatable; ids as `stats`/`query` print them)
    #[arg(long = "doc", value_name = "DOC")]
    docs: Vec<String>,
    /// Only these kinds (repeatable): text, figure, table
    #[arg(long = "kind", value_name = "KIND")]
    kinds: Vec<NoteKind>,
    /// Only pages in this range: `5`, `3-9`
    #[arg(long, value_name = "RANGE")]
    pages: Option<String>,
    /// How query words match: exact (as typed), prefix (the last word also as a prefix),
    /// typos (words the index does not hold, at edit distance 1, or 2 from 9 letters) or
    /// typing (prefix and typos)
    #[arg(long, value_name = "HOW", default_value_t = indexer_engine::DEFAULT_MATCHING)]
    matching: indexer_engine::Matching,
    /// Search BM25 once, without the terms of the first round's best note (pseudo-relevance
    /// feedback, on by default)
    #[arg(long)]
    no_feedback: bool,
}

#[derive(clap::Args, Debug)]
struct AskArgs {
    /// The question
    question: String,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    llm: LlmArgs,
    /// Output format: text streams the answer as it arrives, then its sources; json prints
    /// the answer, citations, evidence, model, token usage and timings at the end
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    format: AskFormat,
    /// Print the chat-completions request that would be sent (JSON, images as data URLs)
    /// and send nothing
    #[arg(long)]
    print_request: bool,
}

/// The model server and how to use it. The API key comes from the environment only:
/// INDEXER_LLM_API_KEY, or the variable `llm_api_key_env` in indexer.toml names.
#[derive(clap::Args, Debug)]
struct LlmArgs {
    /// Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1
    /// [env: INDEXER_LLM_URL] [or llm_url in indexer.toml]
    #[arg(long, value_name = "URL")]
    llm_url: Option<String>,
    /// The model to ask [env: INDEXER_LLM_MODEL] [default: the first the server lists]
    #[arg(long, value_name = "NAME")]
    llm_model: Option<String>,
    /// Attach figure and table crops as images: auto (unless the server refuses them),
    /// always, never [default: auto]
    #[arg(long, value_name = "WHEN")]
    images: Option<indexer_engine::Images>,
    /// Seconds the answer may take [default: 120]
    #[arg(long, value_name = "SECS")]
    llm_timeout: Option<f64>,
    /// The answer's maximum length in tokens [default: 1024]
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
    /// A prompt template file: {{question}} and {{evidence}}; a line `---` separates a system
    /// message above from the user message below [default: the built-in prompt]
    #[arg(long, value_name = "FILE")]
    prompt: Option<PathBuf>,
    /// A field of the request body, repeatable: KEY=VALUE, VALUE as JSON or else a string
    /// (`temperature=0`, `seed=7`, `response_format={"type":"json_object"}`)
    #[arg(long = "llm-option", value_name = "KEY=VALUE")]
    llm_options: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum AskFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Unit {
    Note,
    Page,
}

#[derive(clap::Args, Debug)]
struct EvalArgs {
    /// Questions with gold evidence pages (JSON lines; see ../shared/eval/README.md)
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "beir",
        requires = "docs"
    )]
    questions: Option<PathBuf>,
    /// The folder of the questions' documents (file names as the questions list them)
    #[arg(long, value_name = "DIR")]
    docs: Option<PathBuf>,
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels.tsv): nDCG@10 and recall@100 of BM25,
    /// vectors and the fused candidates
    #[arg(long, value_name = "DIR", conflicts_with = "questions")]
    beir: Option<PathBuf>,
    /// Selectors, comma-separated [default: all]
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    selectors: Vec<SelectorKind>,
    /// A parameter grid: a file of selectors with options, one a line
    /// (`cds-hybrid:beta=0.3:page=0.5`; `#` starts a comment), evaluated beside --selectors
    #[arg(long, value_name = "FILE")]
    grid: Option<PathBuf>,
    /// Evidence notes per question (B) [default: 10]
    #[arg(long, conflicts_with = "budgets")]
    budget: Option<usize>,
    /// A sweep of B, for example 3,5,10,15,20
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    budgets: Vec<usize>,
    /// Candidate pools, comma-separated: all (every note of the documents), hybrid (BM25 + vectors)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "all,hybrid"
    )]
    pools: Vec<indexer_eval::PoolMode>,
    /// Candidates from each of BM25 and vectors in the hybrid pool
    #[arg(long, default_value_t = indexer_engine::DEFAULT_CANDIDATES)]
    candidates: usize,
    /// How the hybrid pool fuses BM25 and vectors: convex (normalised scores, BM25 weight
    /// 0.5), convex:W, rrf (k = 60) or rrf:K
    #[arg(long, value_name = "FUSION", default_value_t = indexer_engine::Fusion::default())]
    fusion: indexer_engine::Fusion,
    /// How query words match in the hybrid pool: exact, prefix, typos or typing (as for
    /// `query`)
    #[arg(long, value_name = "HOW", default_value_t = indexer_engine::DEFAULT_MATCHING)]
    matching: indexer_engine::Matching,
    /// The hybrid pool without pseudo-relevance feedback (as for `query`)
    #[arg(long)]
    no_feedback: bool,
    /// Output folder: report.md, results.jsonl (a rerun resumes), plots
    #[arg(long, value_name = "DIR", default_value = "eval-out")]
    out: PathBuf,
    /// Only the first N questions
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Worker processes for PDFs [env: INDEXER_JOBS] [default: number of cores]
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Ingest the documents with `ingest --ocr-pictures`
    #[arg(long)]
    ocr_pictures: bool,
    /// Ingest the documents with `ingest --aligned-tables`
    #[arg(long)]
    aligned_tables: bool,
    /// Encoder of the evaluation's index (as for `ingest`)
    /// [env: INDEXER_MODEL] [default: all-MiniLM-L6-v2]
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExportFormat {
    Jsonl,
}

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
    let cfg = config::Config::load()?;
    let explicit_index = cli.index.clone();
    let index_dir = cli
        .index
        .or_else(|| {
            std::env::var_os("INDEXER_INDEX")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .or(cfg.index.clone())
        .unwrap_or_else(|| PathBuf::from(".indexer"));
    match cli.command {
        Command::PdfWorker => {
            indexer_engine::run_worker().context("pdf worker")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Runtime => {
            let rt = runtime()?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "runtime: {}", rt.root().display())?;
            let found = || -> Result<[PathBuf; 3], indexer_engine::Error> {
                rt.check()?;
                Ok([
                    rt.pdfium_library()?,
                    rt.onnxruntime_library()?,
                    rt.model_dir(DEFAULT_MODEL)?,
                ])
            };
            let [pdfium, onnxruntime, model] = found()?;
            writeln!(out, "pdfium: {}", pdfium.display())?;
            writeln!(out, "onnxruntime: {}", onnxruntime.display())?;
            writeln!(out, "default model: {}", model.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Ingest(args) => ingest(args, &cfg, index_dir),
        Command::Eval(args) => eval(args, &cfg, explicit_index),
        Command::Serve {
            addr,
            cors,
            docs_root,
            site_url,
            rate_limit,
            llm,
        } => {
            let llm = llm_config(&llm, &cfg)?
                .map(indexer_engine::Llm::new)
                .transpose()
                .map_err(indexer_engine::Error::from)?;
            let rt = runtime()?;
            let engine = std::sync::Arc::new(Engine::open_concurrent(&index_dir, &rt, cores())?);
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
        Command::Mcp { llm } => {
            let llm = llm_config(&llm, &cfg)?
                .map(indexer_engine::Llm::new)
                .transpose()
                .map_err(indexer_engine::Error::from)?;
            let engine = Engine::open(&index_dir, &runtime()?)?;
            indexer_mcp::serve_stdio(&engine, llm.as_ref())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Query(args) => query(args, &cfg, index_dir),
        Command::Ask(args) => ask::run(args, &cfg, index_dir),
        Command::Show { note_id, json } => {
            let view = IndexView::open(&index_dir)?;
            let Some(note) = view.note(&note_id)? else {
                bail!("no note {note_id:?} in {}", index_dir.display());
            };
            let mut out = std::io::stdout().lock();
            if json {
                serde_json::to_writer_pretty(&mut out, &note)?;
                writeln!(out)?;
            } else {
                output::show_note(&mut out, &note, &view)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Stats { json } => {
            let view = IndexView::open(&index_dir)?;
            let mut out = std::io::stdout().lock();
            output::stats(&mut out, &output::StatsReport::of(&view)?, &index_dir, json)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Export {
            format: ExportFormat::Jsonl,
        } => {
            let view = IndexView::open(&index_dir)?;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for note in view.notes()? {
                serde_json::to_writer(&mut out, &note)?;
                writeln!(out)?;
            }
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn worker_command() -> Result<std::process::Command> {
    let exe = std::env::current_exe()
        .context("cannot find the indexer executable to start PDF workers")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("__pdf-worker");
    Ok(cmd)
}

/// The machine's cores: PDF workers and encoder sessions by default.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn runtime() -> Result<Runtime> {
    Ok(Runtime::discover().map_err(indexer_engine::Error::from)?)
}

/// PDF worker processes: the flag, else `INDEXER_JOBS`, else `jobs` in indexer.toml, else
/// one per core (the worker pool makes 0 into 1).
fn jobs(flag: Option<usize>, cfg: &config::Config) -> Result<usize> {
    Ok(flag
        .or(config::env_parse("INDEXER_JOBS")?)
        .or(cfg.jobs)
        .unwrap_or_else(cores))
}

/// The encoder of a new index: the flag, else `INDEXER_MODEL`, else `model` in indexer.toml,
/// else the default model.
fn model(flag: Option<String>, cfg: &config::Config) -> String {
    flag.or(config::env_string("INDEXER_MODEL"))
        .or(cfg.model.clone())
        .unwrap_or_else(|| DEFAULT_MODEL.to_string())
}

fn ingest(args: IngestArgs, cfg: &config::Config, index_dir: PathBuf) -> Result<ExitCode> {
    let jobs = jobs(args.jobs, cfg)?;
    for p in &args.paths {
        if !p.exists() {
            bail!("{}: no such file or folder", p.display());
        }
    }
    let rt = runtime()?;
    // Fail early, before any work, if pdfium is missing; the workers bind it themselves.
    rt.pdfium_library().map_err(indexer_engine::Error::from)?;
    // Embedding is the slow part of ingest and runs after parsing: give it every core.
    let encoder = indexer_engine::load_encoder(&rt, &model(args.model, cfg), cores())?;
    let quiet = args.quiet;
    let summary = run_ingest(
        &args.paths,
        IngestRun {
            index_dir: &index_dir,
            base: std::env::current_dir()?,
            jobs,
            crops: !args.no_crops,
            paper_chunks: args.paper_chunks,
            ocr_pictures: args.ocr_pictures,
            aligned_tables: args.aligned_tables,
            quiet,
        },
        &encoder,
    )?;
    if args.json {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
    } else if !quiet {
        output::ingest_summary(&mut std::io::stderr().lock(), &summary, &index_dir)?;
    }
    Ok(if summary.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

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

/// The settings `indexer ingest` and `indexer eval` share.
struct IngestRun<'a> {
    index_dir: &'a std::path::Path,
    /// Document ids are paths relative to this folder.
    base: PathBuf,
    jobs: usize,
    crops: bool,
    paper_chunks: bool,
    ocr_pictures: bool,
    aligned_tables: bool,
    quiet: bool,
}

/// Ingests `paths` with PDF worker processes and progress on stderr.
fn run_ingest(
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

/// The engine's request for a question and the search options: flags, else environment
/// variables, else indexer.toml, else the defaults.
fn search_request(
    question: String,
    args: SearchArgs,
    cfg: &config::Config,
) -> Result<SearchRequest> {
    let selector: SelectorKind = match args
        .selector
        .or(config::env_string("INDEXER_SELECTOR"))
        .or(cfg.selector.clone())
    {
        Some(s) => s
            .parse()
            .map_err(|e| anyhow::anyhow!("--selector {s:?}: {e}"))?,
        None => indexer_engine::DEFAULT_SELECTOR,
    };
    let budget = args
        .budget
        .or(config::env_parse("INDEXER_BUDGET")?)
        .or(cfg.budget)
        .unwrap_or(indexer_engine::DEFAULT_BUDGET);
    let candidates = args
        .candidates
        .or(config::env_parse("INDEXER_CANDIDATES")?)
        .or(cfg.candidates)
        .unwrap_or(indexer_engine::DEFAULT_CANDIDATES);
    let pages = args
        .pages
        .as_deref()
        .map(indexer_engine::parse_pages)
        .transpose()
        .context("--pages")?;
    Ok(SearchRequest {
        query: question,
        budget,
        selector,
        candidates,
        filter: Filter {
            docs: args.docs,
            kinds: args.kinds,
            pages,
        },
        fusion: Default::default(),
        matching: args.matching,
        feedback: !args.no_feedback,
        snippet_chars: indexer_engine::DEFAULT_SNIPPET_CHARS,
    })
}

/// The model server's settings: flags, else environment variables, else indexer.toml. `None`
/// when no URL is set anywhere.
fn llm_config(args: &LlmArgs, cfg: &config::Config) -> Result<Option<indexer_engine::LlmConfig>> {
    let Some(url) = args
        .llm_url
        .clone()
        .or(config::env_string("INDEXER_LLM_URL"))
        .or(cfg.llm_url.clone())
    else {
        return Ok(None);
    };
    let mut l = indexer_engine::LlmConfig::new(url);
    l.model = args
        .llm_model
        .clone()
        .or(config::env_string("INDEXER_LLM_MODEL"))
        .or(cfg.llm_model.clone());
    let key_env = cfg
        .llm_api_key_env
        .clone()
        .unwrap_or_else(|| indexer_engine::API_KEY_ENV.to_string());
    l.api_key = indexer_engine::ApiKey::from_env(&key_env);
    l.key_env = Some(key_env);
    if let Some(i) = args.images.or(cfg.llm_images) {
        l.images = i;
    }
    if let Some(secs) = args.llm_timeout.or(cfg.llm_timeout) {
        if !(secs.is_finite() && secs > 0.0 && secs <= 86_400.0) {
            bail!("the model server's time limit must be a number of seconds above 0, not {secs}");
        }
        l.timeout = std::time::Duration::from_secs_f64(secs);
    }
    if let Some(n) = args.max_tokens.or(cfg.llm_max_tokens) {
        l.max_tokens = n;
    }
    if let Some(table) = &cfg.llm_options {
        for (k, v) in table {
            l.options.insert(k.clone(), serde_json::to_value(v)?);
        }
    }
    for o in &args.llm_options {
        let Some((k, v)) = o.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            bail!("--llm-option {o:?}: expected KEY=VALUE");
        };
        let v =
            serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
        l.options.insert(k.trim().to_string(), v);
    }
    if let Some(p) = args.prompt.as_ref().or(cfg.llm_prompt.as_ref()) {
        l.template =
            indexer_engine::PromptTemplate::from_file(p).map_err(indexer_engine::Error::from)?;
    }
    Ok(Some(l))
}

fn query(args: QueryArgs, cfg: &config::Config, index_dir: PathBuf) -> Result<ExitCode> {
    let format = args.format.unwrap_or(Format::Text);
    if args.unit == Unit::Page && format == Format::Markdown {
        anyhow::bail!(
            "--format markdown is an evidence pack of notes; with --unit page use --format text or json"
        );
    }
    let req = search_request(args.question, args.search, cfg)?;
    let engine = Engine::open(&index_dir, &runtime()?)?;
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

fn eval(args: EvalArgs, cfg: &config::Config, index: Option<PathBuf>) -> Result<ExitCode> {
    let rt = runtime()?;
    let encoder = std::sync::Arc::new(indexer_engine::load_encoder(
        &rt,
        &model(args.model.clone(), cfg),
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
            jobs: jobs(args.jobs, cfg)?,
            crops: true,
            paper_chunks: false,
            ocr_pictures: args.ocr_pictures,
            aligned_tables: args.aligned_tables,
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
        matching: args.matching,
        out: args.out.clone(),
        limit: args.limit,
    };
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
