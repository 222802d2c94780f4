//! PDF page elements into paragraphs (with headings and section paths) and figure drafts.

use crate::elements::{LineRole, PdfElements, TextLine};
use crate::notes::{FigureDraft, Para};
use std::collections::HashMap;

/// The body font size: the size that carries most characters of running text.
fn body_size(el: &PdfElements) -> f32 {
    let mut hist: HashMap<i32, usize> = HashMap::new();
    for p in &el.pages {
        for l in &p.lines {
            if l.role == LineRole::Body {
                *hist.entry((l.size * 2.0).round() as i32).or_insert(0) += l.text.len();
            }
        }
    }
    hist.into_iter()
        .max_by_key(|&(s, n)| (n, -s))
        .map_or(10.0, |(s, _)| s as f32 / 2.0)
}

fn is_heading(l: &TextLine, body: f32) -> bool {
    let words = l.text.split_whitespace().count();
    l.role == LineRole::Body
        && l.size >= body * 1.15
        && (1..=14).contains(&words)
        && l.text.chars().any(char::is_alphabetic)
        && !l.text.ends_with(',')
}

struct Builder {
    paras: Vec<Para>,
    cur: Option<Para>,
    cur_hyphen: bool,
    /// (font size, heading text), outermost first.
    sections: Vec<(f32, String)>,
}

impl Builder {
    fn flush(&mut self) {
        if let Some(p) = self.cur.take()
            && !p.text.trim().is_empty()
        {
            self.paras.push(p);
        }
        self.cur_hyphen = false;
    }

    fn section(&self) -> Vec<String> {
        self.sections.iter().map(|(_, t)| t.clone()).collect()
    }

    fn append(&mut self, page: u32, l: &TextLine, heading: bool) {
        let section = self.section();
        let p = self.cur.get_or_insert_with(|| Para {
            page: Some(page),
            section,
            heading,
            ..Para::default()
        });
        if !p.text.is_empty() && !self.cur_hyphen {
            p.text.push(' ');
        }
        p.text.push_str(&l.text);
        self.cur_hyphen = l.hyphen;
        match p.boxes.last_mut() {
            Some((pg, b))
                if *pg == page
                    && b.right.min(l.bbox.right) - b.left.max(l.bbox.left)
                        > 0.3 * l.bbox.width().min(b.width()) =>
            {
                *b = b.union(&l.bbox)
            }
            _ => p.boxes.push((page, l.bbox)),
        }
    }
}

/// Paragraphs in reading order and figure drafts whose `para` points into them.
pub(crate) fn paragraphs(el: &PdfElements) -> (Vec<Para>, Vec<FigureDraft>) {
    let body = body_size(el);
    let mut b = Builder {
        paras: Vec::new(),
        cur: None,
        cur_hyphen: false,
        sections: Vec::new(),
    };
    let mut figures = Vec::new();
    for page in &el.pages {
        let mut caption_para: HashMap<u32, usize> = HashMap::new();
        let mut prev_role: Option<LineRole> = None;
        let mut prev_heading: Option<f32> = None;
        for l in &page.lines {
            match l.role {
                LineRole::Furniture | LineRole::Inside(_) => continue,
                LineRole::Caption(n) => {
                    if prev_role != Some(l.role) {
                        b.flush();
                        caption_para.insert(n, b.paras.len());
                    }
                    b.append(page.page, l, false);
                    prev_role = Some(l.role);
                    prev_heading = None;
                    continue;
                }
                LineRole::Body => {}
            }
            if is_heading(l, body) {
                // Consecutive heading lines of one size are one heading.
                let continued = prev_heading.is_some_and(|s| (s - l.size).abs() < 0.3);
                if !continued {
                    b.flush();
                    while b.sections.last().is_some_and(|(s, _)| *s <= l.size + 0.3) {
                        b.sections.pop();
                    }
                    b.sections.push((l.size, l.text.clone()));
                } else if let Some(last) = b.sections.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(&l.text);
                }
                b.append(page.page, l, true);
                if let Some(p) = b.cur.as_mut() {
                    p.section = b.sections.iter().map(|(_, t)| t.clone()).collect();
                }
                prev_heading = Some(l.size);
                prev_role = Some(l.role);
                continue;
            }
            let continues_across_page = prev_role.is_none()
                && b.cur
                    .as_ref()
                    .is_some_and(|p| !p.heading && !p.text.ends_with(['.', ':', '!', '?']))
                && l.text.starts_with(|c: char| c.is_lowercase());
            let heading_open = b.cur.as_ref().is_some_and(|p| p.heading);
            if heading_open
                || prev_role.is_some_and(|r| r != LineRole::Body)
                || (l.block_start && !continues_across_page)
            {
                b.flush();
            }
            b.append(page.page, l, false);
            prev_role = Some(l.role);
            prev_heading = None;
        }
        b.flush();
        for r in &page.regions {
            let para = caption_para.get(&r_index(page, r)).copied();
            let mut bbox = vec![r.bbox];
            if r.caption_bbox.area() > 0.0 {
                bbox.push(r.caption_bbox);
            }
            figures.push(FigureDraft {
                kind: r.kind,
                ordinal: r.ordinal,
                page: Some(page.page),
                bbox,
                caption: r.caption.clone(),
                label: r.label.clone(),
                inside: r.inside.clone(),
                image: r.image.clone(),
                para: para.unwrap_or(b.paras.len().saturating_sub(1)),
                section: b.section(),
                anchor: None,
            });
        }
    }
    b.flush();
    (b.paras, figures)
}

fn r_index(page: &crate::elements::PageElements, r: &crate::elements::Region) -> u32 {
    page.regions
        .iter()
        .position(|x| std::ptr::eq(x, r))
        .unwrap_or(0) as u32
}

/// The title: PDF metadata, else the largest line on the first page.
pub(crate) fn title(el: &PdfElements) -> Option<String> {
    if let Some(t) = &el.title {
        return Some(t.clone());
    }
    let first = el.pages.first()?;
    let best = first
        .lines
        .iter()
        .filter(|l| l.role == LineRole::Body && l.text.chars().any(char::is_alphabetic))
        .max_by(|a, b| a.size.total_cmp(&b.size))?;
    let body = body_size(el);
    (best.size > body * 1.2).then(|| best.text.clone())
}
