//! Worker processes for PDFs: the job protocol (JSON lines over stdin/stdout), the worker
//! loop and the pool that drives several workers.

use crate::document::{self, crop_spec, pdf_document};
use crate::elements::PdfElements;
use crate::error::{Error, Result, WireError};
use crate::options::{FileType, IngestOptions, Progress, supported};
use crate::pdf::{self, CropSpec};
use indexer_notes::{ParsedDocument, TokenCounter};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// When this environment variable is `1` in a worker, files whose name contains `__crash__`
/// abort the worker, files whose name contains `__hang__` make it sleep, and those whose name
/// contains `__slow__` take half a second a page: fault injection for tests of the pool's
/// recovery and time limit. Without it such names are ordinary.
pub const FAULTS_ENV: &str = "INDEXER_PDF_WORKER_FAULTS";

#[derive(Debug, Serialize, Deserialize)]
struct Job {
    path: PathBuf,
    doc: String,
    crop_dir: Option<PathBuf>,
    dpi: f32,
    #[serde(default)]
    ocr_pictures: bool,
    #[serde(default)]
    aligned_tables: bool,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Reply {
    Page { page: u32, pages: u32 },
    Done { elements: Box<PdfElements> },
    Failed { error: WireError },
}

/// The worker loop: reads one job per line on stdin, answers with JSON lines on stdout
/// (per-page progress, then the page elements or the error), until stdin closes. Binaries
/// call it from a hidden subcommand; nothing else may write to stdout.
pub fn run_worker() -> std::io::Result<()> {
    let faults = std::env::var(FAULTS_ENV).is_ok_and(|v| v == "1");
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let job: Job = serde_json::from_str(&line)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        if faults {
            let name = job.path.to_string_lossy();
            if name.contains("__crash__") {
                std::process::abort();
            }
            if name.contains("__hang__") {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        let mut out = stdout.lock();
        let spec = job
            .crop_dir
            .clone()
            .map(|dir| CropSpec { dir, dpi: job.dpi });
        let mut io_err = None;
        let slow = faults && job.path.to_string_lossy().contains("__slow__");
        let res = pdf::extract_pdf(
            &job.path,
            &job.doc,
            spec.as_ref(),
            pdf::Reading {
                ocr_pictures: job.ocr_pictures,
                aligned_tables: job.aligned_tables,
            },
            &mut |page, pages| {
                if slow {
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
                if io_err.is_none()
                    && let Err(e) = write_reply(&mut out, &Reply::Page { page, pages })
                {
                    io_err = Some(e);
                }
            },
        );
        if let Some(e) = io_err {
            return Err(e);
        }
        let reply = match res {
            Ok(el) => Reply::Done {
                elements: Box::new(el),
            },
            Err(e) => Reply::Failed { error: e.to_wire() },
        };
        write_reply(&mut out, &reply)?;
    }
    Ok(())
}

fn write_reply(out: &mut impl Write, r: &Reply) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// What the pool reports while it works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    FileStarted { doc: String, pages: u32 },
    Page { doc: String, page: u32, pages: u32 },
    FileDone { doc: String, notes: usize },
    FileFailed { doc: String, error: String },
}

/// A pool of worker processes for PDFs. Markdown, HTML and text files are parsed in the
/// calling process (they need no pdfium); notes are built in the calling process too, so the
/// token counter never crosses a process boundary.
#[derive(Debug)]
pub struct WorkerPool {
    program: PathBuf,
    args: Vec<std::ffi::OsString>,
    envs: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)>,
    dir: Option<PathBuf>,
    jobs: usize,
}

struct Proc {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<String>,
}

impl Proc {
    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

enum Msg {
    Event(Event),
    Result(usize, Result<ParsedDocument>),
}

impl WorkerPool {
    /// A pool that starts `jobs` workers (at least one) with `worker_command`: for example the
    /// `indexer` binary with its hidden `__pdf-worker` argument. The command's program,
    /// arguments, environment and working folder are used for every worker it starts.
    /// The number of worker processes: `jobs`, at least 1 (the one place it is clamped).
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    pub fn new(worker_command: Command, jobs: usize) -> WorkerPool {
        WorkerPool {
            program: worker_command.get_program().into(),
            args: worker_command.get_args().map(Into::into).collect(),
            envs: worker_command
                .get_envs()
                .map(|(k, v)| (k.into(), v.map(Into::into)))
                .collect(),
            dir: worker_command.get_current_dir().map(Into::into),
            jobs: jobs.max(1),
        }
    }

    fn spawn(&self) -> Result<Proc> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args);
        for (k, v) in &self.envs {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(d) = &self.dir {
            cmd.current_dir(d);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().map_err(|e| Error::Worker {
            detail: format!("cannot start {}: {e}", self.program.display()),
        })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Proc { child, stdin, rx })
    }

