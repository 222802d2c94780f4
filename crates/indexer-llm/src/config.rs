//! What `indexer ask` talks to and how: the endpoint, the model, the key, images, limits.

use crate::prompt::PromptTemplate;
use crate::{Error, Result};
use std::time::Duration;

/// The environment variable the API key is read from by default. The key is never a flag and
/// never printed.
pub const API_KEY_ENV: &str = "INDEXER_LLM_API_KEY";
/// The longest answer, in tokens, when the caller does not say.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
/// The time an answer may take, from the request to its last token.
pub const DEFAULT_LLM_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether figure and table crops are attached to the request as images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Images {
    /// Attach them; if the server refuses a request with images (a text-only model), send it
    /// again without them and say so.
    #[default]
    Auto,
    /// Attach them; a refusal is an error.
    Always,
    /// Never attach them.
    Never,
}

impl std::str::FromStr for Images {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Images, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Images::Auto),
            "always" => Ok(Images::Always),
            "never" => Ok(Images::Never),
            _ => Err(format!("{s:?} is not auto, always or never")),
        }
    }
}

impl std::fmt::Display for Images {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Images::Auto => "auto",
            Images::Always => "always",
            Images::Never => "never",
        })
    }
}

/// An API key. Its `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key in the environment variable `name`, if it is set and not blank.
    pub fn from_env(name: &str) -> Option<ApiKey> {
        std::env::var(name)
            .ok()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .map(ApiKey)
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(..)")
    }
}

/// The model server and how to use it.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// Base URL of the OpenAI-compatible API, usually ending in `/v1`
    /// (`http://127.0.0.1:8080/v1`); requests go to `{url}/chat/completions` and `{url}/models`.
    pub url: String,
    /// The model to ask. `None`: the first model the server lists.
    pub model: Option<String>,
    pub api_key: Option<ApiKey>,
    /// The environment variable the key was read from, named in hints (default
    /// [`API_KEY_ENV`]).
    pub key_env: Option<String>,
    pub images: Images,
    /// The time the whole answer may take.
    pub timeout: Duration,
    /// The longest answer, in tokens.
    pub max_tokens: u32,
    pub template: PromptTemplate,
    /// More fields of the request body (`temperature`, `top_p`, `seed`, `response_format`,
    /// a server's own options), sent as given.
    pub options: serde_json::Map<String, serde_json::Value>,
}

impl LlmConfig {
    /// An endpoint with the defaults: the server's first model, no key, images when the
    /// server reads them, the default limits and prompt.
    pub fn new(url: impl Into<String>) -> LlmConfig {
        LlmConfig {
            url: url.into(),
            model: None,
            api_key: None,
            key_env: None,
            images: Images::default(),
            timeout: DEFAULT_LLM_TIMEOUT,
            max_tokens: DEFAULT_MAX_TOKENS,
            template: PromptTemplate::default(),
            options: serde_json::Map::new(),
        }
    }
}

/// A configured client of one model server.
#[derive(Debug)]
pub struct Llm {
    pub(crate) cfg: LlmConfig,
    /// The base URL without a trailing `/`.
    pub(crate) base: String,
    pub(crate) agent: ureq::Agent,
}

impl Llm {
    /// Checks the configuration (a URL with `http://` or `https://`, a positive answer length
    /// and time limit); nothing is sent yet.
    pub fn new(cfg: LlmConfig) -> Result<Llm> {
        let base = cfg.url.trim().trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) || base.len() < 10 {
            return Err(Error::Config(format!(
                "the model server URL {:?} is not an http:// or https:// URL",
                cfg.url
            )));
        }
        if cfg.max_tokens == 0 {
            return Err(Error::Config(
                "the answer's maximum length must be at least 1 token".into(),
            ));
        }
        for key in cfg.options.keys() {
            let own = match key.as_str() {
                "model" => Some("--llm-model"),
                "max_tokens" | "max_completion_tokens" => Some("--max-tokens"),
                "messages" | "stream" | "stream_options" | "n" => Some(""),
                _ => None,
            };
            if let Some(flag) = own {
                return Err(Error::Config(if flag.is_empty() {
                    format!("the request option {key:?} is set by indexer and cannot be changed")
                } else {
                    format!("the request option {key:?} is set with {flag}")
                }));
            }
        }
        if cfg.timeout.is_zero() {
            return Err(Error::Config("the time limit must be above 0".into()));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(cfg.timeout))
            .http_status_as_error(false)
            // A fresh connection for every request: a server that fails inside a stream may
            // leave a connection that looks reusable and is not (the request sent again then
            // meets a reset). A connection costs little beside a model's answer.
            .max_idle_connections(0)
            .user_agent(concat!("indexer/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Llm { cfg, base, agent })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.cfg
    }

    /// The base URL requests go to.
    pub fn url(&self) -> &str {
        &self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_not_in_debug_output() {
        let mut cfg = LlmConfig::new("http://127.0.0.1:1/v1");
        cfg.api_key = Some(ApiKey::new("sk-secret-123"));
        let shown = format!("{cfg:?} {:?}", Llm::new(cfg.clone()).unwrap());
        assert!(!shown.contains("sk-secret-123"), "{shown}");
        assert!(shown.contains("ApiKey(..)"));
    }

    #[test]
    fn bad_configurations_are_refused() {
        for url in ["", "localhost:8080", "ftp://x/v1", "http://"] {
            let e = Llm::new(LlmConfig::new(url)).unwrap_err();
            assert!(matches!(e, Error::Config(_)), "{url}: {e}");
        }
        let mut cfg = LlmConfig::new("http://127.0.0.1:1/v1");
        cfg.max_tokens = 0;
        assert!(Llm::new(cfg).is_err());
        let mut cfg = LlmConfig::new("http://127.0.0.1:1/v1/");
        cfg.timeout = Duration::ZERO;
        assert!(Llm::new(cfg).is_err());
        let mut cfg = LlmConfig::new("http://127.0.0.1:1/v1");
        cfg.options.insert("stream".into(), false.into());
        assert!(
            Llm::new(cfg)
                .unwrap_err()
                .to_string()
                .contains("set by indexer")
        );
        let mut cfg = LlmConfig::new("http://127.0.0.1:1/v1");
        cfg.options.insert("max_tokens".into(), 5.into());
        assert!(
            Llm::new(cfg)
                .unwrap_err()
                .to_string()
                .contains("--max-tokens")
        );
        let llm = Llm::new(LlmConfig::new(" https://api.example.org/v1/ ")).unwrap();
        assert_eq!(llm.url(), "https://api.example.org/v1");
    }

    #[test]
    fn images_policy_parses_and_prints() {
        for p in [Images::Auto, Images::Always, Images::Never] {
            assert_eq!(p.to_string().parse::<Images>(), Ok(p));
        }
        assert!("sometimes".parse::<Images>().is_err());
    }
}
