//! `Engine::ask`: the evidence set of a search, read by a model server into a cited answer.

use crate::engine::Engine;
use crate::search::{Hit, SearchRequest, SearchResponse, Timings};
use crate::{Error, Result};
use indexer_llm::{Evidence, Llm, LlmEvent, Usage};
use serde::Serialize;
use std::ops::ControlFlow;
use std::time::Instant;

/// What happens while a question is answered, in order: notices (evidence cut to fit, images
/// dropped), then `Started` once the model server took the request, then the answer's text
/// piece by piece.
#[derive(Debug, Clone, Copy)]
pub enum AskEvent<'a> {
    Notice(&'a str),
    /// The server took the request with these evidence notes (numbered by their rank) and
    /// this many images.
    Started {
        evidence: &'a [Hit],
        images: usize,
    },
    Delta(&'a str),
}

/// One cited evidence number and the note it names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Citation {
    pub n: usize,
    pub note_id: String,
    pub doc: String,
    pub page: Option<u32>,
    pub kind: indexer_notes::NoteKind,
}

/// Where the time of an answer went, in milliseconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct AskTimings {
    /// The search that chose the evidence.
    pub search: Timings,
    /// From sending the evidence to the answer's first token.
    pub first_token_ms: Option<f64>,
    /// From sending the evidence to the answer's end.
    pub answer_ms: f64,
    pub total_ms: f64,
}

/// A cited answer with the evidence it was given.
#[derive(Debug, Clone, Serialize)]
pub struct AskResponse {
    pub question: String,
    pub answer: String,
    /// The evidence the answer cites, in order of first citation.
    pub citations: Vec<Citation>,
    /// Numbers cited that name no evidence sent.
    pub unknown_citations: Vec<usize>,
    /// The evidence sent to the model, `[n]` being the hit of rank n.
    pub evidence: Vec<Hit>,
    pub images_sent: usize,
    pub model: String,
    pub selector: String,
    pub generation: u64,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
    /// What was changed to get an answer (evidence cut, images dropped).
    pub notices: Vec<String>,
    pub timings: AskTimings,
}

/// The evidence of a search as the model reads it: number = rank, each note's
/// [`reader_text`](indexer_notes::Note::reader_text) (a page of numbers with its amounts).
pub fn evidence_of(hits: &[Hit]) -> Vec<Evidence> {
    hits.iter()
        .map(|h| Evidence {
            n: h.rank,
            doc: h.note.doc.clone(),
            page: h.note.page,
            kind: h.note.kind.as_str().to_string(),
            caption: h.note.caption.clone(),
            section: h.note.section.clone(),
            text: h.note.reader_text().to_string(),
            image: h.image_path.clone(),
        })
        .collect()
}

impl Engine {
    /// Searches as [`Engine::search`] does, then [`answer`]s from the evidence set.
    pub fn ask(
        &self,
        req: &SearchRequest,
        llm: &Llm,
        on_event: &mut dyn FnMut(AskEvent<'_>) -> ControlFlow<()>,
    ) -> Result<AskResponse> {
        let search = self.search(req)?;
        answer(search, llm, on_event)
    }

    /// The chat-completions request body for `req` (`indexer ask --print-request`): the
    /// evidence set of its search, numbered by rank, with the question as `req` holds it, for
    /// the model the configuration names, else the first the model server lists (then the
    /// server is asked for its list, nothing more); images as the configuration says.
    pub fn ask_request_body(&self, req: &SearchRequest, llm: &Llm) -> Result<serde_json::Value> {
        let search = self.search(req)?;
        let model = match &llm.config().model {
            Some(m) => m.clone(),
            None => llm.model()?,
        };
        Ok(llm.request_body(&model, &req.query, &evidence_of(&search.hits)))
    }
}

/// Sends the evidence set of `search` to `llm` and streams the answer through `on_event`
/// (which answers `ControlFlow::Break` to stop it). A search without evidence is an error:
/// there is nothing to read. Separate from the search so that a server can hold its search
/// queue for the search only, not for the model's answer.
pub fn answer(
    search: SearchResponse,
    llm: &Llm,
    on_event: &mut dyn FnMut(AskEvent<'_>) -> ControlFlow<()>,
) -> Result<AskResponse> {
    if search.hits.is_empty() {
        return Err(Error::BadRequest(format!(
            "no evidence for {:?} in the index (or within its filters): nothing to ask about",
            search.query
        )));
    }
    let evidence = evidence_of(&search.hits);
    let t_llm = Instant::now();
    let answer = llm.ask(&search.query, &evidence, &mut |e| match e {
        LlmEvent::Notice(n) => on_event(AskEvent::Notice(n)),
        LlmEvent::Accepted { evidence, images } => on_event(AskEvent::Started {
            evidence: &search.hits[..evidence],
            images,
        }),
        LlmEvent::Delta(t) => on_event(AskEvent::Delta(t)),
    })?;
    let mut hits = search.hits;
    hits.truncate(answer.evidence_sent);
    let citations = answer
        .citations
        .cited
        .iter()
        .filter_map(|&n| hits.get(n - 1))
        .map(|h| Citation {
            n: h.rank,
            note_id: h.note.id.clone(),
            doc: h.note.doc.clone(),
            page: h.note.page,
            kind: h.note.kind,
        })
        .collect();
    let answer_ms = t_llm.elapsed().as_secs_f64() * 1e3;
    Ok(AskResponse {
        question: search.query,
        answer: answer.text,
        citations,
        unknown_citations: answer.citations.unknown,
        evidence: hits,
        images_sent: answer.images_sent,
        model: answer.model,
        selector: search.selector,
        generation: search.generation,
        usage: answer.usage,
        finish_reason: answer.finish_reason,
        notices: answer.notices,
        timings: AskTimings {
            search: search.timings,
            first_token_ms: answer.timings.first_token_ms,
            answer_ms,
            total_ms: search.timings.total_ms + answer_ms,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snippet::Snippet;
    use indexer_notes::{Note, NoteKind};

    fn hit(rank: usize, note: Note) -> Hit {
        Hit {
            rank,
            score: 1.0,
            cosine: 0.5,
            bm25_rank: None,
            vector_rank: None,
            snippet: Snippet {
                text: String::new(),
                highlights: Vec::new(),
            },
            image_path: None,
            named_page: false,
            note,
        }
    }

    #[test]
    fn a_page_of_numbers_is_read_with_its_amounts_and_other_notes_as_they_are() {
        let mut page = Note::new(
            "r.pdf#t9",
            "r.pdf",
            NoteKind::Text,
            "BALANCE SHEETS 2016 2017 Cash",
        );
        page.context = Some("BALANCE SHEETS 2016 2017 Cash $ 10 $ 20".into());
        let chunk = Note::new("r.pdf#t1", "r.pdf", NoteKind::Text, "Revenue grew.");
        let mut figure = Note::new("r.pdf#f0", "r.pdf", NoteKind::Figure, "Figure 1: Sales");
        figure.context = Some("words around the figure".into());
        let ev = evidence_of(&[hit(1, page), hit(2, chunk), hit(3, figure)]);
        let texts: Vec<&str> = ev.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "BALANCE SHEETS 2016 2017 Cash $ 10 $ 20",
                "Revenue grew.",
                "Figure 1: Sales"
            ]
        );
        assert_eq!(ev.iter().map(|e| e.n).collect::<Vec<_>>(), [1, 2, 3]);
    }
}
