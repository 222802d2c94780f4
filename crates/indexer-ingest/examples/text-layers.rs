//! Reads the text layer of every page of PDFs and prints what the unreadable-text-layer rule
//! sees: per file the pages it flags, the highest share of symbols in place of letters of any
//! page (the margin to the threshold), and the start of the first flagged pages' text, to
//! judge by eye. No OCR, no notes: a check of the rule on a corpus.
//!
//! `cargo run -p indexer-ingest --example text-layers -- FILE...`

use indexer_ingest::{TextLayerCounts, UNREADABLE_SYMBOL_SHARE, pdfium};

fn main() {
    let pdfium = pdfium().expect("pdfium (run tools/setup)");
    println!("threshold: symbol share >= {UNREADABLE_SYMBOL_SHARE}");
    let (mut all_pages, mut all_flagged) = (0, 0);
    for f in std::env::args().skip(1) {
        let doc = match pdfium.load_pdf_from_file(&f, None) {
            Ok(d) => d,
            Err(e) => {
                println!("{f}: cannot open ({e:?})");
                continue;
            }
        };
        let (mut flagged, mut highest) = (Vec::new(), (0.0f32, 0));
        let mut samples = Vec::new();
        let pages = doc.pages().len();
        for (i, page) in doc.pages().iter().enumerate() {
            let number = i + 1;
            let text = page.text().map(|t| t.all()).unwrap_or_default();
            let c = TextLayerCounts::of(&text);
            if c.symbol_share() > highest.0 {
                highest = (c.symbol_share(), number);
            }
            if c.unreadable() {
                flagged.push(number);
                if samples.len() < 3 {
                    let words: Vec<&str> = text.split_whitespace().collect();
                    let start: String = words.join(" ").chars().take(300).collect();
                    samples.push(format!("    page {number} {c:?}: {start}"));
                }
            }
        }
        all_pages += pages;
        all_flagged += flagged.len();
        println!(
            "{f}: {pages} pages, {} flagged {flagged:?}; highest symbol share {:.3} (page {})",
            flagged.len(),
            highest.0,
            highest.1,
        );
        for s in samples {
            println!("{s}");
        }
    }
    println!("total: {all_flagged} of {all_pages} pages flagged");
}
