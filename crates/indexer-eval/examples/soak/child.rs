//! Child processes: `indexer` runs in their own process groups, and `indexer serve` started
//! and waited for.

use crate::error::Result;
use crate::http::Conn;
use crate::state::Run;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A child process in its own process group, killed with the whole group on drop (PDF workers
/// of an ingest included), however the harness ends.
#[derive(Debug)]
pub(crate) struct Child {
    inner: std::process::Child,
}

impl Child {
    pub(crate) fn spawn(name: &str, cmd: &mut Command) -> Result<Child> {
        let inner = cmd
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        Ok(Child { inner })
    }

    pub(crate) fn id(&self) -> u32 {
        self.inner.id()
    }

    pub(crate) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.inner.try_wait().ok().flatten()
    }

    pub(crate) fn kill(&mut self) {
        if self.exited().is_none() {
            // The group id is the child's pid (process_group(0)): this reaches its children.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.inner.id())])
                .stderr(Stdio::null())
                .status();
            let _ = self.inner.kill();
        }
        let _ = self.inner.wait();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `indexer --index WORK/index ARGS...` in the work folder, with `--runtime` passed on.
pub(crate) fn indexer(run: &Run, args: &[&str]) -> Command {
    let mut cmd = Command::new(&run.args.indexer);
    cmd.arg("--index")
        .arg(run.work.join("index"))
        .args(args)
        .current_dir(&run.work)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    if let Some(rt) = &run.args.runtime {
        cmd.env("INDEXER_RUNTIME", rt);
    }
    cmd
}

/// Starts `indexer serve` (stderr to OUT/serve.log) and waits until `/health` answers.
pub(crate) fn start_server(run: &Run, signal: &AtomicBool) -> Result<Child> {
    let log_path = run.args.out.join("serve.log");
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let addr = run.addr.to_string();
    let mut child = Child::spawn(
        "indexer serve",
        indexer(run, &["serve", "--addr", &addr])
            .stdout(Stdio::null())
            .stderr(log),
    )?;
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.exited() {
            return Err(format!(
                "indexer serve exited ({st}): see {}",
                log_path.display()
            ));
        }
        if let Ok(r) = Conn::new(run.addr, false).request("GET", "/health", None)
            && r.status == 200
        {
            return Ok(child);
        }
        if signal.load(Ordering::Relaxed) {
            return Err("interrupted while the server started".into());
        }
        if t0.elapsed() > Duration::from_secs(120) {
            return Err(format!(
                "indexer serve did not answer /health within 120 s: see {}",
                log_path.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
