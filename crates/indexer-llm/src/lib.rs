//! The reading step of `indexer ask`: an evidence set, numbered and formatted by a prompt
//! template, is sent to an OpenAI-compatible chat-completions server (a hosted API, vLLM,
//! llama.cpp's server, Ollama), the answer streams back token by token, and the evidence numbers
//! it cites are checked against what was sent.
//!
//! ```no_run
//! use indexer_llm::{Evidence, Llm, LlmConfig};
//! let llm = Llm::new(LlmConfig::new("http://127.0.0.1:8080/v1"))?;
//! let evidence = vec![Evidence::text(1, "manual.pdf", Some(4), "A mosaic plot shows ...")];
//! let answer = llm.ask("How is a mosaic plot read?", &evidence, &mut |event| {
//!     if let indexer_llm::LlmEvent::Delta(text) = event {
//!         print!("{text}");
//!     }
//!     std::ops::ControlFlow::Continue(())
//! })?;
//! println!("\ncited: {:?}", answer.citations.cited);
//! # Ok::<(), indexer_llm::Error>(())
//! ```
//!
//! One crate owns the HTTP client (ureq, with rustls for `https://` endpoints).

mod answer;
mod ask;
mod citations;
mod client;
mod config;
mod error;
mod prompt;

pub use answer::{Answer, LlmEvent, LlmTimings, Usage};
pub use citations::{Citations, parse_citations};
pub use config::{
    API_KEY_ENV, ApiKey, DEFAULT_LLM_TIMEOUT, DEFAULT_MAX_TOKENS, Images, Llm, LlmConfig,
};
pub use error::Error;
pub use prompt::{DEFAULT_TEMPLATE, Evidence, PromptTemplate};

pub type Result<T, E = Error> = std::result::Result<T, E>;
