//! The server's configuration: its limits and options ([`ServerConfig`]).

use crate::response::Links;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Limits and options of the server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Origins allowed to call the API from a browser (a docs site on another port or host).
    /// Empty: no CORS headers, only same-origin pages can read answers.
    pub cors_origins: Vec<String>,
    /// Longest query, in characters.
    pub max_query_len: usize,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Largest budget B a request may ask for.
    pub max_budget: usize,
    /// Largest number of candidates k a request may ask for.
    pub max_candidates: usize,
    /// Time a request may take before a 503.
    pub timeout: Duration,
    /// The folder the documents were ingested from (the ingest base), to serve the original
    /// files at `/documents/{doc}/file`. `None`: files are not served.
    pub docs_root: Option<PathBuf>,
    /// The URL the documents are published at (a docs site; no trailing `/`): a hit's `url`
    /// is `{site_url}/{doc}#anchor` (`#page=N` for a PDF). `None`: hits open the file served
    /// here, or the note.
    pub site_url: Option<String>,
    /// Time a client has to send a request's headers (and, on a keep-alive connection, to
    /// start the next request) before the connection is closed.
    pub header_timeout: Duration,
    /// Requests a second per client address (a burst of as many, then that rate); over it a
    /// 429 with `Retry-After`. `None`: no limit.
    pub rate_limit: Option<u32>,
    /// How often a request may check for a newer index generation.
    pub refresh_every: Duration,
    /// Searches computed at the same time; more wait their turn, within the request's time
    /// limit. One per core by default: more would only share the same cores, stretch every
    /// search and starve an `indexer ingest` running beside the server (measured in the
    /// crate's README, "The search queue").
    pub max_concurrent_searches: usize,
    /// The model server `POST /ask` sends evidence to; `None`: `/ask` answers 404
    /// `ask_disabled`. Its time limit is `/ask`'s (instead of `timeout`).
    pub llm: Option<Arc<indexer_engine::Llm>>,
}

impl ServerConfig {
    /// Where the links of an answer point, as this configuration says.
    pub(crate) fn links(&self) -> Links {
        Links {
            files_served: self.docs_root.is_some(),
            site_url: self
                .site_url
                .as_ref()
                .map(|u| u.trim_end_matches('/').to_string()),
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            cors_origins: Vec::new(),
            max_query_len: 1000,
            max_body: 64 * 1024,
            max_budget: 50,
            max_candidates: 1000,
            timeout: Duration::from_secs(10),
            docs_root: None,
            site_url: None,
            header_timeout: Duration::from_secs(10),
            rate_limit: None,
            refresh_every: Duration::from_secs(1),
            max_concurrent_searches: std::thread::available_parallelism().map_or(1, |n| n.get()),
            llm: None,
        }
    }
}
