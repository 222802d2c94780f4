//! Figures and tables: graphics on a page and the pairing of captions with them (the
//! captions are [`captions`](super::captions), the crops [`crops`](super::crops)).
//!
//! Most figures in real PDFs are not images but hundreds of vector paths or form XObjects,
//! and most tables are a few thin horizontal rules. So graphics are grouped geometrically
//! (paths within [`GROUP_GAP`] of each other, rules of one width), captions are found by their
//! label, and each caption takes the nearest free graphic above, below or beside it.

use crate::elements::{LineRole, PageElements, Region, TextLine};
use crate::pdf::captions::{Caption, Side, caption_gap, find_captions};
use crate::pdf::layout::rotate;
use crate::pdf::tables::{TextTable, em, find_tables, is_marker, rows_of, rows_text};
use indexer_notes::{BBox, NoteKind};
use pdfium_render::prelude::*;

/// Paths closer than this (points) belong to one graphic.
const GROUP_GAP: f32 = 4.0;
/// A region grows to graphics and short label lines this close (points).
const GROW_GAP: f32 = 14.0;
/// A legend or panel beside a region joins it from this far (points).
const BESIDE_GAP: f32 = 40.0;
/// Objects covering this share of the page are backgrounds.
const BACKGROUND_SHARE: f32 = 0.97;
/// The farthest a caption may sit from its graphic (points).
const MAX_CAPTION_GAP: f32 = 120.0;
/// How much farther (points) a table caption's graphic without rows and columns counts.
const TABLE_PREFERENCE: f32 = 20.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GraphicKind {
    Shape,
    Image,
    /// A thin horizontal line (table rules; also 1x1 images stretched into rules).
    Rule,
}

/// A drawn thing on a page: a vector path, an image, a shading or a form XObject.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Graphic {
    pub bbox: BBox,
    pub kind: GraphicKind,
}

fn clip(b: BBox, w: f32, h: f32) -> Option<BBox> {
    let c = BBox::new(
        b.left.max(0.0),
        b.bottom.max(0.0),
        b.right.min(w),
        b.top.min(h),
    );
    (c.right >= c.left && c.top >= c.bottom).then_some(c)
}

/// Collects the graphics of a page, dropping backgrounds and invisible specks.
pub(crate) fn collect_graphics(page: &PdfPage, w: f32, h: f32) -> Vec<Graphic> {
    let mut out = Vec::new();
    let page_area = (w * h).max(1.0);
    for obj in page.objects().iter() {
        let kind = match obj.object_type() {
            PdfPageObjectType::Path
            | PdfPageObjectType::Shading
            | PdfPageObjectType::XObjectForm => GraphicKind::Shape,
            PdfPageObjectType::Image => GraphicKind::Image,
            _ => continue,
        };
        let Ok(q) = obj.bounds() else { continue };
        let raw = BBox::new(
            q.left().value,
            q.bottom().value,
            q.right().value,
            q.top().value,
        );
        let Some(b) = clip(raw, w, h) else { continue };
        if b.area() >= BACKGROUND_SHARE * page_area {
            continue;
        }
        // booktabs rules are up to about 2 pt thick.
        let thin = b.height() <= 2.5 || b.width() <= 1.5;
        let mut kind = kind;
        if kind == GraphicKind::Image {
            let px = obj
                .as_image_object()
                .and_then(|i| Some((i.width().ok()?, i.height().ok()?)));
            let tiny_px = px.is_some_and(|(pw, ph)| pw <= 2 || ph <= 2);
            if tiny_px || b.height() < 3.0 || b.width() < 3.0 {
                kind = GraphicKind::Rule;
            }
        } else if thin {
            kind = GraphicKind::Rule;
        }
        if kind == GraphicKind::Rule {
            // Only horizontal rules matter (tables); vertical ones join shapes.
            if b.width() < 20.0 || b.height() > 3.0 {
                if b.height() >= 20.0 {
                    out.push(Graphic {
                        bbox: b,
                        kind: GraphicKind::Shape,
                    });
                }
                continue;
            }
        } else if b.width() < 2.0 && b.height() < 2.0 {
            continue;
        }
        out.push(Graphic { bbox: b, kind });
    }
    out
}

/// Whether `a` and `b` overlap or lie within `gap` of each other.
pub(crate) fn near(a: &BBox, b: &BBox, gap: f32) -> bool {
    a.left - gap <= b.right
        && b.left - gap <= a.right
        && a.bottom - gap <= b.top
        && b.bottom - gap <= a.top
}

