use indexer_notes::{Link, LinkKind, Note, NoteKind, ParsedDocument, note_id};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub fn rng(seed: u64) -> StdRng {
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

pub fn unit(rng: &mut StdRng, dim: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..dim).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    normalise(&mut v);
    v
}

pub fn normalise(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

/// A unit vector close to `base` (cosine about 0.9 and up for small `noise`).
pub fn near(rng: &mut StdRng, base: &[f32], noise: f32) -> Vec<f32> {
    let mut v: Vec<f32> = base
        .iter()
        .map(|x| x + noise * rng.random_range(-1.0f32..1.0))
        .collect();
    normalise(&mut v);
    v
}

/// A document with one text note per text, pages 1.., adjacent links, and vectors from
/// `vec_of(i)`.
pub fn document(
    doc: &str,
    hash: &str,
    texts: &[String],
    mut vec_of: impl FnMut(usize) -> Vec<f32>,
) -> (ParsedDocument, Vec<f32>) {
    let mut notes = Vec::new();
    let mut vectors = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let mut n = Note::new(note_id(doc, NoteKind::Text, i), doc, NoteKind::Text, t);
        n.page = Some(i as u32 + 1);
        if i > 0 {
            n.links.push(Link {
                target: note_id(doc, NoteKind::Text, i - 1),
                kind: LinkKind::Adjacent,
            });
        }
        notes.push(n);
        vectors.extend(vec_of(i));
    }
    let parsed = ParsedDocument {
        doc: doc.into(),
        hash: hash.into(),
        title: Some(format!("title of {doc}")),
        pages: texts.len() as u32,
        pages_without_text: vec![],
        ocr_pages: vec![],
        unreadable_pages: vec![],
        notes,
        warnings: vec![],
    };
    (parsed, vectors)
}

pub fn texts(prefix: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{prefix} number {i} filler words here"))
        .collect()
}
