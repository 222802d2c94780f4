//! Markdown, HTML and plain text into paragraphs with heading paths and image figures.

use std::borrow::Cow;

use crate::elements::CELL_SEPARATOR;
use crate::notes::{FigureDraft, Para};
use indexer_notes::NoteKind;

/// What a markup document parses to.
pub(crate) struct Markup {
    pub title: Option<String>,
    pub paras: Vec<Para>,
    pub figures: Vec<FigureDraft>,
}

#[derive(Default)]
struct Sink {
    paras: Vec<Para>,
    figures: Vec<FigureDraft>,
    buf: String,
    /// (level, heading text, fragment id), outermost first.
    sections: Vec<(u8, String, Option<String>)>,
    /// Markdown heading slugs given so far, for `-1`, `-2` on repeats.
    slugs: std::collections::HashMap<String, usize>,
    title: Option<String>,
    /// The alt text of the image being read.
    alt: String,
}

impl Sink {
    fn text(&mut self, t: &str) {
        for w in t.split_whitespace() {
            if !self.buf.is_empty() && !self.buf.ends_with(['\n', ' ']) {
                self.buf.push(' ');
            }
            self.buf.push_str(w);
        }
        // Keep a separating space when the text ends in whitespace ("a <b>b</b>").
        if t.ends_with(char::is_whitespace) && !self.buf.is_empty() && !self.buf.ends_with(' ') {
            self.buf.push(' ');
        }
    }

    fn section(&self) -> Vec<String> {
        self.sections.iter().map(|(_, t, _)| t.clone()).collect()
    }

    /// The fragment id of the innermost section that has one.
    fn anchor(&self) -> Option<String> {
        self.sections.iter().rev().find_map(|(_, _, a)| a.clone())
    }

    /// A GitHub-style slug of a Markdown heading, unique in the document.
    fn slug(&mut self, heading: &str) -> String {
        let base: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = self.slugs.entry(base.clone()).or_insert(0);
        let slug = if *n == 0 { base } else { format!("{base}-{n}") };
        *n += 1;
        slug
    }

    fn flush(&mut self) {
        let text = self.buf.trim().trim_end_matches('|').trim_end().to_string();
        self.buf.clear();
        if !text.is_empty() {
            let section = self.section();
            self.paras.push(Para {
                text,
                section,
                anchor: self.anchor(),
                ..Para::default()
            });
        }
    }

    /// A heading with its fragment id (`None`: it has none).
    fn heading(&mut self, level: u8, text: String, anchor: Option<String>) {
        self.flush();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return;
        }
        if self.title.is_none() && level == 1 {
            self.title = Some(text.clone());
        }
        while self.sections.last().is_some_and(|(l, _, _)| *l >= level) {
            self.sections.pop();
        }
        let anchor = anchor.filter(|a| !a.trim().is_empty());
        self.sections.push((level, text.clone(), anchor));
        let section = self.section();
        self.paras.push(Para {
            text,
            section,
            anchor: self.anchor(),
            heading: true,
            ..Para::default()
        });
    }

    fn image(&mut self, src: &str, caption: &str) {
        let caption = caption.split_whitespace().collect::<Vec<_>>().join(" ");
        let kind = NoteKind::Figure;
        let ordinal = self.figures.iter().filter(|f| f.kind == kind).count() as u32;
        let label = crate::notes::references(&caption)
            .into_iter()
            .next()
            .unwrap_or_default();
        self.figures.push(FigureDraft {
            kind,
            ordinal,
            page: None,
            bbox: Vec::new(),
            caption,
            label,
            inside: String::new(),
            image: Some(src.to_string()).filter(|s| !s.is_empty()),
            para: self.paras.len(),
            section: self.section(),
            anchor: self.anchor(),
        });
    }

    fn finish(mut self) -> Markup {
        self.flush();
        Markup {
            title: self.title,
            paras: self.paras,
            figures: self.figures,
        }
    }
}

