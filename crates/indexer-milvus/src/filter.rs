//! Filters as Milvus boolean expressions.

/// Restricts notes to some documents, kinds and pages. Empty lists mean "any".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub docs: Vec<String>,
    /// Kinds by name (`text`, `figure`, ...).
    pub kinds: Vec<String>,
    /// Inclusive 1-based page range; notes without a page (stored as page 0) never match it.
    pub pages: Option<(u32, u32)>,
}

/// A string literal of Milvus's expression language.
pub(crate) fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `field in ["a", "b"]`.
pub(crate) fn one_of(field: &str, values: &[String]) -> String {
    let list: Vec<String> = values.iter().map(|v| literal(v)).collect();
    format!("{field} in [{}]", list.join(", "))
}

impl Filter {
    /// The expression, or "" for no filter.
    pub fn expression(&self) -> String {
        let mut parts = Vec::new();
        if !self.docs.is_empty() {
            parts.push(one_of("doc", &self.docs));
        }
        if !self.kinds.is_empty() {
            parts.push(one_of("kind", &self.kinds));
        }
        if let Some((lo, hi)) = self.pages {
            parts.push(format!("page >= {} and page <= {hi}", lo.max(1)));
        }
        parts
            .into_iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" and ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_quote_what_they_hold() {
        assert_eq!(Filter::default().expression(), "");
        let f = Filter {
            docs: vec!["a \"b\".pdf".into(), "c\\d.pdf".into()],
            kinds: vec!["table".into()],
            pages: Some((0, 3)),
        };
        assert_eq!(
            f.expression(),
            r#"(doc in ["a \"b\".pdf", "c\\d.pdf"]) and (kind in ["table"]) and (page >= 1 and page <= 3)"#
        );
    }
}
