//! Parses files in this process and prints what came out: notes per kind, pages, warnings,
//! time and peak memory (from getrusage). With `--dump` it prints every note as JSON lines.
//!
//! `cargo run --release -p indexer-ingest --example parse -- [--dump] [--no-crops] FILE...`

use indexer_ingest::{IngestOptions, parse_file};
use indexer_notes::{NoteKind, WordCounter};
use std::path::PathBuf;
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    // getrusage is the portable way to read the peak; /proc/self/status has it too (VmHWM).
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let mut dump = false;
    let mut opts = IngestOptions::default();
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--dump" => dump = true,
            "--no-crops" => opts.crops = false,
            _ => files.push(PathBuf::from(a)),
        }
    }
    let crop_dir = std::env::temp_dir().join("indexer-ingest-example-crops");
    for f in files {
        let t = Instant::now();
        let doc_id = f.file_name().unwrap().to_string_lossy().to_string();
        match parse_file(&f, &doc_id, &opts, &WordCounter, &crop_dir, &mut |_| {}) {
            Ok(doc) => {
                let secs = t.elapsed().as_secs_f64();
                let count = |k| doc.notes.iter().filter(|n| n.kind == k).count();
                println!(
                    "{doc_id}: {} pages in {secs:.2} s ({:.0} pages/s), {} text, {} figure, {} table notes, {} pages without text, peak RSS {:.0} MiB",
                    doc.pages,
                    doc.pages as f64 / secs,
                    count(NoteKind::Text),
                    count(NoteKind::Figure),
                    count(NoteKind::Table),
                    doc.pages_without_text.len(),
                    peak_rss_mib()
                );
                for w in &doc.warnings {
                    println!("  warning: {}", w.message);
                }
                if dump {
                    for n in &doc.notes {
                        println!("{}", serde_json::to_string(n).unwrap());
                    }
                }
            }
            Err(e) => println!("{doc_id}: error: {e}"),
        }
    }
}
