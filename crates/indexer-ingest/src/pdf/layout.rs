//! Text lines from character boxes, reading order and running headers/footers. Pure geometry:
//! the pdfium side feeds it [`CharEvent`]s, so it is tested without PDFs too.

use super::page_numbers::page_number;
use crate::elements::{LineRole, PageElements, TextLine};
use indexer_notes::BBox;
use std::collections::HashMap;

/// One character as pdfium reports it, reduced to what line building needs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CharEvent {
    Glyph {
        c: char,
        bbox: BBox,
        size: f32,
        /// Clockwise quarter turns that make the glyph's baseline run left to right (0 for
        /// upright text, 1 for text reading upwards, as a rotated axis label).
        turns: u8,
    },
    Space,
    LineBreak,
    /// pdfium's U+0002: a hyphen at a line break, with no line break after it.
    HyphenBreak,
}

impl CharEvent {
    /// Classifies a UTF-16 code unit value from pdfium; `bbox` and `size` are only read for
    /// visible characters.
    pub(crate) fn classify(u: u32, bbox: impl FnOnce() -> Option<(BBox, f32, u8)>) -> Option<Self> {
        match u {
            0x0D | 0x0A => Some(CharEvent::LineBreak),
            0x02 | 0xAD | 0xFFFE => Some(CharEvent::HyphenBreak),
            // Control characters: math delimiters come out as U+0000/1; BOM and non-characters.
            0x00..=0x1F | 0x7F..=0x9F | 0xFEFF | 0xFFFF => None,
            _ => {
                let c = char::from_u32(u)?;
                if c.is_whitespace() {
                    return Some(CharEvent::Space);
                }
                let (bbox, size, turns) = bbox()?;
                Some(CharEvent::Glyph {
                    c,
                    bbox,
                    size,
                    turns,
                })
            }
        }
    }
}

#[derive(Default)]
struct LineBuilder {
    text: String,
    bbox: Option<BBox>,
    /// The vertical extent that decides whether the next glyph is on the same line: the box of
    /// the tallest glyph so far, so superscripts do not widen it.
    base: Option<BBox>,
    last: Option<BBox>,
    last_size: f32,
    /// (left, right) of each word so far.
    words: Vec<(f32, f32)>,
    sizes: Vec<(f32, u32)>,
    pending_space: bool,
    /// The quarter turns of the line's glyphs: boxes above are in the turned frame, where
    /// the line runs left to right.
    turns: u8,
}

impl LineBuilder {
    fn push(&mut self, c: char, bbox: BBox, size: f32) {
        if let Some(last) = self.last {
            let gap = bbox.left - last.right;
            let space_gap = 0.15 * size.max(self.last_size).max(1.0);
            if (self.pending_space || gap > space_gap) && !self.text.ends_with(' ') {
                self.text.push(' ');
            }
        }
        match self.words.last_mut() {
            Some(w) if !self.text.ends_with(' ') && !self.text.is_empty() => {
                w.1 = w.1.max(bbox.right)
            }
            _ => self.words.push((bbox.left, bbox.right)),
        }
        self.pending_space = false;
        push_char(&mut self.text, c);
        self.bbox = Some(self.bbox.map_or(bbox, |b| b.union(&bbox)));
        match self.base {
            Some(b) if b.height() >= bbox.height() => {}
            _ => self.base = Some(bbox),
        }
        self.last = Some(bbox);
        self.last_size = size;
        let key = (size * 10.0).round() / 10.0;
        match self.sizes.iter_mut().find(|(s, _)| *s == key) {
            Some((_, n)) => *n += 1,
            None => self.sizes.push((key, 1)),
        }
    }

    /// Whether a glyph at `bbox` continues this line.
    fn continues(&self, bbox: &BBox, size: f32) -> bool {
        let (Some(base), Some(last)) = (self.base, self.last) else {
            return true;
        };
        let overlap = base.top.min(bbox.top) - base.bottom.max(bbox.bottom);
        let min_h = base.height().min(bbox.height()).max(0.1);
        if overlap < 0.5 * min_h {
            return false;
        }
        let em = size.max(self.last_size).max(1.0);
        let gap = bbox.left - last.right;
        // A wide jump on the same baseline is a column or table cell boundary; going back
        // left is a new line drawn over the same baseline.
        gap <= 3.0 * em && bbox.right >= last.left - 0.5 * em
    }

