//! The prompt: the numbered evidence, the template that frames it, and the chat messages that
//! carry it (text, and figure and table crops as images).

use crate::{Error, Result};
use base64::Engine as _;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The default prompt. Above `---` the system message, below it the user message;
/// `{{question}}` and `{{evidence}}` are replaced.
pub const DEFAULT_TEMPLATE: &str = include_str!("default_prompt.txt");

/// One numbered piece of evidence as the model reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// The number the answer cites it by (`[n]`), from 1.
    pub n: usize,
    pub doc: String,
    pub page: Option<u32>,
    /// `text`, `figure` or `table`.
    pub kind: String,
    pub caption: Option<String>,
    /// The section path, outermost first.
    pub section: Vec<String>,
    pub text: String,
    /// The figure or table crop (a PNG), attached as an image when images are sent.
    pub image: Option<PathBuf>,
}

impl Evidence {
    /// A text note.
    pub fn text(n: usize, doc: &str, page: Option<u32>, text: &str) -> Evidence {
        Evidence {
            n,
            doc: doc.into(),
            page,
            kind: "text".into(),
            caption: None,
            section: Vec::new(),
            text: text.into(),
            image: None,
        }
    }

    /// The block of the prompt for this evidence.
    pub fn block(&self) -> String {
        let mut head = format!("[{}] {}", self.n, self.doc);
        if let Some(p) = self.page {
            head.push_str(&format!(", page {p}"));
        }
        if self.kind != "text" {
            head.push_str(&format!(", {}", self.kind));
        }
        if let Some(c) = self.caption.as_deref().filter(|c| !c.trim().is_empty()) {
            head.push_str(&format!(": {}", one_line(c)));
        }
        let mut s = head;
        if !self.section.is_empty() {
            s.push_str(&format!("\nSection: {}", self.section.join(" > ")));
        }
        s.push('\n');
        s.push_str(self.text.trim());
        s
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A prompt template: an optional system message and a user message with `{{question}}` and
/// `{{evidence}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    system: Option<String>,
    user: String,
}

impl Default for PromptTemplate {
    fn default() -> Self {
        PromptTemplate::parse(DEFAULT_TEMPLATE, None).expect("the default template is valid")
    }
}

impl PromptTemplate {
    /// Reads a template file (see [`PromptTemplate::parse`]).
    pub fn from_file(path: &Path) -> Result<PromptTemplate> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Template {
            path: Some(path.to_path_buf()),
            message: format!("cannot read the prompt template: {e}"),
        })?;
        PromptTemplate::parse(&text, Some(path))
    }

    /// A template from its text: the lines above the first line that is `---` are the system
    /// message, the rest the user message (no such line: all of it is the user message).
    /// `{{question}}` and `{{evidence}}` must each appear once, in either part.
    pub fn parse(text: &str, path: Option<&Path>) -> Result<PromptTemplate> {
        let err = |message: String| Error::Template {
            path: path.map(Path::to_path_buf),
            message,
        };
        let lines: Vec<&str> = text.lines().collect();
        let (system, user) = match lines.iter().position(|l| l.trim_end() == "---") {
            Some(i) => (
                Some(lines[..i].join("\n").trim().to_string()).filter(|s| !s.is_empty()),
                lines[i + 1..].join("\n").trim().to_string(),
            ),
            None => (None, text.trim().to_string()),
        };
        if user.is_empty() {
            return Err(err("the user message (below `---`) is empty".into()));
        }
        let both = format!("{}\n{user}", system.as_deref().unwrap_or(""));
        for key in ["{{question}}", "{{evidence}}"] {
            match both.matches(key).count() {
                1 => {}
                0 => return Err(err(format!("the prompt template has no {key}"))),
                n => return Err(err(format!("the prompt template has {key} {n} times"))),
            }
        }
        Ok(PromptTemplate { system, user })
    }

    fn fill(part: &str, question: &str, evidence: &str) -> String {
        // One pass per key, in a fixed order, so a question that contains "{{evidence}}" is
        // not expanded.
        let (before, after) = match part.split_once("{{question}}") {
            Some((b, a)) => (
                b.replace("{{evidence}}", evidence),
                Some(a.replace("{{evidence}}", evidence)),
            ),
            None => (part.replace("{{evidence}}", evidence), None),
        };
        match after {
            Some(a) => format!("{before}{question}{a}"),
            None => before,
        }
    }

    /// The chat messages for a question and its evidence. With `images`, the crops of the
    /// evidence are attached as data URLs after the text, each introduced by its number; a crop
    /// that cannot be read is left out and named in the second value.
    pub fn messages(
        &self,
        question: &str,
        evidence: &[Evidence],
        images: bool,
    ) -> (Vec<Value>, ImagesAttached) {
        let blocks: Vec<String> = evidence.iter().map(Evidence::block).collect();
        let ev = if blocks.is_empty() {
            "(no evidence)".to_string()
        } else {
            blocks.join("\n\n")
        };
        let mut messages = Vec::new();
        if let Some(s) = &self.system {
            messages.push(json!({"role": "system", "content": Self::fill(s, question, &ev)}));
        }
        let text = Self::fill(&self.user, question, &ev);
        let mut attached = ImagesAttached::default();
        let mut parts = Vec::new();
        if images {
            for e in evidence {
                let Some(path) = &e.image else { continue };
                match std::fs::read(path) {
                    Ok(bytes) => {
                        parts.push(json!({"type": "text", "text": format!("Image of evidence [{}]:", e.n)}));
                        parts.push(json!({"type": "image_url", "image_url": {"url": data_url(path, &bytes)}}));
                        attached.sent += 1;
                    }
                    Err(err) => attached
                        .unreadable
                        .push(format!("{}: {err}", path.display())),
                }
            }
        }
        let content = if parts.is_empty() {
            Value::String(text)
        } else {
            let mut all = vec![json!({"type": "text", "text": text})];
            all.extend(parts);
            Value::Array(all)
        };
        messages.push(json!({"role": "user", "content": content}));
        (messages, attached)
    }
}

