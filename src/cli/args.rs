//! The command line's arguments: the clap types of every command, and the flags several
//! commands share, each group in one struct they flatten (`SearchArgs`, `LlmArgs`,
//! `WorkerArgs`, `NotesArgs`, `JsonArg`). The doc comments are the `--help` text.

use clap::{Parser, Subcommand, ValueEnum};
use indexer_engine::{NoteKind, SelectorKind};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "indexer",
    version,
    about = "Search engine for long documents: evidence sets from PDFs, Markdown, HTML and text"
)]
pub struct Cli {
    /// Index folder, or a Milvus collection as milvus://HOST:PORT/COLLECTION[?crops=DIR&batch=N]
    /// [env: INDEXER_INDEX] [default: ./.indexer, or `index` in ./indexer.toml]
    #[arg(long, global = true, value_name = "DIR")]
    pub index: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Add files and folders to the index, or update it (unchanged files are skipped)
    Ingest(IngestArgs),
    /// Answer a question with an evidence set
    Query(QueryArgs),
    /// Answer a question in prose: the evidence set read by a model server (any
    /// OpenAI-compatible chat-completions API), with the sources it cites
    Ask(AskArgs),
    /// Show one note whole, with its links
    Show(ShowArgs),
    /// Documents, pages, notes by kind, failed files, model, size and generation of the index
    Stats(StatsArgs),
    /// Export every note (for another engine)
    Export(ExportArgs),
    /// Serve the JSON search API and a search page (the search backend of a docs site)
    Serve(ServeArgs),
    /// Measure evidence quality against gold evidence pages, or retrieval on a BEIR folder
    Eval(EvalArgs),
    /// Serve the index to agents: a Model Context Protocol server on stdin and stdout (tools
    /// search, ask, show, list_documents; crop images as resources)
    Mcp(McpArgs),
    /// Show where the runtime parts are and check that they load
    Runtime,
    /// Internal: a PDF worker process (reads jobs on stdin)
    #[command(name = "__pdf-worker", hide = true)]
    PdfWorker,
}

#[derive(clap::Args, Debug)]
pub struct IngestArgs {
    /// Files and folders (folders are read recursively)
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub workers: WorkerArgs,
    /// No progress output
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the summary as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Do not render figure and table crops
    #[arg(long)]
    pub no_crops: bool,
    /// Chunk by characters as the paper does (3000 with 300 overlap) instead of encoder tokens
    #[arg(long)]
    pub paper_chunks: bool,
    #[command(flatten)]
    pub notes: NotesArgs,
}

/// The PDF worker processes: the flag `ingest` and `eval` share.
#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// Worker processes for PDFs [env: INDEXER_JOBS] [default: number of cores]
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// How documents become notes and vectors: the flags `ingest` and `eval` share (`eval` words
/// their help for its own index).
#[derive(clap::Args, Debug)]
pub struct NotesArgs {
    /// Also read raster pictures on pages with text (charts, diagrams, screenshots) by OCR,
    /// so their words are found (slower; needs tesseract)
    #[arg(long)]
    pub ocr_pictures: bool,
    /// Also find tables without ruling lines or a caption from the alignment of their text
    /// (financial statements, report tables): table notes with crops
    #[arg(long)]
    pub aligned_tables: bool,
    /// Encoder: a folder name under the runtime's models/ or a path to a model folder
    /// [env: INDEXER_MODEL] [default: all-MiniLM-L6-v2]
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
}

/// `--json`: the flag `show` and `stats` share.
#[derive(clap::Args, Debug)]
pub struct JsonArg {
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// A note id as printed by `query` (for example `paper.pdf#t12`)
    pub note_id: String,
    #[command(flatten)]
    pub json: JsonArg,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub json: JsonArg,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: ExportFormat,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (loopback by default)
    #[arg(long, default_value = "127.0.0.1:7700")]
    pub addr: std::net::SocketAddr,
    /// Origins allowed to call the API from a browser (repeatable), e.g. http://localhost:8000
    #[arg(long = "cors", value_name = "ORIGIN")]
    pub cors: Vec<String>,
    /// Folder the document ids are relative to, for links to the PDFs [default: working directory]
    #[arg(long, value_name = "DIR")]
    pub docs_root: Option<PathBuf>,
    /// The URL the documents are published at (a docs site): results link to
    /// URL/DOC#section (PDFs: #page=N) instead of the files served here
    #[arg(long, value_name = "URL")]
    pub site_url: Option<String>,
    /// Requests a second per client address (a burst of as many, then that rate); over it
    /// a 429 with Retry-After [default: no limit]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: Option<u32>,
    /// The model server `POST /ask` sends evidence to (off without one)
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(clap::Args, Debug)]
pub struct QueryArgs {
    /// The question
    pub question: String,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Output format [default: text]
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<Format>,
    /// What to return: `note`, an evidence set of B notes; `page`, the B best pages, each
    /// with its best notes (the selector is not used)
    #[arg(long, value_enum, default_value = "note")]
    pub unit: Unit,
}