    fn finish(&mut self, hyphen: bool, out: &mut Vec<TextLine>) {
        let text = self.text.trim().to_string();
        if let (Some(bbox), false) = (self.bbox, text.is_empty()) {
            let bbox = rotate(bbox, (4 - self.turns) % 4);
            let size = self
                .sizes
                .iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.total_cmp(&a.0)))
                .map_or(0.0, |s| s.0);
            // Word extents only for lines that read left to right as the page is shown.
            let words = if self.turns == 0 {
                std::mem::take(&mut self.words)
            } else {
                Vec::new()
            };
            out.push(TextLine {
                text,
                bbox,
                size,
                hyphen,
                block_start: false,
                role: LineRole::Body,
                words,
            });
        }
        *self = LineBuilder::default();
    }
}

/// Appends `c`, spelling out typographic ligatures so that search finds the words.
fn push_char(s: &mut String, c: char) {
    match c {
        '\u{FB00}' => s.push_str("ff"),
        '\u{FB01}' => s.push_str("fi"),
        '\u{FB02}' => s.push_str("fl"),
        '\u{FB03}' => s.push_str("ffi"),
        '\u{FB04}' => s.push_str("ffl"),
        '\u{FB05}' | '\u{FB06}' => s.push_str("st"),
        _ => s.push(c),
    }
}

/// Turns a box clockwise by `turns` quarter turns about the origin (a /Rotate page is shown,
/// or rotated text is brought upright). Boxes stay boxes: only quarter turns.
pub(crate) fn rotate(b: BBox, turns: u8) -> BBox {
    match turns % 4 {
        // (x, y) -> (y, -x)
        1 => BBox::new(b.bottom, -b.right, b.top, -b.left),
        // (x, y) -> (-x, -y)
        2 => BBox::new(-b.right, -b.top, -b.left, -b.bottom),
        // (x, y) -> (-y, x)
        3 => BBox::new(-b.top, b.left, -b.bottom, b.right),
        _ => b,
    }
}

/// The clockwise quarter turns that bring text at `angle` (radians, counter-clockwise, as
/// pdfium reports it) upright on a page shown turned by `page_turns`; 0 for angles more than
/// 10 degrees off a quarter turn (those stay as they are).
pub(crate) fn glyph_turns(angle: f32, page_turns: u8) -> u8 {
    let quarters = angle.to_degrees() / 90.0;
    let q = quarters.round();
    if (quarters - q).abs() * 90.0 > 10.0 {
        return 0;
    }
    ((q as i32 - i32::from(page_turns)).rem_euclid(4)) as u8
}

/// Builds lines from characters in content-stream order.
pub(crate) fn build_lines(events: impl IntoIterator<Item = CharEvent>) -> Vec<TextLine> {
    let mut out = Vec::new();
    let mut cur = LineBuilder::default();
    for ev in events {
        match ev {
            CharEvent::LineBreak => cur.finish(false, &mut out),
            CharEvent::HyphenBreak => {
                if cur.text.is_empty() {
                    continue;
                }
                cur.finish(true, &mut out);
            }
            CharEvent::Space => cur.pending_space = true,
            CharEvent::Glyph {
                c,
                bbox,
                size,
                turns,
            } => {
                let bbox = rotate(bbox, turns);
                if turns != cur.turns || !cur.continues(&bbox, size) {
                    cur.finish(false, &mut out);
                    cur.turns = turns;
                }
                cur.push(c, bbox, size);
            }
        }
    }
    cur.finish(false, &mut out);
    out
}

/// Where a two-column page's columns meet: lines left of `center` (within `tol`) are in the
/// left column, lines right of it in the right one, lines across it span both.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColumnSplit {
    center: f32,
    tol: f32,
}

impl ColumnSplit {
    pub(crate) fn col(&self, l: &TextLine) -> Col {
        if l.bbox.right <= self.center + self.tol {
            Col::Left
        } else if l.bbox.left >= self.center - self.tol {
            Col::Right
        } else {
            Col::Full
        }
    }
}

