//! The settings of a run, each from the first place that has it: the flag, else the
//! environment variable, else `indexer.toml` in the working directory ([`Config`]), else the
//! default.

use crate::cli::args::{LlmArgs, SearchArgs};
use crate::cli::config::{self, Config};
use anyhow::{Context, Result, bail};
use indexer_engine::{DEFAULT_MODEL, Filter, SearchRequest, SelectorSpec};
use std::path::PathBuf;

/// What every command starts from: `indexer.toml` and the index.
pub struct Settings {
    /// `indexer.toml` of the working directory (empty without one).
    pub file: Config,
    /// The index: `--index`, else `INDEXER_INDEX`, else `index` in indexer.toml, else
    /// `.indexer`.
    pub index_dir: PathBuf,
    /// `--index` as given (`indexer eval` has its own default without it).
    pub index_flag: Option<PathBuf>,
}

impl Settings {
    /// Reads `indexer.toml` (an invalid file is an error for every command) and resolves the
    /// index.
    pub fn load(index_flag: Option<PathBuf>) -> Result<Settings> {
        let file = Config::load()?;
        let index_dir = index_flag
            .clone()
            .or_else(|| {
                std::env::var_os("INDEXER_INDEX")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .or(file.index.clone())
            .unwrap_or_else(|| PathBuf::from(".indexer"));
        Ok(Settings {
            file,
            index_dir,
            index_flag,
        })
    }

    /// PDF worker processes: the flag, else `INDEXER_JOBS`, else `jobs` in indexer.toml, else
    /// one per core (the worker pool makes 0 into 1).
    pub fn jobs(&self, flag: Option<usize>) -> Result<usize> {
        Ok(flag
            .or(config::env_parse("INDEXER_JOBS")?)
            .or(self.file.jobs)
            .unwrap_or_else(cores))
    }

    /// The encoder of a new index: the flag, else `INDEXER_MODEL`, else `model` in
    /// indexer.toml, else the default model.
    pub fn model(&self, flag: Option<String>) -> String {
        flag.or(config::env_string("INDEXER_MODEL"))
            .or(self.file.model.clone())
            .unwrap_or_else(|| DEFAULT_MODEL.to_string())
    }

    /// The engine's request for a question and the search options: flags, else environment
    /// variables, else indexer.toml, else the defaults.
    pub fn search_request(&self, question: String, args: SearchArgs) -> Result<SearchRequest> {
        let cfg = &self.file;
        let selector: SelectorSpec = match args
            .selector
            .or(config::env_string("INDEXER_SELECTOR"))
            .or(cfg.selector.clone())
        {
            Some(s) => indexer_engine::parse_selector(&s)
                .map_err(|(_, message)| anyhow::anyhow!("--selector: {message}"))?,
            None => indexer_engine::DEFAULT_SELECTOR.into(),
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
        let rewrite = if args.no_rewrite {
            indexer_engine::Rules::NONE
        } else {
            match args
                .rewrite
                .map(Ok)
                .or(config::env_string("INDEXER_REWRITE").map(|v| v.parse()))
                .or(cfg.rewrite.clone().map(config::RewriteSetting::rules))
            {
                Some(r) => r.map_err(|e| anyhow::anyhow!("rewrite: {e}"))?,
                None => indexer_engine::DEFAULT_REWRITE,
            }
        };
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
            rewrite,
            ranking: match args
                .ranking
                .map(Ok)
                .or(config::env_string("INDEXER_RANKING").map(|v| v.parse()))
                .or(cfg.ranking.as_deref().map(str::parse))
            {
                Some(r) => r.map_err(|e: String| anyhow::anyhow!("ranking: {e}"))?,
                None => indexer_engine::DEFAULT_RANKING,
            },
        })
    }

    /// The model server's settings: flags, else environment variables, else indexer.toml.
    /// `None` when no URL is set anywhere.
    pub fn llm_config(&self, args: &LlmArgs) -> Result<Option<indexer_engine::LlmConfig>> {
        let cfg = &self.file;
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
                bail!(
                    "the model server's time limit must be a number of seconds above 0, not {secs}"
                );
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
            let v = serde_json::from_str(v)
                .unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
            l.options.insert(k.trim().to_string(), v);
        }
        if let Some(p) = args.prompt.as_ref().or(cfg.llm_prompt.as_ref()) {
            l.template = indexer_engine::PromptTemplate::from_file(p)
                .map_err(indexer_engine::Error::from)?;
        }
        Ok(Some(l))
    }
}

/// The machine's cores: PDF workers and encoder sessions by default.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
