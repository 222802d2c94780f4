//! A soak of `indexer serve` (issue 22): many clients query a real server for a long time while
//! an ingest adds and removes documents every few minutes. Every answer must be a 200 with
//! valid JSON; the server's resident memory, the search latency and the errors are sampled
//! every few seconds and written as `soak.csv`, `soak.md` and `soak.png` in the output folder.
//!
//! ```sh
//! cargo build --release --bin indexer
//! cargo run --release -p indexer-eval --example soak -- \
//!     --indexer target/release/indexer --docs DIR --minutes 30 --out OUT
//! ```
//!
//! It runs the `indexer` binary as a user does (no library call): `indexer ingest` into a
//! temporary index, `indexer serve` as a child process, and `indexer ingest` again after each
//! change of the document folder, so what is measured is the program that ships. The clients
//! are plain `std::net::TcpStream` HTTP/1.1 (no client crate to hide a protocol error).
//! Memory and CPU are read from `/proc`: Linux only.
//!
//! The modules in layers, each using only those before it: `error` (the `Result`), `args`,
//! `http`, `state` (what the run's threads share), `child`, `client`, `corpus`, `sample`,
//! `measured` (what a run measured), `plot`, `report`, `run` (the orchestration); this file is
//! only the entry point.

mod args;
mod child;
mod client;
mod corpus;
mod error;
mod http;
mod measured;
mod plot;
mod report;
mod run;
mod sample;
mod state;

use args::{USAGE, parse_args};
use run::run;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(report) if report.failed() => {
            eprintln!(
                "soak: FAILED: {} errors in {} requests, {} failed ingests ({}); see {}",
                report.errors_total,
                report.requests_total,
                report.failed_ingests(),
                report.end,
                args.out.join("soak.md").display()
            );
            for e in &report.first_errors {
                eprintln!("  {e}");
            }
            ExitCode::from(1)
        }
        Ok(report) => {
            eprintln!(
                "soak: no errors in {} requests ({} searches); see {}",
                report.requests_total,
                report.searches_total,
                args.out.join("soak.md").display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