/// The split of a two-column page (a gutter in the middle of the text area crossed by few
/// lines), or `None` for one column.
pub(crate) fn two_columns(lines: &[TextLine]) -> Option<ColumnSplit> {
    let xmin = lines.iter().map(|l| l.bbox.left).fold(f32::MAX, f32::min);
    let xmax = lines.iter().map(|l| l.bbox.right).fold(f32::MIN, f32::max);
    let split = ColumnSplit {
        center: (xmin + xmax) / 2.0,
        tol: 0.01 * (xmax - xmin),
    };
    let is_texty = |l: &&TextLine| l.text.chars().count() >= 12;
    let count = |c: Col| {
        lines
            .iter()
            .filter(is_texty)
            .filter(|l| split.col(l) == c)
            .count()
    };
    let (nl, nr, nf) = (count(Col::Left), count(Col::Right), count(Col::Full));
    (nl >= 5 && nr >= 5 && nf * 2 <= nl + nr).then_some(split)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Col {
    Left,
    Right,
    Full,
}

/// Puts the lines of one page in reading order and marks block starts. Two-column pages (a
/// gutter in the middle of the text area crossed by few lines) read the left column, then the
/// right one, band by band between lines that span both columns.
pub(crate) fn reading_order(lines: Vec<TextLine>) -> Vec<TextLine> {
    if lines.is_empty() {
        return lines;
    }
    let split = two_columns(&lines);
    let col = |l: &TextLine| split.map_or(Col::Full, |s| s.col(l));
    let mut tagged: Vec<(Col, TextLine)> = lines.into_iter().map(|l| (col(&l), l)).collect();
    // Top to bottom by centre; then rows of lines at one height read left to right.
    tagged.sort_by(|a, b| center(&b.1).total_cmp(&center(&a.1)));
    let mut ordered: Vec<(Col, TextLine)> = Vec::with_capacity(tagged.len());
    let mut band: Vec<(Col, TextLine)> = Vec::new();
    let flush = |band: &mut Vec<(Col, TextLine)>, ordered: &mut Vec<(Col, TextLine)>| {
        let (left, rest): (Vec<_>, Vec<_>) = band.drain(..).partition(|(c, _)| *c == Col::Left);
        ordered.extend(rows(left));
        ordered.extend(rows(rest));
    };
    for item in tagged {
        if item.0 == Col::Full {
            flush(&mut band, &mut ordered);
            ordered.push(item);
        } else {
            band.push(item);
        }
    }
    flush(&mut band, &mut ordered);
    // Full-width lines sit between bands; lines at one height among them still read left to
    // right, so a final row pass over runs of full-width lines.
    let mut out: Vec<(Col, TextLine)> = Vec::with_capacity(ordered.len());
    let mut run: Vec<(Col, TextLine)> = Vec::new();
    for item in ordered {
        if item.0 == Col::Full {
            run.push(item);
        } else {
            out.extend(rows(std::mem::take(&mut run)));
            out.push(item);
        }
    }
    out.extend(rows(run));
    mark_blocks(&mut out);
    out.into_iter().map(|(_, l)| l).collect()
}

fn center(l: &TextLine) -> f32 {
    (l.bbox.top + l.bbox.bottom) / 2.0
}

/// Sorts lines of one column top to bottom, lines of one row left to right.
fn rows(mut items: Vec<(Col, TextLine)>) -> Vec<(Col, TextLine)> {
    items.sort_by(|a, b| center(&b.1).total_cmp(&center(&a.1)));
    let mut row = 0u32;
    let mut row_top = f32::MAX;
    let mut keyed: Vec<(u32, (Col, TextLine))> = Vec::with_capacity(items.len());
    for it in items {
        let c = center(&it.1);
        let tol = 0.4 * it.1.bbox.height().max(1.0);
        if row_top - c > tol {
            row += 1;
            row_top = c;
        }
        keyed.push((row, it));
    }
    keyed.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.1.bbox.left.total_cmp(&b.1.1.bbox.left))
    });
    keyed.into_iter().map(|(_, it)| it).collect()
}

