//! Calls to the server: run on the client's own runtime and waited for on the caller's
//! thread, retried while the server cannot be reached, their errors made ours.

// The client's own error type is large (176 bytes); results carry it only to `map_error`.
#![allow(clippy::result_large_err)]

use crate::{Error, MilvusUrl};
use milvus::v2 as sdk;
use std::future::Future;
use std::time::Duration;

/// How long one call keeps retrying a server that does not answer (a restart, a network
/// blip), with backoff, before it fails: `INDEXER_MILVUS_RETRY_SECONDS`, default 60.
const RETRY_SECONDS: u64 = 60;
/// Runs the future `make` makes on `rt` and waits for it on this thread: works from a plain
/// thread and from inside another runtime (the server's), where `block_on` would panic. While
/// the server cannot be reached (a restart, a network blip) it tries again with backoff, for
/// up to `INDEXER_MILVUS_RETRY_SECONDS`: every call here is safe to repeat (upserts and
/// deletes by key, reads).
pub(crate) fn block<T: Send + 'static, Fut>(
    rt: &tokio::runtime::Runtime,
    make: impl Fn() -> Fut,
) -> std::result::Result<T, sdk::error::Error>
where
    Fut: Future<Output = sdk::error::Result<T>> + Send + 'static,
{
    block_for(rt, Duration::from_secs(retry_seconds()), make)
}

/// Sends `req` with `f` (a method of the client) through [`block`]: each attempt gets its
/// own copy of the client handle and of the request.
pub(crate) fn call<R: Clone, T: Send + 'static, Fut>(
    rt: &tokio::runtime::Runtime,
    client: &sdk::client::ClientV2,
    req: R,
    f: impl Fn(sdk::client::ClientV2, R) -> Fut,
) -> std::result::Result<T, sdk::error::Error>
where
    Fut: Future<Output = sdk::error::Result<T>> + Send + 'static,
{
    block(rt, || f(client.clone(), req.clone()))
}

/// [`block`], retrying for at most `limit`.
fn block_for<T: Send + 'static, Fut>(
    rt: &tokio::runtime::Runtime,
    limit: Duration,
    make: impl Fn() -> Fut,
) -> std::result::Result<T, sdk::error::Error>
where
    Fut: Future<Output = sdk::error::Result<T>> + Send + 'static,
{
    let t0 = std::time::Instant::now();
    let mut pause = Duration::from_millis(100);
    loop {
        let (tx, rx) = std::sync::mpsc::channel();
        let fut = make();
        rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        let r = rx.recv().unwrap_or_else(|_| {
            Err(sdk::error::Error::Unexpected(
                "the Milvus client stopped".into(),
            ))
        });
        match r {
            Err(e) if is_transport(&e) && t0.elapsed() + pause < limit => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(5));
            }
            r => return r,
        }
    }
}

/// Whether an error says the server could not be reached (refused, reset, timed out, the
/// client's own retries spent on that), as opposed to an answer.
fn is_transport(e: &sdk::error::Error) -> bool {
    match e {
        sdk::error::Error::Grpc(s) => {
            let code = s.code() as i32;
            matches!(
                code,
                tonic_code::UNAVAILABLE | tonic_code::DEADLINE_EXCEEDED | tonic_code::UNKNOWN
            ) && (code != tonic_code::UNKNOWN || s.message().contains("transport"))
        }
        sdk::error::Error::Timeout(_) => true,
        sdk::error::Error::RetryExhausted { source, .. } => is_transport(source),
        _ => false,
    }
}

/// A client error as ours: transport failures (refused, reset, timed out, retries spent on
/// them) are `Unreachable`.
pub(crate) fn map_error(url: &MilvusUrl, e: sdk::error::Error) -> Error {
    let endpoint = format!("{}:{}", url.host, url.port);
    if is_transport(&e) {
        let root = match &e {
            sdk::error::Error::RetryExhausted { source, .. } => source.as_ref(),
            other => other,
        };
        let message = match root {
            sdk::error::Error::Grpc(s) => s.message().to_string(),
            other => other.to_string(),
        };
        return Error::Unreachable { endpoint, message };
    }
    Error::Milvus {
        endpoint,
        message: e.to_string(),
    }
}

/// gRPC status codes as numbers (the client's `tonic::Code` without naming tonic here).
mod tonic_code {
    pub(super) const UNKNOWN: i32 = 2;
    pub(super) const DEADLINE_EXCEEDED: i32 = 4;
    pub(super) const UNAVAILABLE: i32 = 14;
}

pub(crate) fn retry_seconds() -> u64 {
    std::env::var("INDEXER_MILVUS_RETRY_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(RETRY_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_server_away_is_waited_for_and_an_answer_is_not_repeated() {
        let rt = runtime();
        // Two timeouts, then the answer: waited for.
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let r = block_for(&rt, Duration::from_secs(60), move || {
            let c = c.clone();
            async move {
                if c.fetch_add(1, Ordering::SeqCst) < 2 {
                    Err(sdk::error::Error::Timeout("down".into()))
                } else {
                    Ok(7)
                }
            }
        });
        assert_eq!(r.unwrap(), 7);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        // An error the server answered with is returned at once.
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let r: std::result::Result<(), _> = block_for(&rt, Duration::from_secs(60), move || {
            let c = c.clone();
            async move {
                c.fetch_add(1, Ordering::SeqCst);
                Err(sdk::error::Error::Unexpected("refused".into()))
            }
        });
        assert!(r.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        let url: MilvusUrl = "milvus://h:1/c".parse().unwrap();
        let e = map_error(&url, sdk::error::Error::Timeout("t".into()));
        assert!(matches!(e, Error::Unreachable { .. }), "{e}");
        let e = map_error(&url, sdk::error::Error::Unexpected("u".into()));
        assert!(matches!(e, Error::Milvus { .. }), "{e}");
    }

    #[test]
    fn the_wait_ends_after_the_retry_time() {
        let rt = runtime();
        let t0 = std::time::Instant::now();
        let r: std::result::Result<(), _> = block_for(&rt, Duration::from_secs(1), || async {
            Err(sdk::error::Error::Timeout("down".into()))
        });
        assert!(r.is_err());
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    }
}
