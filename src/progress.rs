//! Ingest progress: bars on a terminal, plain log lines otherwise.

use indexer_engine::IngestEvent;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Instant;

pub struct Reporter {
    quiet: bool,
    bars: Option<Bars>,
    start: Instant,
    notes: usize,
}

struct Bars {
    _multi: MultiProgress,
    files: ProgressBar,
    pages: ProgressBar,
}

impl Reporter {
    pub fn new(quiet: bool, terminal: bool) -> Reporter {
        let bars = (!quiet && terminal).then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let files = multi.add(ProgressBar::new(0));
            files.set_style(
                ProgressStyle::with_template("{prefix:>7} [{bar:30}] {pos}/{len} files  {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            files.set_prefix("files");
            let pages = multi.add(ProgressBar::new(0));
            pages.set_style(
                ProgressStyle::with_template(
                    "{prefix:>7} [{bar:30}] {pos}/{len} pages  {per_sec}  eta {eta}  {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            pages.set_prefix("pages");
            Bars {
                _multi: multi,
                files,
                pages,
            }
        });
        Reporter {
            quiet,
            bars,
            start: Instant::now(),
            notes: 0,
        }
    }

    fn log(&self, line: &str) {
        if self.quiet {
            return;
        }
        match &self.bars {
            Some(b) => b.files.println(line),
            None => eprintln!("[{:>6.1}s] {line}", self.start.elapsed().as_secs_f64()),
        }
    }

    pub fn event(&mut self, e: IngestEvent) {
        match e {
            IngestEvent::Scanned {
                files,
                to_parse,
                unchanged,
                to_remove,
                skipped,
                ..
            } => {
                if let Some(b) = &self.bars {
                    b.files.set_length(to_parse as u64);
                }
                self.log(&format!(
                    "found {files} files: {to_parse} to parse, {unchanged} unchanged, {to_remove} to remove, {skipped} skipped"
                ));
                if let Some(why) = e.parsed_again() {
                    self.log(&why);
                }
            }
            IngestEvent::FileStarted { doc, pages } => {
                if let Some(b) = &self.bars {
                    b.pages.inc_length(u64::from(pages));
                    b.files.set_message(doc);
                } else {
                    self.log(&format!("parsing {doc} ({pages} pages)"));
                }
            }
            IngestEvent::Page { .. } => {
                if let Some(b) = &self.bars {
                    b.pages.inc(1);
                }
            }
            IngestEvent::FileFailed { doc, error } => {
                if let Some(b) = &self.bars {
                    b.files.inc(1);
                }
                self.log(&format!("failed: {doc}: {error}"));
            }
            IngestEvent::Embedded { doc, notes } => {
                self.notes += notes;
                if let Some(b) = &self.bars {
                    b.files.inc(1);
                    let rate = self.notes as f64 / self.start.elapsed().as_secs_f64().max(1e-3);
                    b.pages
                        .set_message(format!("{} notes embedded ({rate:.1}/s)", self.notes));
                } else {
                    self.log(&format!("embedded {doc}: {notes} notes"));
                }
            }
            IngestEvent::Committed { generation, files } => {
                self.log(&format!(
                    "committed generation {generation} ({files} files)"
                ));
            }
            IngestEvent::Warning { doc, message } => {
                self.log(&format!("warning: {doc}: {message}"))
            }
        }
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bars.take() {
            b.pages.finish_and_clear();
            b.files.finish_and_clear();
        }
    }
}