fn mark_blocks(lines: &mut [(Col, TextLine)]) {
    let mut col_right: HashMap<u8, f32> = HashMap::new();
    for (c, l) in lines.iter() {
        let e = col_right.entry(*c as u8).or_insert(f32::MIN);
        *e = e.max(l.bbox.right);
    }
    for i in 0..lines.len() {
        if i == 0 {
            lines[i].1.block_start = true;
            continue;
        }
        let (pc, prev) = (&lines[i - 1].0, &lines[i - 1].1);
        let (cc, cur) = (&lines[i].0, &lines[i].1);
        let em = prev.size.max(cur.size).max(1.0);
        let gap = prev.bbox.bottom - cur.bbox.top;
        let right = col_right
            .get(&(*pc as u8))
            .copied()
            .unwrap_or(prev.bbox.right);
        let short_end =
            prev.bbox.right < right - 4.0 * em && prev.text.ends_with(['.', ':', '!', '?']);
        let new_block = pc != cc
            || gap > 0.5 * em
            || cur.bbox.top > prev.bbox.top + 0.5 * em
            || (cur.size - prev.size).abs() > 0.15 * prev.size.max(1.0)
            || cur.bbox.left > prev.bbox.left + 0.8 * em
            || short_end;
        lines[i].1.block_start = new_block;
    }
}

fn furniture_key(text: &str) -> String {
    let mut key = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !key.ends_with('#') {
                key.push('#');
            }
        } else if c.is_whitespace() {
            if !key.ends_with(' ') {
                key.push(' ');
            }
        } else {
            key.extend(c.to_lowercase());
        }
    }
    key
}

/// Marks running headers and footers: lines in the top or bottom 15% of a page whose text
/// (digits ignored) comes back at the same height on several pages, and lone page numbers there.
pub(crate) fn mark_furniture(pages: &mut [PageElements]) {
    let zone = |p: &PageElements, l: &TextLine| -> Option<(bool, i32)> {
        let h = p.height.max(1.0);
        if l.bbox.bottom >= 0.85 * h {
            Some((true, ((h - l.bbox.top) / 4.0).round() as i32))
        } else if l.bbox.top <= 0.15 * h {
            Some((false, (l.bbox.bottom / 4.0).round() as i32))
        } else {
            None
        }
    };
    let mut counts: HashMap<(bool, i32, String), (u32, u32)> = HashMap::new();
    for p in pages.iter() {
        for l in &p.lines {
            if let Some((top, y)) = zone(p, l) {
                let e = counts
                    .entry((top, y, furniture_key(&l.text)))
                    .or_insert((0, 0));
                if e.1 != p.page {
                    e.0 += 1;
                    e.1 = p.page;
                }
            }
        }
    }
    // Two pages suffice: books alternate headers between even and odd pages and change them
    // per chapter, and body lines rarely repeat verbatim at one height in the margin zone.
    let threshold = 2;
    for p in pages.iter_mut() {
        let page = p.clone_dims();
        for l in &mut p.lines {
            if let Some((top, y)) = zone(&page, l) {
                let n = counts
                    .get(&(top, y, furniture_key(&l.text)))
                    .map_or(0, |e| e.0);
                if n >= threshold || page_number(&l.text).is_some() {
                    l.role = LineRole::Furniture;
                }
            }
        }
    }
}

impl PageElements {
    fn clone_dims(&self) -> PageElements {
        PageElements {
            page: self.page,
            width: self.width,
            height: self.height,
            lines: Vec::new(),
            regions: Vec::new(),
        }
    }
}

