//! Test helper for the crash-safety test: commits synthetic generations in a loop until it is
//! killed. Generation g upserts document `d{g % 7}` (hash `h{g}`, `5 + g % 13` notes holding
//! the word `gen{g}`) and, when g is a multiple of 5, removes `d{(g + 3) % 7}`.
//!
//! Usage: `index-crash-writer DIR [MAX_GENERATION]`

use indexer_index::Writer;
use indexer_notes::{Link, LinkKind, Note, NoteKind, ParsedDocument, note_id};
use std::path::PathBuf;

const DIM: usize = 8;

fn vector(seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v: Vec<f32> = (0..DIM)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0 + 1e-3
        })
        .collect();
    let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    v.iter_mut().for_each(|a| *a /= n);
    v
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().expect("usage: index-crash-writer DIR [MAX]"));
    let max: u64 = args
        .next()
        .map(|s| s.parse().expect("MAX"))
        .unwrap_or(u64::MAX);
    let mut w = Writer::open_or_create(&dir, "crash-model", DIM).expect("open writer");
    // A low threshold so that graph builds and dumps happen inside the loop too.
    w.set_graph_threshold(40);
    loop {
        let g = w.generation() + 1;
        if g > max {
            break;
        }
        let doc = format!("d{}", g % 7);
        let n = 5 + (g % 13) as usize;
        let mut notes = Vec::with_capacity(n);
        let mut vectors = Vec::with_capacity(n * DIM);
        for i in 0..n {
            let mut note = Note::new(
                note_id(&doc, NoteKind::Text, i),
                &doc,
                NoteKind::Text,
                format!("gen{g} note {i} of {doc} with some filler words"),
            );
            note.page = Some(1 + i as u32 / 3);
            if i > 0 {
                note.links.push(Link {
                    target: note_id(&doc, NoteKind::Text, i - 1),
                    kind: LinkKind::Adjacent,
                });
            }
            notes.push(note);
            vectors.extend(vector(g * 1000 + i as u64));
        }
        let parsed = ParsedDocument {
            doc: doc.clone(),
            hash: format!("h{g}"),
            title: Some(format!("generation {g}")),
            pages: 1 + n as u32 / 3,
            pages_without_text: vec![],
            ocr_pages: vec![],
            unreadable_pages: vec![],
            notes,
            warnings: vec![],
        };
        w.upsert(parsed, vectors).expect("upsert");
        if g.is_multiple_of(5) {
            w.remove(&format!("d{}", (g + 3) % 7)).expect("remove");
        }
        let stats = w.commit().expect("commit");
        assert_eq!(stats.generation, g);
    }
}
