//! Captions: a caption's label (`Figure 3:`, `Table 2.1.`), the captions among a page's lines,
//! and where a caption sits against a box. [`figures`](super::figures) pairs them with
//! graphics and tables; [`tables`](super::tables) keeps their lines out of tables found from
//! text alignment.

use crate::elements::{LineRole, TextLine};
use crate::labels::label_number;
use indexer_notes::{BBox, NoteKind};

/// A caption start: `Figure 3:`, `Fig. 2`, `Table 2.1.`, `TABLE I.` Returns the kind and the
/// normalised label. "Table 2 provides ..." (the number followed by a lower-case word) is not
/// a caption but a reference.
fn caption_label(text: &str) -> Option<(NoteKind, String)> {
    let mut words = text.split_whitespace();
    let head = words.next()?;
    let (kind, rest_of_head) = [
        ("Figure", NoteKind::Figure),
        ("FIGURE", NoteKind::Figure),
        ("Fig.", NoteKind::Figure),
        ("FIG.", NoteKind::Figure),
        ("Table", NoteKind::Table),
        ("TABLE", NoteKind::Table),
        ("Tab.", NoteKind::Table),
    ]
    .iter()
    .find_map(|(w, k)| head.strip_prefix(w).map(|r| (*k, r)))?;
    // "Fig.3" glues the number to the word; "Figures" is not a caption.
    let num_word = if rest_of_head.is_empty() {
        words.next()?
    } else if rest_of_head.starts_with(|c: char| c.is_ascii_digit()) {
        rest_of_head
    } else {
        return None;
    };
    let num = label_number(num_word)?;
    let punct = num_word.ends_with([':', '.', '|']) || num_word.ends_with('—');
    match words.next() {
        None => {}
        Some(next) => {
            let first = next.chars().next()?;
            let ok = punct
                || first.is_uppercase()
                || matches!(next, ":" | "." | "—" | "–" | "-" | "|")
                || first == '(';
            if !ok {
                return None;
            }
        }
    }
    let word = if kind == NoteKind::Figure {
        "figure"
    } else {
        "table"
    };
    Some((kind, format!("{word} {num}")))
}

/// A caption: its kind and label, its lines (indices into the page's lines) and box.
pub(crate) struct Caption {
    pub kind: NoteKind,
    pub label: String,
    pub lines: Vec<usize>,
    pub bbox: BBox,
}

/// The captions among a page's lines (reading order), by their label.
pub(crate) fn find_captions(lines: &[TextLine]) -> Vec<Caption> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        if l.role != LineRole::Body {
            i += 1;
            continue;
        }
        let Some((kind, label)) = caption_label(&l.text) else {
            i += 1;
            continue;
        };
        let mut idx = vec![i];
        let mut bbox = l.bbox;
        let mut j = i + 1;
        while j < lines.len() && idx.len() < 12 {
            let n = &lines[j];
            let adjacent = bbox.bottom - n.bbox.top < 0.8 * n.size.max(l.size).max(1.0)
                && n.bbox.top <= bbox.bottom + 2.0;
            if n.block_start
                || n.role != LineRole::Body
                || !adjacent
                || caption_label(&n.text).is_some()
            {
                break;
            }
            bbox = bbox.union(&n.bbox);
            idx.push(j);
            j += 1;
        }
        out.push(Caption {
            kind,
            label,
            lines: idx,
            bbox,
        });
        i = j;
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The graphic is above the caption.
    Above,
    Below,
    /// Beside, or the caption lies inside the graphic.
    Other,
}

/// The gap between a caption and a graphic if the graphic is above, below or beside it.
pub(crate) fn caption_gap(cap: &Caption, g: &BBox) -> Option<(f32, Side)> {
    let h_overlap = cap.bbox.right.min(g.right) - cap.bbox.left.max(g.left);
    let v_overlap = cap.bbox.top.min(g.top) - cap.bbox.bottom.max(g.bottom);
    let narrower = cap.bbox.width().min(g.width()).max(1.0);
    let lower = cap.bbox.height().min(g.height()).max(1.0);
    if h_overlap >= 0.3 * narrower {
        if g.contains(&cap.bbox, 2.0) {
            return Some((0.0, Side::Other));
        }
        // Captions lifted into their figure (negative skips) overlap it: gap 0.
        let g_mid = (g.top + g.bottom) / 2.0;
        let c_mid = (cap.bbox.top + cap.bbox.bottom) / 2.0;
        return Some(if g_mid > c_mid {
            ((g.bottom - cap.bbox.top).max(0.0), Side::Above)
        } else {
            ((cap.bbox.bottom - g.top).max(0.0), Side::Below)
        });
    }
    if v_overlap >= 0.3 * lower {
        let gap = if g.right <= cap.bbox.left + 6.0 {
            cap.bbox.left - g.right
        } else if g.left >= cap.bbox.right - 6.0 {
            g.left - cap.bbox.right
        } else {
            return None;
        };
        return Some((gap.max(0.0) * 1.2 + 3.0, Side::Other));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caption_labels() {
        let cases = [
            ("Figure 15.1: Simple plot", Some("figure 15.1")),
            ("Fig. 2 The model", Some("figure 2")),
            ("Table 2.1. Results", Some("table 2.1")),
            ("TABLE I. Parameters of the fit", Some("table i")),
            ("Figure 3", Some("figure 3")),
            ("Fig.3: glued", Some("figure 3")),
            ("Table 2 provides the numbers", None),
            ("Figures 2 and 3 show", None),
            ("Tables are great", None),
            ("Figure A.2: appendix", Some("figure a.2")),
        ];
        for (text, want) in cases {
            assert_eq!(
                caption_label(text).map(|(_, l)| l).as_deref(),
                want,
                "{text}"
            );
        }
    }
}
