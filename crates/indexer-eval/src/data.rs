//! Reading evaluation sets: question files with gold evidence pages (the format of
//! `../shared/eval/README.md`) and BEIR folders.

use crate::{Error, Result, metrics::GoldPages};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One question with its candidate documents and gold evidence.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Question {
    pub id: String,
    pub question: String,
    #[serde(default)]
    pub answer: String,
    #[serde(default = "yes")]
    pub answerable: bool,
    /// Candidate documents: file names under the documents folder.
    pub docs: Vec<String>,
    /// 1-based evidence pages per document; empty for unanswerable questions.
    #[serde(default)]
    pub evidence_pages: GoldPages,
    #[serde(default)]
    pub evidence_sources: Vec<String>,
    #[serde(default)]
    pub doc_type: String,
}

fn yes() -> bool {
    true
}

fn read_to_string(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let text = read_to_string(path)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str(line).map_err(|e| Error::BadLine {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(v);
    }
    Ok(out)
}

/// Reads a question file (JSON lines).
pub fn read_questions(path: &Path) -> Result<Vec<Question>> {
    jsonl(path)
}

#[derive(Debug, Clone, Deserialize)]
pub struct BeirDoc {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default)]
    pub title: String,
    pub text: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BeirQuery {
    #[serde(rename = "_id")]
    pub id: String,
    pub text: String,
}

/// A BEIR folder: `corpus.jsonl`, `queries.jsonl`, `qrels.tsv`.
#[derive(Debug, Clone)]
pub struct BeirSet {
    pub dir: PathBuf,
    pub corpus: Vec<BeirDoc>,
    /// Only the queries that have judgments, in file order.
    pub queries: Vec<BeirQuery>,
    /// query id -> (document id -> relevance).
    pub qrels: HashMap<String, HashMap<String, u32>>,
}

/// Reads a BEIR folder.
pub fn read_beir(dir: &Path) -> Result<BeirSet> {
    let corpus: Vec<BeirDoc> = jsonl(&dir.join("corpus.jsonl"))?;
    let queries: Vec<BeirQuery> = jsonl(&dir.join("queries.jsonl"))?;
    let qpath = dir.join("qrels.tsv");
    let text = read_to_string(&qpath)?;
    let mut qrels: HashMap<String, HashMap<String, u32>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if i == 0 && cols.first() == Some(&"query-id") {
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let bad = |m: &str| Error::BadLine {
            path: qpath.clone(),
            line: i + 1,
            message: m.to_string(),
        };
        if cols.len() < 3 {
            return Err(bad(
                "expected query-id, corpus-id and score separated by tabs",
            ));
        }
        let score: u32 = cols[2]
            .trim()
            .parse()
            .map_err(|_| bad("the score is not a whole number"))?;
        qrels
            .entry(cols[0].to_string())
            .or_default()
            .insert(cols[1].to_string(), score);
    }
    let queries = queries
        .into_iter()
        .filter(|q| qrels.contains_key(&q.id))
        .collect();
    Ok(BeirSet {
        dir: dir.to_path_buf(),
        corpus,
        queries,
        qrels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines in the format of the development sets: a multi-document question, an
    /// unanswerable one with no evidence fields, an answer that is a number, a blank line.
    const QUESTIONS: &str = r#"{"id": "q-1", "question": "What share of revenue came from Europe?", "answer": "31%", "answerable": true, "docs": ["report-2020.pdf"], "evidence_pages": {"report-2020.pdf": [6, 7]}, "evidence_sources": ["Chart", "Table"], "doc_type": "Financial report"}
{"id": "q-2", "question": "Who signed the letter?", "answer": "Not answerable", "answerable": false, "docs": ["report-2020.pdf", "guide.pdf"], "evidence_pages": {}, "evidence_sources": [], "doc_type": "Guidebook"}

{"id": "q-3", "question": "How many figures are there?", "docs": ["guide.pdf"], "evidence_pages": {"guide.pdf": [2]}}
"#;

    #[test]
    fn reads_a_question_file() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("questions.jsonl");
        std::fs::write(&path, QUESTIONS).unwrap();
        let qs = read_questions(&path).unwrap();
        assert_eq!(qs.len(), 3);
        assert_eq!(qs[0].docs, vec!["report-2020.pdf"]);
        assert_eq!(qs[0].evidence_pages["report-2020.pdf"], vec![6, 7]);
        assert_eq!(qs[0].evidence_sources, vec!["Chart", "Table"]);
        assert_eq!(qs[0].doc_type, "Financial report");
        assert!(!qs[1].answerable);
        assert!(qs[1].evidence_pages.is_empty());
        assert_eq!(qs[1].docs.len(), 2);
        // Missing fields take their defaults: answerable, no answer text, no sources.
        assert!(qs[2].answerable);
        assert_eq!(qs[2].answer, "");
        assert!(qs[2].evidence_sources.is_empty());
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("q.jsonl");
        std::fs::write(&p, "{\"id\":\"a\",\"question\":\"q\",\"docs\":[]}\n{oops\n").unwrap();
        let e = read_questions(&p).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}: line 2:", p.display())), "{e}");
    }

    #[test]
    fn reads_a_beir_folder() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(
            t.path().join("corpus.jsonl"),
            "{\"_id\":\"d1\",\"title\":\"T\",\"text\":\"x\"}\n{\"_id\":\"d2\",\"text\":\"y\"}\n",
        )
        .unwrap();
        std::fs::write(
            t.path().join("queries.jsonl"),
            "{\"_id\":\"1\",\"text\":\"q1\"}\n{\"_id\":\"2\",\"text\":\"unjudged\"}\n",
        )
        .unwrap();
        std::fs::write(
            t.path().join("qrels.tsv"),
            "query-id\tcorpus-id\tscore\n1\td2\t1\n",
        )
        .unwrap();
        let b = read_beir(t.path()).unwrap();
        assert_eq!(b.corpus.len(), 2);
        assert_eq!(b.queries.len(), 1);
        assert_eq!(b.qrels["1"]["d2"], 1);
    }
}