/// The characters of `s` set from `x` on the baseline `y`, each `size / 2` wide: what pdfium
/// reports for a line of text (spaces as [`CharEvent::Space`]).
#[cfg(test)]
pub(crate) fn test_glyphs(s: &str, x: f32, y: f32, size: f32) -> Vec<CharEvent> {
    let w = size * 0.5;
    let mut out = Vec::new();
    for (i, c) in s.chars().enumerate() {
        if c == ' ' {
            out.push(CharEvent::Space);
            continue;
        }
        let l = x + i as f32 * w;
        out.push(CharEvent::Glyph {
            c,
            bbox: BBox::new(l, y - 0.2 * size, l + w, y + 0.8 * size),
            size,
            turns: 0,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyphs(s: &str, x: f32, y: f32, size: f32) -> Vec<CharEvent> {
        test_glyphs(s, x, y, size)
    }

    #[test]
    fn hyphen_breaks_and_baseline_jumps_split_lines() {
        let mut ev = glyphs("hyphen", 10.0, 700.0, 10.0);
        ev.push(CharEvent::HyphenBreak);
        ev.extend(glyphs("ated word", 10.0, 688.0, 10.0));
        // No line break event: the baseline jump alone must split.
        ev.extend(glyphs("next line", 10.0, 676.0, 10.0));
        let lines = build_lines(ev);
        let texts: Vec<_> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["hyphen", "ated word", "next line"]);
        assert!(lines[0].hyphen && !lines[1].hyphen);
        assert_eq!(lines[0].size, 10.0);
    }

    #[test]
    fn text_at_a_quarter_turn_is_one_line_in_its_own_direction() {
        // "Improved" reading upwards, as an axis label turned 90 degrees counter-clockwise:
        // each glyph above the last. Then an upright word, then one reading downwards.
        let mut ev = Vec::new();
        for (i, c) in "Improved".chars().enumerate() {
            let b = 100.0 + 5.0 * i as f32;
            ev.push(CharEvent::Glyph {
                c,
                bbox: BBox::new(40.0, b, 48.0, b + 5.0),
                size: 10.0,
                turns: glyph_turns(std::f32::consts::FRAC_PI_2, 0),
            });
        }
        ev.extend(glyphs("upright", 60.0, 100.0, 10.0));
        for (i, c) in "down".chars().enumerate() {
            let t = 300.0 - 5.0 * i as f32;
            ev.push(CharEvent::Glyph {
                c,
                bbox: BBox::new(200.0, t - 5.0, 208.0, t),
                size: 10.0,
                turns: glyph_turns(3.0 * std::f32::consts::FRAC_PI_2, 0),
            });
        }
        let lines = build_lines(ev);
        let texts: Vec<_> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Improved", "upright", "down"]);
        // Boxes come back in page coordinates: the label's is tall and narrow.
        assert_eq!(lines[0].bbox, BBox::new(40.0, 100.0, 48.0, 140.0));
        assert_eq!(lines[2].bbox, BBox::new(200.0, 280.0, 208.0, 300.0));
    }

    #[test]
    fn glyph_turns_round_to_quarter_turns_relative_to_the_page() {
        let deg = |d: f32| d.to_radians();
        assert_eq!(glyph_turns(0.0, 0), 0);
        assert_eq!(glyph_turns(deg(90.0), 0), 1);
        assert_eq!(glyph_turns(deg(182.0), 0), 2);
        assert_eq!(glyph_turns(deg(270.0), 0), 3);
        assert_eq!(glyph_turns(deg(359.0), 0), 0);
        // Slanted text stays as it is.
        assert_eq!(glyph_turns(deg(45.0), 0), 0);
        // On a page shown a quarter turn clockwise, text at 90 degrees reads upright.
        assert_eq!(glyph_turns(deg(90.0), 1), 0);
        assert_eq!(glyph_turns(0.0, 1), 3);
    }

    #[test]
    fn gaps_become_spaces_and_ligatures_are_spelled_out() {
        let mut ev = glyphs("ab", 10.0, 700.0, 10.0);
        ev.extend(glyphs("c\u{FB01}", 22.0, 700.0, 10.0));
        let lines = build_lines(ev);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text, "ab cfi");
    }

    #[test]
    fn two_columns_read_left_then_right() {
        let mut lines = Vec::new();
        for i in 0..8 {
            let y = 700.0 - 12.0 * i as f32;
            lines.extend(build_lines(glyphs(
                &format!("right column line {i}"),
                320.0,
                y,
                10.0,
            )));
            lines.extend(build_lines(glyphs(
                &format!("left column line {i}"),
                50.0,
                y,
                10.0,
            )));
        }
        let ordered = reading_order(lines);
        let texts: Vec<_> = ordered.iter().map(|l| l.text.clone()).collect();
        assert_eq!(texts[0], "left column line 0");
        assert_eq!(texts[7], "left column line 7");
        assert_eq!(texts[8], "right column line 0");
        assert!(ordered[8].block_start);
    }

    #[test]
    fn page_numbers_are_furniture() {
        assert!(page_number("12").is_some());
        assert!(page_number("xiv").is_some());
        assert!(page_number("3 / 59").is_some());
        assert!(page_number("Figure 3").is_none());
        assert_eq!(
            furniture_key("Chapter 15: Plotting 297"),
            "chapter #: plotting #"
        );
    }
}