/// Graphic blocks: shapes and images grouped by proximity, rules grouped by equal extent.
/// Rules never group across a `barrier` (a caption): two tables on a page share rule widths.
pub(crate) fn blocks(graphics: &[Graphic], barriers: &[BBox]) -> Vec<BBox> {
    let mut clusters: Vec<BBox> = Vec::new();
    for g in graphics.iter().filter(|g| g.kind != GraphicKind::Rule) {
        let mut b = g.bbox;
        // Merge every cluster this graphic touches, until nothing changes.
        loop {
            let before = clusters.len();
            clusters.retain(|c| {
                if near(c, &b, GROUP_GAP) {
                    b = b.union(c);
                    false
                } else {
                    true
                }
            });
            if clusters.len() == before {
                break;
            }
        }
        clusters.push(b);
    }
    let mut rules: Vec<BBox> = graphics
        .iter()
        .filter(|g| g.kind == GraphicKind::Rule)
        .map(|g| g.bbox)
        .collect();
    rules.sort_by(|a, b| b.top.total_cmp(&a.top));
    let mut groups: Vec<(BBox, usize)> = Vec::new();
    for r in rules {
        match groups.iter_mut().find(|(g, _)| {
            (g.left - r.left).abs() <= 3.0
                && (g.right - r.right).abs() <= 3.0
                && g.bottom - r.top < 450.0
                && !barriers.iter().any(|c| {
                    c.top <= g.bottom && c.bottom >= r.top && c.left < r.right && c.right > r.left
                })
        }) {
            Some((g, n)) => {
                *g = g.union(&r);
                *n += 1;
            }
            None => groups.push((r, 1)),
        }
    }
    for (g, n) in groups {
        if n < 2 {
            continue;
        }
        // A table's rules and the shapes drawn over them (vertical rules) are one block.
        let mut b = g;
        clusters.retain(|c| {
            if near(c, &b, 1.0) {
                b = b.union(c);
                false
            } else {
                true
            }
        });
        clusters.push(b);
    }
    clusters.retain(|c| {
        (c.width() >= 8.0 && c.height() >= 8.0) || c.area() >= 60.0 || c.width() >= 40.0
    });
    clusters
}

fn kind_index(k: NoteKind) -> usize {
    usize::from(k == NoteKind::Table)
}

/// What [`detect_regions`] knows of a page besides its lines.
pub(crate) struct PageGraphics {
    pub graphics: Vec<Graphic>,
    /// Clockwise quarter turns that show the page upright (its /Rotate).
    pub turns: u8,
}

/// A block a caption can take: a group of graphics, a table found from text alignment, or
/// both (a ruled table).
struct Block {
    bbox: BBox,
    graphic: bool,
    table: Option<usize>,
}