/// How the evidence is chosen: the options `query` and `ask` share.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// Selector: fused-cap, fused, cosine, cds, cds-paper, cds-exact, cds-hybrid, mmr, mmr-hybrid, dpp, dpp-hybrid, ppr, random; options as NAME:KEY=VALUE:... (cds:cap=2, fused-cap:cap=2, mmr:lambda=0.5) [env: INDEXER_SELECTOR] [default: fused-cap]
    #[arg(long, short = 's', value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Evidence notes to select (the paper's B) [env: INDEXER_BUDGET] [default: 10]
    #[arg(long, short = 'b', value_name = "B")]
    pub budget: Option<usize>,
    /// Candidates from each of BM25 and vectors [env: INDEXER_CANDIDATES] [default: 100]
    #[arg(long, short = 'k', value_name = "K")]
    pub candidates: Option<usize>,
    /// Only these documents (repeatable): an id as `stats`/`query` print it, a title, or the start of a file name
    #[arg(long = "doc", value_name = "DOC")]
    pub docs: Vec<String>,
    /// Only these kinds (repeatable): text, figure, table
    #[arg(long = "kind", value_name = "KIND")]
    pub kinds: Vec<NoteKind>,
    /// Only pages in this range: `5`, `3-9`
    #[arg(long, value_name = "RANGE")]
    pub pages: Option<String>,
    /// How query words match: exact (as typed), prefix (the last word also as a prefix),
    /// typos (words the index does not hold, at edit distance 1, or 2 from 9 letters) or
    /// typing (prefix and typos)
    #[arg(long, value_name = "HOW", default_value_t = indexer_engine::DEFAULT_MATCHING)]
    pub matching: indexer_engine::Matching,
    /// Search BM25 once, without the terms of the first round's best note (pseudo-relevance
    /// feedback, on by default)
    #[arg(long)]
    pub no_feedback: bool,
    /// The rules of the rewrite stage: true (the default rules, pages and terms), false, all, or some of
    /// instructions (closing instructions about the answer left out), terms (a financial
    /// measure's line items added, in a financial context) and pages (pages named of a known
    /// document put first), comma-separated; also INDEXER_REWRITE, `rewrite` in indexer.toml
    #[arg(long, value_name = "RULES", conflicts_with = "no_rewrite")]
    pub rewrite: Option<indexer_engine::Rules>,
    /// Search the question as typed (the same as --rewrite false)
    #[arg(long)]
    pub no_rewrite: bool,
    /// How candidates are ranked before selection: learned (the learned model of the index's
    /// encoder over each candidate's features) or fused (the first stage's fused score);
    /// also INDEXER_RANKING, `ranking` in indexer.toml
    #[arg(long, value_name = "RANKING")]
    pub ranking: Option<indexer_engine::Ranking>,
}

#[derive(clap::Args, Debug)]
pub struct AskArgs {
    /// The question
    pub question: String,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Output format: text streams the answer as it arrives, then its sources; json prints
    /// the answer, citations, evidence, model, token usage and timings at the end
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: AskFormat,
    /// Print the chat-completions request that would be sent (JSON, images as data URLs)
    /// and send nothing
    #[arg(long)]
    pub print_request: bool,
}

