//! The state every handler shares: the engine, the configuration, the refresh of index
//! generations and the search queue; [`blocking`] runs engine work off the async threads.

use crate::config::ServerConfig;
use crate::error::ApiError;
use indexer_engine::Engine;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub(crate) struct AppState {
    pub(crate) engine: Arc<Engine>,
    pub(crate) cfg: ServerConfig,
    last_refresh: Mutex<Option<Instant>>,
    searches: tokio::sync::Semaphore,
}

pub(crate) type Shared = Arc<AppState>;

impl AppState {
    /// The state of a new server: no refresh yet, a search queue of
    /// `cfg.max_concurrent_searches` turns (at least one).
    pub(crate) fn new(engine: Arc<Engine>, cfg: ServerConfig) -> AppState {
        let searches = tokio::sync::Semaphore::new(cfg.max_concurrent_searches.max(1));
        AppState {
            engine,
            cfg,
            last_refresh: Mutex::new(None),
            searches,
        }
    }

    /// Picks up a newer complete generation, at most once per `refresh_every`. Blocking.
    fn maybe_refresh(&self) {
        {
            let mut last = self.last_refresh.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|t| t.elapsed() < self.cfg.refresh_every) {
                return;
            }
            *last = Some(Instant::now());
        }
        if let Err(e) = self.engine.refresh() {
            // Keep serving the generation we have; the next check retries.
            eprintln!("indexer serve: cannot refresh the index: {e}");
        }
    }
}

/// Runs blocking engine work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    st: &Shared,
    f: impl FnOnce(&AppState) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let st = st.clone();
    tokio::task::spawn_blocking(move || {
        st.maybe_refresh();
        f(&st)
    })
    .await
    .map_err(|e| ApiError::internal(format!("the search task failed: {e}")))?
}

/// Waits for a turn in the search queue (searches computed at the same time are limited).
pub(crate) async fn search_turn(st: &Shared) -> Result<tokio::sync::SemaphorePermit<'_>, ApiError> {
    st.searches
        .acquire()
        .await
        .map_err(|e| ApiError::internal(format!("the search queue is closed: {e}")))
}
