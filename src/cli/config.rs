//! Options from `indexer.toml` in the working directory. Flags win over environment variables,
//! which win over this file.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::PathBuf;

pub const CONFIG_FILE: &str = "indexer.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub index: Option<PathBuf>,
    pub selector: Option<String>,
    pub budget: Option<usize>,
    pub candidates: Option<usize>,
    /// The rewrite stage's rules: `true`, `false` or `"pages,terms"`.
    pub rewrite: Option<RewriteSetting>,
    /// `learned` or `fused`.
    pub ranking: Option<String>,
    pub jobs: Option<usize>,
    pub model: Option<String>,
    /// `indexer ask` and `POST /ask`: base URL of an OpenAI-compatible API.
    pub llm_url: Option<String>,
    pub llm_model: Option<String>,
    /// The environment variable that holds the API key (default INDEXER_LLM_API_KEY).
    pub llm_api_key_env: Option<String>,
    pub llm_images: Option<indexer_engine::Images>,
    /// Seconds.
    pub llm_timeout: Option<f64>,
    pub llm_max_tokens: Option<u32>,
    pub llm_prompt: Option<PathBuf>,
    /// More fields of the chat-completions request (`temperature = 0`).
    pub llm_options: Option<toml::Table>,
}

/// `rewrite` as `indexer.toml` writes it: a boolean or the rules by name.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RewriteSetting {
    On(bool),
    Rules(String),
}

impl RewriteSetting {
    pub fn rules(self) -> Result<indexer_engine::Rules, String> {
        match self {
            RewriteSetting::On(on) => Ok(on.into()),
            RewriteSetting::Rules(text) => text.parse(),
        }
    }
}

impl Config {
    pub fn load() -> Result<Config> {
        let path = std::path::Path::new(CONFIG_FILE);
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text)
                .with_context(|| format!("{CONFIG_FILE} in the working directory is not valid")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {CONFIG_FILE}")),
        }
    }
}

pub fn env_string(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

pub fn env_parse<T: std::str::FromStr>(name: &str) -> Result<Option<T>> {
    match env_string(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| anyhow::anyhow!("{name}={v:?} is not a valid number")),
    }
}