/// The model server and how to use it. The API key comes from the environment only:
/// INDEXER_LLM_API_KEY, or the variable `llm_api_key_env` in indexer.toml names.
#[derive(clap::Args, Debug)]
pub struct McpArgs {
    /// The model server of the `ask` tool (as for `ask`; without one the tool says so)
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(clap::Args, Debug)]
pub struct LlmArgs {
    /// Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1
    /// [env: INDEXER_LLM_URL] [or llm_url in indexer.toml]
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// The model to ask [env: INDEXER_LLM_MODEL] [default: the first the server lists]
    #[arg(long, value_name = "NAME")]
    pub llm_model: Option<String>,
    /// Attach figure and table crops as images: auto (unless the server refuses them),
    /// always, never [default: auto]
    #[arg(long, value_name = "WHEN")]
    pub images: Option<indexer_engine::Images>,
    /// Seconds the answer may take [default: 120]
    #[arg(long, value_name = "SECS")]
    pub llm_timeout: Option<f64>,
    /// The answer's maximum length in tokens [default: 1024]
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// A prompt template file: {{question}} and {{evidence}}; a line `---` separates a system
    /// message above from the user message below [default: the built-in prompt]
    #[arg(long, value_name = "FILE")]
    pub prompt: Option<PathBuf>,
    /// A field of the request body, repeatable: KEY=VALUE, VALUE as JSON or else a string
    /// (`temperature=0`, `seed=7`, `response_format={"type":"json_object"}`)
    #[arg(long = "llm-option", value_name = "KEY=VALUE")]
    pub llm_options: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AskFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Unit {
    Note,
    Page,
}

#[derive(clap::Args, Debug)]
#[command(
    mut_arg("ocr_pictures", |a| a.help("Ingest the documents with `ingest --ocr-pictures`")),
    mut_arg("aligned_tables", |a| a.help("Ingest the documents with `ingest --aligned-tables`")),
    mut_arg("model", |a| a.help(
        "Encoder of the evaluation's index (as for `ingest`) [env: INDEXER_MODEL] [default: all-MiniLM-L6-v2]"
    )),
)]
pub struct EvalArgs {
    /// Questions with gold evidence pages (JSON lines; see ../shared/eval/README.md)
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "beir",
        requires = "docs"
    )]
    pub questions: Option<PathBuf>,
    /// The folder of the questions' documents (file names as the questions list them)
    #[arg(long, value_name = "DIR")]
    pub docs: Option<PathBuf>,
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels.tsv): nDCG@10 and recall@100 of BM25,
    /// vectors and the fused candidates
    #[arg(long, value_name = "DIR", conflicts_with = "questions")]
    pub beir: Option<PathBuf>,
    /// Selectors, comma-separated [default: all]
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub selectors: Vec<SelectorKind>,
    /// A parameter grid: a file of selectors with options, one a line
    /// (`cds-hybrid:beta=0.3:page=0.5`; `#` starts a comment), evaluated beside --selectors
    #[arg(long, value_name = "FILE")]
    pub grid: Option<PathBuf>,
    /// Evidence notes per question (B) [default: 10]
    #[arg(long, conflicts_with = "budgets")]
    pub budget: Option<usize>,
    /// A sweep of B, for example 3,5,10,15,20
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub budgets: Vec<usize>,
    /// Candidate pools, comma-separated: all (every note of the documents), hybrid (BM25 + vectors)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "all,hybrid"
    )]
    pub pools: Vec<indexer_eval::PoolMode>,
    /// Candidates from each of BM25 and vectors in the hybrid pool
    #[arg(long, default_value_t = indexer_engine::DEFAULT_CANDIDATES)]
    pub candidates: usize,
    /// How the hybrid pool fuses BM25 and vectors: convex (normalised scores, BM25 weight
    /// 0.5), convex:W, rrf (k = 60) or rrf:K
    #[arg(long, value_name = "FUSION", default_value_t = indexer_engine::Fusion::default())]
    pub fusion: indexer_engine::Fusion,
    /// How query words match in the hybrid pool: exact, prefix, typos or typing (as for
    /// `query`)
    #[arg(long, value_name = "HOW", default_value_t = indexer_engine::DEFAULT_MATCHING)]
    pub matching: indexer_engine::Matching,
    /// The hybrid pool without pseudo-relevance feedback (as for `query`)
    #[arg(long)]
    pub no_feedback: bool,
    /// The rules of the rewrite stage the questions go through (as for `query`): true,
    /// false, or some of instructions, terms, pages
    #[arg(long, value_name = "RULES", default_value_t = indexer_engine::DEFAULT_REWRITE, conflicts_with = "no_rewrite")]
    pub rewrite: indexer_engine::Rules,
    /// Questions searched as written (the same as --rewrite false)
    #[arg(long)]
    pub no_rewrite: bool,
    /// Report the figures by fold too: the documents dealt into this many folds by the hash
    /// of their name (0: no folds)
    #[arg(long, value_name = "K", default_value_t = indexer_eval::folds::DEFAULT_FOLDS)]
    pub folds: usize,
    /// What each question is searched over: docs (its own documents, the default), docs:K
    /// (its documents and K others of the set, chosen by the question's id) or library (the
    /// whole index, no filter)
    #[arg(long, value_name = "SCOPE", default_value = "docs")]
    pub scope: indexer_eval::Scope,
    /// How the hybrid pool's candidates are ranked (as for `query`): learned or fused
    #[arg(long, value_name = "RANKING", default_value_t = indexer_engine::DEFAULT_RANKING)]
    pub ranking: indexer_engine::Ranking,
    /// A folder of learned models, one a fold (fold-K.json and fold-K.txt, trained without
    /// fold K by tools/train-ranker): each fold's questions ranked by its own model
    #[arg(long, value_name = "DIR", conflicts_with = "ranking")]
    pub ranker_folds: Option<PathBuf>,
    /// Write the features of every answerable question's first-stage candidates, with their
    /// labels, to this CSV file (for tools/train-ranker), then evaluate as asked
    #[arg(long, value_name = "FILE")]
    pub export_features: Option<PathBuf>,
    /// Output folder: report.md, results.jsonl (a rerun resumes), plots
    #[arg(long, value_name = "DIR", default_value = "eval-out")]
    pub out: PathBuf,
    /// Only the first N questions
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    #[command(flatten)]
    pub workers: WorkerArgs,
    // The flags of `ingest`, their help worded for the evaluation's index (`mut_arg` above).
    #[command(flatten)]
    pub notes: NotesArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    Jsonl,
}
