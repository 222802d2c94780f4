//! A PDF worker process for `indexer_ingest::WorkerPool`: reads jobs on stdin, writes JSON
//! lines on stdout. The `indexer` binary offers the same through a hidden subcommand; this
//! one lets the crate's own tests and benchmarks start real workers.

fn main() -> std::process::ExitCode {
    match indexer_ingest::run_worker() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("indexer-pdf-worker: {e}");
            std::process::ExitCode::from(2)
        }
    }
}