/// Finds captions, pairs each with one block (graphics, or a table found from the alignment
/// of text, [`tables`](super::tables)), fills `page.regions`, and makes tables without a
/// caption regions too, titled by the short lines just above them. Regions are numbered per
/// kind across the document.
///
/// A document puts its captions on one side of their floats (figures below, tables above, or
/// any such habit), so pairing runs twice: the first pass learns each kind's usual side from
/// the nearest graphics, the second penalises the other side. Without that, with two floats on
/// a page a caption takes its neighbour's graphic when that one happens to be a little closer.
pub(crate) fn detect_regions(
    pages: &mut [PageElements],
    graphics: Vec<PageGraphics>,
    aligned_tables: bool,
) {
    struct PageWork {
        captions: Vec<Caption>,
        blocks: Vec<Block>,
        tables: Vec<TextTable>,
        /// The page's lines as shown (boxes turned upright), for table rows.
        shown: Vec<TextLine>,
        turns: u8,
        graphics: Vec<Graphic>,
    }
    let work: Vec<PageWork> = pages
        .iter()
        .zip(graphics)
        .map(|(page, g)| {
            let captions = find_captions(&page.lines);
            let shown: Vec<TextLine> = if aligned_tables || !captions.is_empty() {
                page.lines
                    .iter()
                    .map(|l| TextLine {
                        bbox: rotate(l.bbox, g.turns),
                        ..l.clone()
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let mut tables = if aligned_tables {
                find_tables(&shown)
            } else {
                Vec::new()
            };
            for t in &mut tables {
                t.bbox = rotate(t.bbox, (4 - g.turns) % 4);
            }
            let page_area = (page.width * page.height).max(1.0);
            let caption_boxes: Vec<BBox> = captions.iter().map(|c| c.bbox).collect();
            let mut blocks: Vec<Block> = if captions.is_empty() {
                Vec::new()
            } else {
                blocks(&g.graphics, &caption_boxes)
                    .into_iter()
                    .filter(|b| b.area() < 0.9 * page_area)
                    .map(|bbox| Block {
                        bbox,
                        graphic: true,
                        table: None,
                    })
                    .collect()
            };
            // A text table over a graphic block of about its size (a ruled table, or a chart's
            // labels) is that block; else it is a block of its own.
            for (ti, t) in tables.iter().enumerate() {
                let over = blocks.iter_mut().find(|b| {
                    b.table.is_none()
                        && overlap_area(&b.bbox, &t.bbox) >= 0.5 * b.bbox.area().min(t.bbox.area())
                        && b.bbox.area() <= 3.0 * t.bbox.area()
                });
                match over {
                    Some(b) => b.table = Some(ti),
                    None => blocks.push(Block {
                        bbox: t.bbox,
                        graphic: false,
                        table: Some(ti),
                    }),
                }
            }
            PageWork {
                captions,
                blocks,
                tables,
                shown,
                turns: g.turns,
                graphics: g.graphics,
            }
        })
        .collect();
    // A figure's caption takes graphics only; a table's caption takes either.
    let fits = |c: &Caption, b: &Block| b.graphic || c.kind == NoteKind::Table;
    // Votes per kind: [graphic above, graphic below].
    let mut votes = [[0u32; 2]; 2];
    for w in &work {
        for c in &w.captions {
            let best = w
                .blocks
                .iter()
                .filter(|b| fits(c, b))
                .filter_map(|b| caption_gap(c, &b.bbox))
                .filter(|(g, _)| *g <= MAX_CAPTION_GAP)
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match best {
                Some((_, Side::Above)) => votes[kind_index(c.kind)][0] += 1,
                Some((_, Side::Below)) => votes[kind_index(c.kind)][1] += 1,
                _ => {}
            }
        }
    }
    let usual = |k: NoteKind| {
        let [above, below] = votes[kind_index(k)];
        if above > 2 * below {
            Some(Side::Above)
        } else if below > 2 * above {
            Some(Side::Below)
        } else {
            None
        }
    };
    let mut next_ordinal = [0u32; 2];
    for (page, w) in pages.iter_mut().zip(work) {
        let PageWork {
            captions,
            blocks,
            tables,
            shown,
            turns,
            graphics,
        } = w;
        if captions.is_empty() && tables.is_empty() {
            continue;
        }
        let caption_boxes: Vec<BBox> = captions.iter().map(|c| c.bbox).collect();
        let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
        for (ci, c) in captions.iter().enumerate() {
            let usual = usual(c.kind);
            for (bi, b) in blocks.iter().enumerate() {
                if !fits(c, b) {
                    continue;
                }
                if let Some((gap, side)) = caption_gap(c, &b.bbox)
                    && gap <= MAX_CAPTION_GAP
                {
                    let unusual = usual.is_some_and(|u| side != u && side != Side::Other);
                    let mut score = if unusual { gap * 2.0 + 10.0 } else { gap };
                    // A table's caption prefers rows and columns to bare graphics.
                    if c.kind == NoteKind::Table && b.table.is_none() {
                        score += TABLE_PREFERENCE;
                    }
                    pairs.push((score, ci, bi));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut cap_block = vec![None; captions.len()];
        let mut used = vec![false; blocks.len()];
        for (_, ci, bi) in pairs {
            if cap_block[ci].is_none() && !used[bi] {
                cap_block[ci] = Some(bi);
                used[bi] = true;
            }
        }
        let mut regions = Vec::new();
        for (ci, c) in captions.iter().enumerate() {
            let Some(bi) = cap_block[ci] else { continue };
            let mut region = blocks[bi].bbox;
            // Grow to free neighbouring panels that do not reach into another caption
            // (figures: a table is its rows).
            loop {
                if c.kind == NoteKind::Table {
                    break;
                }
                let mut grown = false;
                for (bj, b) in blocks.iter().enumerate() {
                    if !used[bj]
                        && b.graphic
                        && (near(&region, &b.bbox, GROW_GAP) || beside(&region, &b.bbox))
                        && !caption_boxes
                            .iter()
                            .any(|cb| overlaps(&region.union(&b.bbox), cb))
                    {
                        region = region.union(&b.bbox);
                        used[bj] = true;
                        grown = true;
                    }
                }
                if !grown {
                    break;
                }
            }
            // Short label lines around the graphic (axis titles, panel letters, legend
            // entries, a table's column heads) belong to it; two passes catch labels next
            // to labels.
            for _ in 0..2 {
                for l in &page.lines {
                    if l.role == LineRole::Body
                        && l.text.split_whitespace().count() <= 6
                        && near(&region, &l.bbox, GROW_GAP)
                        && !caption_boxes.iter().any(|cb| overlaps(&l.bbox, cb))
                        && !overlaps(&region.union(&l.bbox), &c.bbox)
                    {
                        region = region.union(&l.bbox);
                    }
                }
            }
            let n = regions.len() as u32;
            let caption_text = join_lines(c.lines.iter().map(|&i| &page.lines[i]));
            for &i in &c.lines {
                page.lines[i].role = LineRole::Caption(n);
            }
            let inside = claim_inside(page, &shown, region, c.kind, n);
            regions.push(new_region(
                &mut next_ordinal,
                c.kind,
                region,
                caption_text,
                c.bbox,
                c.label.clone(),
                inside,
            ));
        }
        // Tables no caption took: regions of their own when no region covers them, titled
        // by the short lines right above them.
        for (bi, b) in blocks.iter().enumerate() {
            let Some(ti) = b.table else { continue };
            if used[bi] || regions.iter().any(|r: &Region| overlaps(&r.bbox, &b.bbox)) {
                continue;
            }
            let t = &tables[ti];
            if t.lines
                .iter()
                .any(|&i| page.lines[i].role != LineRole::Body)
                || drawn_over(&t.bbox, &graphics)
            {
                continue;
            }
            let n = regions.len() as u32;
            let title = title_lines(&shown, &page.lines, &rotate(t.bbox, turns));
            let mut caption_bbox = BBox::new(0.0, 0.0, 0.0, 0.0);
            for (k, &i) in title.iter().enumerate() {
                caption_bbox = if k == 0 {
                    page.lines[i].bbox
                } else {
                    caption_bbox.union(&page.lines[i].bbox)
                };
                page.lines[i].role = LineRole::Caption(n);
            }
            let caption_text = join_lines(title.iter().map(|&i| &page.lines[i]));
            let inside = claim_inside(page, &shown, t.bbox, NoteKind::Table, n);
            regions.push(new_region(
                &mut next_ordinal,
                NoteKind::Table,
                t.bbox,
                caption_text,
                caption_bbox,
                String::new(),
                inside,
            ));
        }
        page.regions = regions;
    }
}

/// Marks the body lines inside `region` as inside region `n` and returns their text: for a
/// table its rows (a row a line, cells separated by ` | `), for a figure the lines joined.
fn claim_inside(
    page: &mut PageElements,
    shown: &[TextLine],
    region: BBox,
    kind: NoteKind,
    n: u32,
) -> String {
    let mut inside = Vec::new();
    for (i, l) in page.lines.iter_mut().enumerate() {
        if l.role == LineRole::Body && region.contains(&l.bbox, 2.0) {
            l.role = LineRole::Inside(n);
            inside.push(i);
        }
    }
    if kind == NoteKind::Table {
        let rows: Vec<Vec<String>> = rows_of(shown, &inside)
            .into_iter()
            .map(|r| r.cells.into_iter().map(|c| c.text).collect())
            .collect();
        rows_text(&rows)
    } else {
        inside
            .iter()
            .map(|&i| page.lines[i].text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The lines that title a table without a caption: up to two short body lines right above it
/// (`CONSOLIDATED BALANCE SHEETS`, `(In millions)`), as indices into the page's lines.
fn title_lines(shown: &[TextLine], lines: &[TextLine], table: &BBox) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut edge = table.top;
    for _ in 0..2 {
        let best = shown
            .iter()
            .enumerate()
            .filter(|(i, l)| {
                lines[*i].role == LineRole::Body
                    && !out.contains(i)
                    && l.bbox.bottom >= edge - 1.0
                    && l.bbox.bottom - edge <= 2.0 * em(l)
                    && l.bbox.left < table.right
                    && l.bbox.right > table.left
                    && (1..=14).contains(&l.text.split_whitespace().count())
                    && l.text.chars().any(char::is_alphabetic)
                    && !l.text.split_whitespace().next().is_some_and(is_marker)
            })
            .min_by(|a, b| a.1.bbox.bottom.total_cmp(&b.1.bbox.bottom));
        match best {
            Some((i, l)) => {
                edge = l.bbox.top;
                out.push(i);
            }
            None => break,
        }
    }
    out.reverse();
    out
}

fn new_region(
    next_ordinal: &mut [u32; 2],
    kind: NoteKind,
    bbox: BBox,
    caption: String,
    caption_bbox: BBox,
    label: String,
    inside: String,
) -> Region {
    let k = kind_index(kind);
    let ordinal = next_ordinal[k];
    next_ordinal[k] += 1;
    Region {
        kind,
        ordinal,
        bbox,
        caption,
        caption_bbox,
        label,
        inside,
        image: None,
    }
}

/// Whether shapes or pictures cover a tenth of the table: the bars, icons or plot of a chart
/// whose labels line up like a table. Bands as wide as the table do not count: shaded rows
/// (one shape, or cells side by side), frames, backgrounds.
fn drawn_over(table: &BBox, graphics: &[Graphic]) -> bool {
    let mut strips: Vec<BBox> = Vec::new();
    let mut shapes: Vec<BBox> = graphics
        .iter()
        .filter(|g| g.kind != GraphicKind::Rule && overlap_area(&g.bbox, table) > 0.0)
        .map(|g| g.bbox)
        .collect();
    shapes.sort_by(|a, b| a.left.total_cmp(&b.left));
    for b in shapes {
        match strips.iter_mut().find(|s| {
            (s.bottom - b.bottom).abs() <= 1.5
                && (s.top - b.top).abs() <= 1.5
                && b.left - s.right <= 2.0
        }) {
            Some(s) => *s = s.union(&b),
            None => strips.push(b),
        }
    }
    let drawn: f32 = strips
        .iter()
        .filter(|s| s.width() < 0.8 * table.width())
        .map(|s| overlap_area(s, table))
        .sum();
    drawn >= 0.1 * table.area()
}

fn overlap_area(a: &BBox, b: &BBox) -> f32 {
    let w = a.right.min(b.right) - a.left.max(b.left);
    let h = a.top.min(b.top) - a.bottom.max(b.bottom);
    if w <= 0.0 || h <= 0.0 { 0.0 } else { w * h }
}

/// A panel or legend beside the region: within [`BESIDE_GAP`] to the left or right and
/// lying mostly within the region's height.
fn beside(region: &BBox, b: &BBox) -> bool {
    let v = region.top.min(b.top) - region.bottom.max(b.bottom);
    let gap = (b.left - region.right).max(region.left - b.right);
    v >= 0.5 * b.height() && gap <= BESIDE_GAP
}

fn overlaps(a: &BBox, b: &BBox) -> bool {
    a.left < b.right && b.left < a.right && a.bottom < b.top && b.bottom < a.top
}

fn join_lines<'a>(lines: impl Iterator<Item = &'a TextLine>) -> String {
    let mut s = String::new();
    let mut hyphen = false;
    for l in lines {
        if !s.is_empty() && !hyphen {
            s.push(' ');
        }
        s.push_str(&l.text);
        hyphen = l.hyphen;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_group_and_rules_make_tables() {
        let g = |l, b, r, t, kind| Graphic {
            bbox: BBox::new(l, b, r, t),
            kind,
        };
        let graphics = vec![
            g(100.0, 400.0, 150.0, 450.0, GraphicKind::Shape),
            g(152.0, 400.0, 200.0, 450.0, GraphicKind::Shape),
            g(300.0, 100.0, 310.0, 110.0, GraphicKind::Shape),
            g(50.0, 300.0, 250.0, 300.5, GraphicKind::Rule),
            g(50.0, 280.0, 250.0, 280.5, GraphicKind::Rule),
            g(50.0, 200.0, 250.0, 200.5, GraphicKind::Rule),
            g(400.0, 50.0, 500.0, 50.4, GraphicKind::Rule),
        ];
        let mut b = blocks(&graphics, &[]);
        b.sort_by(|a, b| a.left.total_cmp(&b.left));
        assert_eq!(b.len(), 3, "{b:?}");
        assert_eq!(b[0], BBox::new(50.0, 200.0, 250.0, 300.5));
        assert_eq!(b[1], BBox::new(100.0, 400.0, 200.0, 450.0));
    }

    /// One upright page without graphics.
    fn no_graphics() -> Vec<PageGraphics> {
        vec![PageGraphics {
            graphics: Vec::new(),
            turns: 0,
        }]
    }

    fn page_of(lines: Vec<TextLine>) -> PageElements {
        PageElements {
            page: 1,
            width: 600.0,
            height: 800.0,
            lines: crate::pdf::layout::reading_order(lines),
            regions: Vec::new(),
        }
    }

    fn statement_lines(title: &'static str, y0: f32) -> Vec<TextLine> {
        use crate::pdf::tables::test_row as row;
        let mut lines = row(y0 + 30.0, &[(200.0, title)]);
        lines.extend(row(y0 + 14.0, &[(310.0, "2015"), (430.0, "2014")]));
        for (i, (label, a, b)) in [
            ("Revenue", "4,796", "4,147"),
            ("Cost of revenue", "744", "622"),
            ("Gross profit", "4,052", "3,525"),
            ("Net income", "630", "268"),
        ]
        .into_iter()
        .enumerate()
        {
            lines.extend(row(
                y0 - 14.0 * i as f32,
                &[(50.0, label), (300.0, a), (420.0, b)],
            ));
        }
        lines
    }

    #[test]
    fn a_table_without_rules_or_caption_is_a_region_titled_by_the_line_above() {
        // Only when asked for.
        let mut pages = vec![page_of(statement_lines(
            "CONSOLIDATED STATEMENTS OF INCOME",
            600.0,
        ))];
        detect_regions(&mut pages, no_graphics(), false);
        assert!(pages[0].regions.is_empty());
        let mut pages = vec![page_of(statement_lines(
            "CONSOLIDATED STATEMENTS OF INCOME",
            600.0,
        ))];
        detect_regions(&mut pages, no_graphics(), true);
        let r = &pages[0].regions;
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].kind, NoteKind::Table);
        assert_eq!(r[0].caption, "CONSOLIDATED STATEMENTS OF INCOME");
        assert_eq!(r[0].label, "");
        assert_eq!(
            r[0].inside,
            "2015 | 2014\nRevenue | 4,796 | 4,147\nCost of revenue | 744 | 622\nGross profit | 4,052 | 3,525\nNet income | 630 | 268"
        );
        // Its lines are the table's now, out of the running text.
        let roles: Vec<LineRole> = pages[0].lines.iter().map(|l| l.role).collect();
        assert_eq!(roles[0], LineRole::Caption(0));
        assert!(
            roles[1..].iter().all(|&r| r == LineRole::Inside(0)),
            "{roles:?}"
        );
    }

    #[test]
    fn a_caption_takes_a_table_without_rules_and_a_chart_is_not_a_table() {
        // "Table 3: ..." above a table of aligned text: the caption's table, numbered.
        let mut pages = vec![page_of(statement_lines(
            "Table 3: Results of the year.",
            600.0,
        ))];
        detect_regions(&mut pages, no_graphics(), true);
        let r = &pages[0].regions;
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(
            (r[0].kind, r[0].label.as_str()),
            (NoteKind::Table, "table 3")
        );
        assert!(
            r[0].inside.starts_with("2015 | 2014\nRevenue | 4,796"),
            "{}",
            r[0].inside
        );

        // The same rows over bars of different lengths (a chart's labels): no table. Over
        // shaded bands as wide as the table (cells side by side): a table.
        let bar = |l: f32, b: f32, r: f32| Graphic {
            bbox: BBox::new(l, b, r, b + 9.0),
            kind: GraphicKind::Shape,
        };
        let bars: Vec<Graphic> = (0..4)
            .map(|i| bar(130.0, 598.0 - 14.0 * i as f32, 200.0 + 60.0 * i as f32))
            .collect();
        let bands: Vec<Graphic> = (0..4)
            .flat_map(|i| {
                let b = 598.0 - 14.0 * i as f32;
                [
                    bar(45.0, b, 290.0),
                    bar(290.0, b, 410.0),
                    bar(410.0, b, 480.0),
                ]
            })
            .collect();
        for (graphics, tables) in [(bars, 0), (bands, 1)] {
            let mut pages = vec![page_of(statement_lines("Share of adults", 600.0))];
            detect_regions(&mut pages, vec![PageGraphics { graphics, turns: 0 }], true);
            assert_eq!(pages[0].regions.len(), tables);
        }
    }
}
