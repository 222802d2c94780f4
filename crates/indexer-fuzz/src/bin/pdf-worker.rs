//! The PDF worker process the `pdf` fuzz target parses through (the same code as
//! `indexer __pdf-worker`), so that its regression tests have a worker without the `indexer`
//! binary.

fn main() -> std::io::Result<()> {
    indexer_engine::run_worker()
}
