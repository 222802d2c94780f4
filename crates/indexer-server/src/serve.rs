//! Serving: the accept loop over a TCP listener, with the time a client has to send a
//! request's headers (a client that opens connections and sends nothing, or sends a byte a
//! minute, is cut off), graceful shutdown, and the client's address on every request (for the
//! rate limit). The body's time counts in the request's time limit (`ServerConfig::timeout`).

use crate::app::router;
use crate::config::ServerConfig;
use crate::{Error, Result};
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use indexer_engine::Engine;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

/// How long requests in flight may take to finish once shutdown starts.
const DRAIN: Duration = Duration::from_secs(10);

/// A warning for an address other machines can reach: the API has no authentication.
pub fn exposure_warning(addr: SocketAddr) -> Option<String> {
    (!addr.ip().is_loopback()).then(|| {
        format!(
            "listening on {addr}, which other machines can reach: the API has no \
             authentication; put it behind a proxy that has, or bind 127.0.0.1"
        )
    })
}

/// Serves on `addr` until Ctrl-C, then finishes the requests in flight. Prints a warning on
/// stderr when the address is reachable from other machines.
pub async fn serve(engine: Arc<Engine>, cfg: ServerConfig, addr: SocketAddr) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })?;
    if let Some(w) = exposure_warning(addr) {
        eprintln!("indexer: warning: {w}");
    }
    serve_on(listener, engine, cfg, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}

/// Serves on a bound listener until `shutdown` completes (tests and embedders).
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    cfg: ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let refresh = cfg.refresh_every;
    let header_timeout = cfg.header_timeout;
    let bg = engine.clone();
    // New generations are picked up even when nobody queries, so /stats is current.
    let ticker = tokio::spawn(async move {
        let mut tick = tokio::time::interval(refresh);
        loop {
            tick.tick().await;
            let e = bg.clone();
            let _ = tokio::task::spawn_blocking(move || e.refresh()).await;
        }
    });
    let app = router(engine, cfg);
    let mut http = hyper::server::conn::http1::Builder::new();
    // The header timer runs from the start of each request's headers, and on a keep-alive
    // connection from the end of the previous answer: an idle connection is closed too.
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let result = loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors and the like: wait and go on, as a server must.
                Err(e) if is_transient(&e) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(e) => break Err(Error::Io(e)),
            },
            _ = &mut shutdown => break Ok(()),
        };
        let _ = stream.set_nodelay(true);
        let svc = app
            .clone()
            .map_request(move |req: hyper::Request<hyper::body::Incoming>| {
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut().insert(ConnectInfo(peer));
                req
            });
        let conn = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(svc));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A client that goes away or sends garbage ends its own connection only.
            let _ = conn.await;
        });
    };
    ticker.abort();
    let _ = tokio::time::timeout(DRAIN, graceful.shutdown()).await;
    result
}

fn is_transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock | OutOfMemory
    ) || e.raw_os_error().is_some_and(|c| c == 24 || c == 23) // EMFILE, ENFILE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_quiet() {
        assert!(exposure_warning("127.0.0.1:7700".parse().unwrap()).is_none());
        assert!(exposure_warning("[::1]:7700".parse().unwrap()).is_none());
        let w = exposure_warning("0.0.0.0:7700".parse().unwrap()).unwrap();
        assert!(w.contains("0.0.0.0:7700") && w.contains("127.0.0.1"), "{w}");
        assert!(exposure_warning("192.168.1.5:80".parse().unwrap()).is_some());
    }
}