/// What became of the crops when a request was built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImagesAttached {
    pub sent: usize,
    /// Crops that could not be read, with the reason.
    pub unreadable: Vec<String>,
}

fn data_url(path: &Path, bytes: &[u8]) -> String {
    let mime = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        _ => "image/png",
    };
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(n: usize, image: Option<PathBuf>) -> Evidence {
        Evidence {
            n,
            doc: "guide.pdf".into(),
            page: Some(7),
            kind: "figure".into(),
            caption: Some("Figure 2:\n A mosaic   plot".into()),
            section: vec!["Graphics".into(), "Mosaic plots".into()],
            text: "  The areas are proportional to counts. ".into(),
            image,
        }
    }

    #[test]
    fn evidence_block_has_number_document_page_kind_caption_section_text() {
        assert_eq!(
            figure(3, None).block(),
            "[3] guide.pdf, page 7, figure: Figure 2: A mosaic plot\nSection: Graphics > Mosaic plots\nThe areas are proportional to counts."
        );
        assert_eq!(
            Evidence::text(1, "a.md", None, "hello").block(),
            "[1] a.md\nhello"
        );
    }

    #[test]
    fn default_template_has_a_system_and_a_user_message() {
        let t = PromptTemplate::default();
        let (m, att) = t.messages(
            "Why?",
            &[Evidence::text(1, "a.txt", None, "Because.")],
            true,
        );
        assert_eq!(att, ImagesAttached::default());
        assert_eq!(m.len(), 2);
        assert_eq!(m[0]["role"], "system");
        assert_eq!(m[1]["role"], "user");
        let user = m[1]["content"].as_str().expect("text only: a string");
        assert!(
            user.contains("Why?") && user.contains("[1] a.txt\nBecause."),
            "{user}"
        );
    }

    #[test]
    fn templates_are_checked() {
        assert!(PromptTemplate::parse("Q: {{question}}\nE: {{evidence}}", None).is_ok());
        for bad in [
            "only {{question}}",
            "only {{evidence}}",
            "{{question}} {{question}} {{evidence}}",
            "sys {{question}} {{evidence}}\n---\n",
        ] {
            let e = PromptTemplate::parse(bad, Some(Path::new("p.txt"))).unwrap_err();
            assert!(e.to_string().starts_with("p.txt: "), "{e}");
        }
        let t = PromptTemplate::parse("S {{evidence}}\n---\nU {{question}}", None).unwrap();
        let (m, _) = t.messages("q", &[], false);
        assert_eq!(m[0]["content"], "S (no evidence)");
        assert_eq!(m[1]["content"], "U q");
    }

    #[test]
    fn a_question_is_not_expanded_as_a_placeholder() {
        let t = PromptTemplate::parse("{{question}}|{{evidence}}", None).unwrap();
        let (m, _) = t.messages(
            "x {{evidence}} y",
            &[Evidence::text(1, "d", None, "E")],
            false,
        );
        assert_eq!(m[0]["content"], "x {{evidence}} y|[1] d\nE");
    }

    #[test]
    fn crops_are_attached_as_data_urls_after_the_text() {
        let dir = std::env::temp_dir().join(format!("indexer-llm-prompt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("crop.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\nrest").unwrap();
        let ev = [
            figure(1, Some(png.clone())),
            Evidence::text(2, "a.txt", None, "t"),
            figure(3, Some(dir.join("missing.png"))),
        ];
        let (m, att) = PromptTemplate::default().messages("q", &ev, true);
        assert_eq!(att.sent, 1);
        assert_eq!(att.unreadable.len(), 1);
        assert!(att.unreadable[0].contains("missing.png"));
        let parts = m[1]["content"].as_array().expect("parts");
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0]["type"], "text");
        assert_eq!(parts[1]["text"], "Image of evidence [1]:");
        let url = parts[2]["image_url"]["url"].as_str().unwrap();
        let b64 = url.strip_prefix("data:image/png;base64,").unwrap();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        assert_eq!(decoded, std::fs::read(&png).unwrap());
        // Without images the content stays a plain string, which text-only servers require.
        let (m, att) = PromptTemplate::default().messages("q", &ev, false);
        assert!(m[1]["content"].is_string());
        assert_eq!(att.sent, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
