//! The HTTP server of `indexer`: a JSON search API over an [`Engine`], a search page at `/` and
//! `/widget.js`, a script a documentation site includes to get the same search box.
//!
//! ```no_run
//! # async fn run(engine: std::sync::Arc<indexer_engine::Engine>) -> indexer_server::Result<()> {
//! let cfg = indexer_server::ServerConfig::default();
//! indexer_server::serve(engine, cfg, "127.0.0.1:7700".parse().unwrap()).await?;
//! # Ok(()) }
//! ```
//!
//! [`Engine`]: indexer_engine::Engine

mod app;
mod ask;
mod config;
mod error;
mod index;
mod page;
mod rate;
mod request;
mod response;
mod search;
mod serve;
mod state;

pub use app::router;
pub use config::ServerConfig;
pub use page::PAGE_SEARCH_PARAMS;
pub use serve::{exposure_warning, serve, serve_on};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of starting and running the server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The address cannot be bound (in use, or not a local address).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    /// The server stopped on an IO error.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// Whether the error is the caller's to fix.
    pub fn is_user_error(&self) -> bool {
        matches!(self, Error::Bind { .. })
    }
}