pub(crate) fn markdown(src: &str) -> Markup {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut sink = Sink::default();
    let mut heading: Option<(u8, String)> = None;
    let mut image: Option<(String, String)> = None;
    let opts = Options::ENABLE_TABLES | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut in_metadata = false;
    for ev in Parser::new_ext(src, opts) {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => {
                sink.flush();
                heading = Some((level as u8, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text)) = heading.take() {
                    let slug = sink.slug(&collapse(&text));
                    sink.heading(level, text, Some(slug));
                }
            }
            Event::Start(Tag::Image {
                dest_url, title, ..
            }) => image = Some((dest_url.to_string(), title.to_string())),
            Event::End(TagEnd::Image) => {
                if let Some((src, title)) = image.take() {
                    let caption = if title.trim().is_empty() {
                        sink.buf_alt()
                    } else {
                        title
                    };
                    sink.image(&src, &caption);
                }
            }
            Event::Start(Tag::MetadataBlock(_)) => in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_metadata = false,
            Event::Text(t) | Event::Code(t) => {
                if in_metadata {
                    continue;
                }
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                } else if image.is_some() {
                    sink.alt.push_str(&t);
                } else {
                    sink.text(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push(' ');
                } else {
                    sink.text(" ");
                }
            }
            Event::Start(
                Tag::Paragraph
                | Tag::Item
                | Tag::CodeBlock(_)
                | Tag::BlockQuote(_)
                | Tag::TableRow
                | Tag::TableHead,
            )
            | Event::End(
                TagEnd::Paragraph
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::BlockQuote(_)
                | TagEnd::TableRow
                | TagEnd::TableHead,
            ) => sink.flush(),
            Event::End(TagEnd::TableCell) => sink.text(CELL_SEPARATOR),
            _ => {}
        }
    }
    sink.finish()
}

impl Sink {
    fn buf_alt(&mut self) -> String {
        std::mem::take(&mut self.alt)
    }
}

/// Plain text: paragraphs are separated by blank lines.
pub(crate) fn text(src: &str) -> Markup {
    let mut sink = Sink::default();
    for line in src.lines() {
        if line.trim().is_empty() {
            sink.flush();
        } else {
            sink.text(line);
            sink.text(" ");
        }
    }
    sink.finish()
}

/// Tags whose content is boilerplate or not text.
const SKIP: &[&str] = &[
    "script", "style", "nav", "noscript", "template", "svg", "iframe", "form", "button", "select",
    "aside", "header", "footer", "head", "canvas", "object",
];
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "pre",
    "blockquote",
    "table",
    "tr",
    "section",
    "article",
    "main",
    "dd",
    "dt",
    "dl",
    "br",
    "hr",
    "body",
    "figcaption",
    "caption",
    "details",
    "summary",
    "address",
];

/// The source without `<script>` and `<style>` elements and comments. Their content is raw
/// text that ends only at the matching end tag (HTML's rule), but `tl` parses tags inside
/// it: an inlined jQuery with `"<script|<style"` in a string swallowed the whole body of a
/// pandoc page. Cutting them out first, by that rule, leaves `tl` plain markup.
fn strip_raw_text(src: &str) -> Cow<'_, str> {
    let bytes = src.as_bytes();
    let lower = src.to_ascii_lowercase();
    let find = |from: usize, pat: &str| lower[from..].find(pat).map(|i| from + i);
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while let Some(lt) = find(at, "<") {
        let rest = &lower[lt..];
        let end = if rest.starts_with("<!--") {
            Some(find(lt + 4, "-->").map_or(src.len(), |e| e + 3))
        } else {
            ["script", "style"].iter().find_map(|name| {
                let open = rest.strip_prefix('<')?.strip_prefix(name)?;
                // `<scripts>` is not `<script>`: the name must end there.
                let next = open.bytes().next()?;
                if !(next == b'>' || next == b'/' || next.is_ascii_whitespace()) {
                    return None;
                }
                let close = format!("</{name}");
                Some(
                    find(lt + 1 + name.len(), &close)
                        .map_or(src.len(), |c| find(c, ">").map_or(src.len(), |g| g + 1)),
                )
            })
        };
        match end {
            Some(end) => {
                out.push_str(&src[copied..lt]);
                // A space keeps the words on either side apart.
                out.push(' ');
                copied = end;
                at = end;
            }
            None => at = lt + 1,
        }
        if at >= bytes.len() {
            break;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(src);
    }
    out.push_str(&src[copied.min(src.len())..]);
    Cow::Owned(out)
}

