//! What the threads of a run share: the run's settings and clock, the stop flag, the window
//! of requests since the last sample, and the errors.

use crate::args::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The first error messages kept for the report; the rest are only counted.
const KEPT_ERRORS: usize = 20;

/// Everything the threads of a run share.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) args: Args,
    /// The work folder: `docs/` (the ingested folder) and `index/`.
    pub(crate) work: PathBuf,
    pub(crate) addr: SocketAddr,
    pub(crate) queries: Vec<String>,
    pub(crate) t0: Instant,
    stop: AtomicBool,
    pub(crate) window: Mutex<Window>,
    errors: Mutex<Vec<String>>,
    errors_total: AtomicU64,
}

impl Run {
    /// A run of `args` on `addr`, its clock started now, nothing stopped, counted or kept yet.
    pub(crate) fn new(args: Args, work: PathBuf, addr: SocketAddr, queries: Vec<String>) -> Run {
        Run {
            args,
            work,
            addr,
            queries,
            t0: Instant::now(),
            stop: AtomicBool::new(false),
            window: Mutex::new(Window::default()),
            errors: Mutex::new(Vec::new()),
            errors_total: AtomicU64::new(0),
        }
    }

    /// The same run with its clock started again now (when the clients start).
    pub(crate) fn restarted_clock(self) -> Run {
        Run {
            t0: Instant::now(),
            ..self
        }
    }

    /// Tells every thread of the run to end.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Every error counted so far.
    pub(crate) fn errors_total(&self) -> u64 {
        self.errors_total.load(Ordering::Relaxed)
    }

    /// The first error messages, as the report shows them.
    pub(crate) fn first_errors(&self) -> Vec<String> {
        self.errors.lock().unwrap().clone()
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub(crate) fn error(&self, message: String) {
        self.errors_total.fetch_add(1, Ordering::Relaxed);
        self.window.lock().unwrap().errors += 1;
        let mut kept = self.errors.lock().unwrap();
        if kept.len() < KEPT_ERRORS {
            kept.push(format!("{:.1} s: {message}", self.seconds()));
        }
    }

    /// Sleeps until `deadline` or until the run stops; false when it stopped.
    pub(crate) fn sleep_until(&self, deadline: Instant) -> bool {
        while Instant::now() < deadline {
            if self.stopped() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100).min(deadline - Instant::now()));
        }
        !self.stopped()
    }
}

/// Requests completed since the last sample.
#[derive(Debug, Default)]
pub(crate) struct Window {
    pub(crate) requests: u64,
    pub(crate) errors: u64,
    /// Milliseconds of each search (GET and POST `/search`) completed in the window.
    pub(crate) search_ms: Vec<f64>,
}