    /// Parses all files, `jobs` at a time, and returns one result per file in input order.
    /// A failing file (bad input, worker crash, timeout) gives an `Err` for that file only.
    pub fn parse_all(
        &self,
        files: Vec<(PathBuf, String)>,
        opts: &IngestOptions,
        counter: &dyn TokenCounter,
        crop_dir: &Path,
        on_event: &mut dyn FnMut(Event),
    ) -> Vec<(String, Result<ParsedDocument>)> {
        let docs: Vec<String> = files.iter().map(|(_, d)| d.clone()).collect();
        let mut results: Vec<Option<Result<ParsedDocument>>> = files.iter().map(|_| None).collect();
        let queue: Arc<Mutex<VecDeque<(usize, PathBuf, String)>>> = Arc::new(Mutex::new(
            files
                .into_iter()
                .enumerate()
                .map(|(i, (p, d))| (i, p, d))
                .collect(),
        ));
        let (tx, rx) = mpsc::channel::<Msg>();
        std::thread::scope(|s| {
            for _ in 0..self.jobs {
                let tx = tx.clone();
                let queue = Arc::clone(&queue);
                s.spawn(move || {
                    let mut proc: Option<Proc> = None;
                    loop {
                        let next = queue.lock().map(|mut q| q.pop_front()).ok().flatten();
                        let Some((i, path, doc)) = next else { break };
                        let res =
                            self.parse_one(&path, &doc, opts, counter, crop_dir, &mut proc, &tx);
                        let _ = tx.send(Msg::Result(i, res));
                    }
                    if let Some(p) = proc {
                        // Closing stdin ends the worker's loop; then reap it.
                        let Proc {
                            mut child, stdin, ..
                        } = p;
                        drop(stdin);
                        let _ = child.wait();
                    }
                });
            }
            drop(tx);
            for msg in rx {
                match msg {
                    Msg::Event(e) => on_event(e),
                    Msg::Result(i, res) => {
                        let doc = docs[i].clone();
                        on_event(match &res {
                            Ok(d) => Event::FileDone {
                                doc,
                                notes: d.notes.len(),
                            },
                            Err(e) => Event::FileFailed {
                                doc,
                                error: e.to_string(),
                            },
                        });
                        results[i] = Some(res);
                    }
                }
            }
        });
        docs.into_iter()
            .zip(results)
            .map(|(d, r)| {
                let r = r.unwrap_or_else(|| {
                    Err(Error::Worker {
                        detail: format!("no result for {d}"),
                    })
                });
                (d, r)
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn parse_one(
        &self,
        path: &Path,
        doc: &str,
        opts: &IngestOptions,
        counter: &dyn TokenCounter,
        crop_dir: &Path,
        proc: &mut Option<Proc>,
        tx: &mpsc::Sender<Msg>,
    ) -> Result<ParsedDocument> {
        let event = |e: Event| {
            let _ = tx.send(Msg::Event(e));
        };
        let kind = supported(path).ok_or_else(|| Error::Unsupported {
            path: path.to_path_buf(),
        })?;
        if kind != FileType::Pdf {
            event(Event::FileStarted {
                doc: doc.to_string(),
                pages: 1,
            });
            let mut progress = |p: Progress| {
                event(Event::Page {
                    doc: doc.to_string(),
                    page: p.page,
                    pages: p.pages,
                })
            };
            return document::parse_file(path, doc, opts, counter, crop_dir, &mut progress);
        }
        let crops = crop_spec(opts, crop_dir)?;
        let job = Job {
            path: path.to_path_buf(),
            doc: doc.to_string(),
            crop_dir: crops.as_ref().map(|c| c.dir.clone()),
            dpi: opts.dpi,
            ocr_pictures: opts.ocr_pictures,
            aligned_tables: opts.aligned_tables,
        };
        let mut line = serde_json::to_string(&job).map_err(|e| Error::Worker {
            detail: e.to_string(),
        })?;
        line.push('\n');
        // A worker that died since its last file fails the write: start a new one and retry.
        let mut sent = false;
        for _ in 0..2 {
            if proc.is_none() {
                *proc = Some(self.spawn()?);
            }
            let p = proc.as_mut().expect("worker started");
            if p.stdin
                .write_all(line.as_bytes())
                .and_then(|_| p.stdin.flush())
                .is_ok()
            {
                sent = true;
                break;
            }
            if let Some(p) = proc.take() {
                p.stop();
            }
        }
        if !sent {
            return Err(Error::Worker {
                detail: "the worker does not accept jobs".into(),
            });
        }
        // The limit is on time without progress: each page read resets it, so a long scan
        // read by OCR is not cut off while a hung worker still is.
        let mut deadline = Instant::now() + opts.file_timeout;
        let mut started = false;
        loop {
            let p = proc.as_mut().expect("worker running");
            let left = deadline.saturating_duration_since(Instant::now());
            match p.rx.recv_timeout(left) {
                Ok(reply) => {
                    let reply: Reply = match serde_json::from_str(&reply) {
                        Ok(r) => r,
                        Err(e) => {
                            if let Some(p) = proc.take() {
                                p.stop();
                            }
                            return Err(Error::WorkerCrashed {
                                path: path.to_path_buf(),
                                detail: format!("unreadable reply: {e}"),
                            });
                        }
                    };
                    match reply {
                        Reply::Page { page, pages } => {
                            deadline = Instant::now() + opts.file_timeout;
                            if !started {
                                started = true;
                                event(Event::FileStarted {
                                    doc: doc.to_string(),
                                    pages,
                                });
                            }
                            event(Event::Page {
                                doc: doc.to_string(),
                                page,
                                pages,
                            });
                        }
                        Reply::Done { elements } => {
                            return Ok(pdf_document(doc, *elements, opts, counter));
                        }
                        Reply::Failed { error } => return Err(error.into_error(path.to_path_buf())),
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(p) = proc.take() {
                        p.stop();
                    }
                    return Err(Error::Timeout {
                        path: path.to_path_buf(),
                        secs: opts.file_timeout.as_secs(),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let mut p = proc.take().expect("worker running");
                    let status = p.child.wait().map(|s| s.to_string()).unwrap_or_default();
                    return Err(Error::WorkerCrashed {
                        path: path.to_path_buf(),
                        detail: if status.is_empty() {
                            "the worker stopped".into()
                        } else {
                            format!("the worker stopped: {status}")
                        },
                    });
                }
            }
        }
    }
}