pub(crate) fn html(src: &str) -> Markup {
    let mut sink = Sink::default();
    let stripped = strip_raw_text(src);
    let src = stripped.as_ref();
    let Ok(dom) = tl::parse(src, tl::ParserOptions::default()) else {
        return text(src);
    };
    let parser = dom.parser();
    let mut page_title = dom
        .query_selector("title")
        .and_then(|mut it| it.next())
        .and_then(|h| h.get(parser))
        .map(|n| collapse(&decode_entities(&n.inner_text(parser))));
    for h in dom.children() {
        walk(*h, parser, &mut sink, &mut page_title, None);
    }
    let mut m = sink.finish();
    if let Some(t) = page_title.filter(|t: &String| !t.is_empty()) {
        m.title = Some(t);
    }
    m
}

fn attr(tag: &tl::HTMLTag, name: &str) -> String {
    tag.attributes()
        .get(name)
        .flatten()
        .map(|b| decode_entities(&b.as_utf8_str()))
        .unwrap_or_default()
}

/// `section_id`: the `id` of the enclosing `section`, `div` or `article`, which is the
/// fragment of a heading without an id of its own (Sphinx, R Markdown and pkgdown pages put
/// it there).
fn walk(
    h: tl::NodeHandle,
    parser: &tl::Parser,
    sink: &mut Sink,
    title: &mut Option<String>,
    section_id: Option<&str>,
) {
    let Some(node) = h.get(parser) else { return };
    match node {
        tl::Node::Raw(b) => sink.text(&decode_entities(&b.as_utf8_str())),
        tl::Node::Comment(_) => {}
        tl::Node::Tag(tag) => {
            let name = tag.name().as_utf8_str().to_ascii_lowercase();
            if name == "title" {
                if title.is_none() {
                    *title = Some(collapse(&decode_entities(&tag.inner_text(parser))));
                }
                return;
            }
            if SKIP.contains(&name.as_str()) {
                return;
            }
            if let Some(level) = name
                .strip_prefix('h')
                .and_then(|l| l.parse::<u8>().ok())
                .filter(|l| (1..=6).contains(l))
            {
                let text = collapse(&decode_entities(&tag.inner_text(parser)));
                let own = Some(attr(tag, "id"))
                    .filter(|a| !a.is_empty())
                    .or_else(|| inner_anchor(tag, parser));
                sink.heading(level, text, own.or(section_id.map(str::to_string)));
                return;
            }
            if name == "img" {
                let src = attr(tag, "src");
                let alt = attr(tag, "alt");
                let alt = if alt.trim().is_empty() {
                    attr(tag, "title")
                } else {
                    alt
                };
                if !alt.trim().is_empty() {
                    sink.image(&src, &alt);
                }
                return;
            }
            if name == "figure" {
                sink.flush();
                let mut caption = String::new();
                let mut srcs = Vec::new();
                collect_figure(tag, parser, &mut caption, &mut srcs);
                let caption = collapse(&caption);
                for (src, alt) in srcs {
                    let c = if caption.is_empty() {
                        alt
                    } else {
                        caption.clone()
                    };
                    if !c.trim().is_empty() {
                        sink.image(&src, &c);
                    }
                }
                if !caption.is_empty() {
                    sink.text(&caption);
                    sink.flush();
                }
                return;
            }
            let block = BLOCKS.contains(&name.as_str());
            if block {
                sink.flush();
            }
            let id = attr(tag, "id");
            let inner_id =
                if matches!(name.as_str(), "section" | "div" | "article") && !id.is_empty() {
                    Some(id.as_str())
                } else {
                    None
                };
            for c in tag.children().top().iter() {
                walk(*c, parser, sink, title, inner_id);
            }
            if name == "td" || name == "th" {
                sink.text(CELL_SEPARATOR);
            } else if block {
                sink.flush();
            }
        }
    }
}

/// The `id` (or `name`) of an `<a>` inside a heading: older generators mark headings that way.
fn inner_anchor(tag: &tl::HTMLTag, parser: &tl::Parser) -> Option<String> {
    tag.children()
        .top()
        .iter()
        .find_map(|c| match c.get(parser) {
            Some(tl::Node::Tag(t)) if t.name().as_utf8_str().eq_ignore_ascii_case("a") => {
                Some(attr(t, "id"))
                    .filter(|a| !a.is_empty())
                    .or_else(|| Some(attr(t, "name")).filter(|a| !a.is_empty()))
            }
            _ => None,
        })
}

fn collect_figure(
    tag: &tl::HTMLTag,
    parser: &tl::Parser,
    caption: &mut String,
    srcs: &mut Vec<(String, String)>,
) {
    for c in tag.children().top().iter() {
        if let Some(tl::Node::Tag(t)) = c.get(parser) {
            let name = t.name().as_utf8_str().to_ascii_lowercase();
            if name == "img" {
                srcs.push((attr(t, "src"), attr(t, "alt")));
            } else if name == "figcaption" {
                caption.push_str(&decode_entities(&t.inner_text(parser)));
                caption.push(' ');
            } else {
                collect_figure(t, parser, caption, srcs);
            }
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decodes the character references that matter for text: named ones in common use and
/// numeric ones.
pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                "ndash" => Some('–'),
                "mdash" => Some('—'),
                "hellip" => Some('…'),
                "copy" => Some('©'),
                "rsquo" => Some('’'),
                "lsquo" => Some('‘'),
                "rdquo" => Some('”'),
                "ldquo" => Some('“'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            }?;
            Some((c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_sections_images_and_metadata() {
        let md = "---\ntitle: x\n---\n# Guide\n\nIntro text here.\n\n## Install\n\nRun the *setup* script.\n\n![Figure 1: the setup screen](img/setup.png)\n\n### Linux\n\n- item one\n- item two\n\n## Use\n\nQuery it.\n";
        let m = markdown(md);
        assert_eq!(m.title.as_deref(), Some("Guide"));
        let texts: Vec<_> = m.paras.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Guide",
                "Intro text here.",
                "Install",
                "Run the setup script.",
                "Linux",
                "item one",
                "item two",
                "Use",
                "Query it."
            ]
        );
        assert_eq!(m.paras[6].section, ["Guide", "Install", "Linux"]);
        assert_eq!(m.paras[8].section, ["Guide", "Use"]);
        assert_eq!(m.figures.len(), 1);
        assert_eq!(m.figures[0].caption, "Figure 1: the setup screen");
        assert_eq!(m.figures[0].label, "figure 1");
        assert_eq!(m.figures[0].image.as_deref(), Some("img/setup.png"));
        assert_eq!(m.figures[0].section, ["Guide", "Install"]);
    }

    #[test]
    fn markdown_headings_get_unique_slugs() {
        let md = "# The Guide\n\ntext\n\n## Install & Run (v2)\n\nrun it\n\n![Figure 1: x](a.png)\n\n## Install & Run (v2)\n\nagain\n";
        let m = markdown(md);
        let anchors: Vec<_> = m.paras.iter().map(|p| p.anchor.as_deref()).collect();
        assert_eq!(
            anchors,
            [
                Some("the-guide"),
                Some("the-guide"),
                Some("install--run-v2"),
                Some("install--run-v2"),
                Some("install--run-v2-1"),
                Some("install--run-v2-1"),
            ]
        );
        assert_eq!(m.figures[0].anchor.as_deref(), Some("install--run-v2"));
    }

    #[test]
    fn html_anchors_come_from_the_heading_or_its_section() {
        let src = r#"<html><body>
            <h1 id="top">Manual</h1><p>intro</p>
            <div class="section level2" id="fitting"><h2>Fitting</h2><p>fit text</p>
              <section id="ignored-wrapper"><h3><a name="old-style"></a>Details</h3><p>details text</p></section>
            </div>
            <h2>No id</h2><p>plain</p>
            </body></html>"#;
        let m = html(src);
        let by_text = |t: &str| {
            m.paras
                .iter()
                .find(|p| p.text == t)
                .unwrap_or_else(|| panic!("{t}"))
                .anchor
                .clone()
        };
        assert_eq!(by_text("intro").as_deref(), Some("top"));
        assert_eq!(by_text("fit text").as_deref(), Some("fitting"));
        assert_eq!(by_text("details text").as_deref(), Some("old-style"));
        // A heading without an id links to the nearest enclosing section that has one.
        assert_eq!(by_text("plain").as_deref(), Some("top"));
    }

    #[test]
    fn html_drops_boilerplate_and_keeps_figures() {
        let src = r#"<!doctype html><html><head><title>Docs &amp; more</title><style>p{color:red}</style></head>
<body><nav><a href="/">Home</a> | <a href="/x">Menu item</a></nav>
<script>var x = "<p>not text</p>";</script>
<h1>Main</h1><p>First <b>bold</b> paragraph &lt;ok&gt;.</p>
<h2>Part</h2><div><p>Second paragraph.</p></div>
<figure><img src="a.png" alt="alt text"><figcaption>Figure 2. A chart</figcaption></figure>
<table><tr><td>cell a</td><td>cell b</td></tr></table>
<footer>Copyright</footer></body></html>"#;
        let m = html(src);
        assert_eq!(m.title.as_deref(), Some("Docs & more"));
        let all: Vec<_> = m.paras.iter().map(|p| p.text.as_str()).collect();
        assert!(all.contains(&"First bold paragraph <ok>."), "{all:?}");
        assert!(
            !all.iter().any(|t| t.contains("Menu item")
                || t.contains("not text")
                || t.contains("Copyright")
                || t.contains("color")),
            "{all:?}"
        );
        let second = m
            .paras
            .iter()
            .find(|p| p.text == "Second paragraph.")
            .unwrap();
        assert_eq!(second.section, ["Main", "Part"]);
        assert_eq!(m.figures.len(), 1);
        assert_eq!(m.figures[0].caption, "Figure 2. A chart");
        assert_eq!(m.figures[0].image.as_deref(), Some("a.png"));
        assert!(
            all.iter().any(|t| t.starts_with("cell a | cell b")),
            "{all:?}"
        );
    }

    /// A pandoc page inlines jQuery, whose strings hold `<script|<style` and `</div>`: the
    /// text after it is still found, and none of the script is.
    #[test]
    fn html_script_and_style_content_is_raw_text() {
        let src = r#"<html><head><script>var re = /<script|<style|<link/i; var s = "<div><p>in script</p>";</script>
<STYLE type="text/css">p::before { content: "<p>in style</p>" }</STYLE>
<!-- <p>in a comment</p> --><scripts-not>kept?</scripts-not></head>
<body><h1>Tips</h1><p>Real paragraph one.</p><script src="x.js"></script>
<p>Real paragraph two, after a script.</p><script>unterminated <p>"#;
        let m = html(src);
        let all: Vec<_> = m.paras.iter().map(|p| p.text.as_str()).collect();
        assert!(all.contains(&"Real paragraph one."), "{all:?}");
        assert!(
            all.contains(&"Real paragraph two, after a script."),
            "{all:?}"
        );
        assert!(
            !all.iter().any(|t| t.contains("in script")
                || t.contains("in style")
                || t.contains("in a comment")
                || t.contains("unterminated")
                || t.contains("var re")),
            "{all:?}"
        );
        assert_eq!(strip_raw_text("<p>plain</p>"), "<p>plain</p>");
        assert!(matches!(strip_raw_text("<p>a < b</p>"), Cow::Borrowed(_)));
    }

    #[test]
    fn text_paragraphs_and_entities() {
        let m = text("one\ntwo\n\n\nthree\n");
        let t: Vec<_> = m.paras.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(t, ["one two", "three"]);
        assert_eq!(
            decode_entities("a&#233;&#x41;&bogus; &amp"),
            "aéA&bogus; &amp"
        );
    }
}
