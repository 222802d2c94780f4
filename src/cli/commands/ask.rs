//! `indexer ask`: the evidence set read by a model server, the answer streamed to the
//! terminal, then its sources.

use crate::cli::args::{AskArgs, AskFormat};
use crate::cli::commands::discover_runtime;
use crate::cli::settings::Settings;
use anyhow::Result;
use indexer_engine::{AskEvent, AskResponse, Engine, Hit, Llm};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

pub fn run(args: AskArgs, settings: &Settings) -> Result<ExitCode> {
    let Some(llm_cfg) = settings.llm_config(&args.llm)? else {
        return Err(indexer_engine::Error::from(no_model_server()).into());
    };
    let llm = Llm::new(llm_cfg).map_err(indexer_engine::Error::from)?;
    let req = settings.search_request(args.question, args.search)?;
    let engine = Engine::open(&settings.index_dir, &discover_runtime()?)?;
    if args.print_request {
        let body = engine.ask_request_body(&req, &llm)?;
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &body)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let stdout = std::io::stdout();
    let stderr_tty = std::io::stderr().is_terminal();
    let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = stdout.lock();
    let streaming = args.format == AskFormat::Text;
    let mut write_err: Option<std::io::Error> = None;
    let resp = engine.ask(&req, &llm, &mut |event| {
        let r = match event {
            AskEvent::Notice(n) => {
                eprintln!("note: {n}");
                Ok(())
            }
            AskEvent::Started { evidence, images } => {
                if stderr_tty {
                    eprintln!(
                        "asking {} with {} evidence notes{}...",
                        llm.url(),
                        evidence.len(),
                        if images > 0 {
                            format!(" and {images} images")
                        } else {
                            String::new()
                        }
                    );
                }
                Ok(())
            }
            AskEvent::Delta(t) if streaming => {
                out.write_all(t.as_bytes()).and_then(|_| out.flush())
            }
            AskEvent::Delta(_) => Ok(()),
        };
        match r {
            Ok(()) => std::ops::ControlFlow::Continue(()),
            // The reader went away (`| head`): stop the answer.
            Err(e) => {
                write_err = Some(e);
                std::ops::ControlFlow::Break(())
            }
        }
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    let resp = resp?;
    match args.format {
        AskFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &resp)?;
            writeln!(out)?;
        }
        AskFormat::Text => sources(&mut out, &resp, color)?,
    }
    out.flush()?;
    for n in &resp.unknown_citations {
        eprintln!(
            "warning: the answer cites [{n}], which names no evidence (evidence [1] to [{}] was sent)",
            resp.evidence.len()
        );
    }
    if resp.finish_reason.as_deref() == Some("length") {
        eprintln!(
            "note: the answer stopped at its maximum length ({} tokens); raise it with --max-tokens",
            llm.config().max_tokens
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn no_model_server() -> indexer_engine::LlmError {
    indexer_engine::LlmError::Config("no model server configured for indexer ask".into())
}

fn location(h: &Hit) -> String {
    let n = &h.note;
    let mut s = match n.page {
        Some(p) => format!("{} p.{p}", n.doc),
        None => n.doc.clone(),
    };
    if n.kind != indexer_engine::NoteKind::Text {
        s.push_str(&format!(" ({})", n.kind));
    }
    if let Some(c) = n.caption.as_deref() {
        let c: String = c.split_whitespace().collect::<Vec<_>>().join(" ");
        let c: String = c.chars().take(80).collect();
        s.push_str(&format!(" {c}"));
    }
    s
}

/// After the streamed answer: the cited evidence as `[n] DOC p.PAGE`, else everything sent.
fn sources(out: &mut dyn Write, r: &AskResponse, color: bool) -> std::io::Result<()> {
    let (b, dim, reset) = if color {
        ("\x1b[1m", "\x1b[2m", "\x1b[0m")
    } else {
        ("", "", "")
    };
    writeln!(out)?;
    writeln!(out)?;
    if r.citations.is_empty() {
        writeln!(out, "{b}Evidence sent (the answer cites none):{reset}")?;
        for h in &r.evidence {
            writeln!(out, "[{}] {}", h.rank, location(h))?;
        }
    } else {
        writeln!(out, "{b}Sources:{reset}")?;
        for c in &r.citations {
            if let Some(h) = r.evidence.get(c.n - 1) {
                writeln!(out, "[{}] {}", c.n, location(h))?;
            }
        }
    }
    writeln!(
        out,
        "{dim}{} · {} evidence notes · {:.1} s{reset}",
        r.model,
        r.evidence.len(),
        r.timings.total_ms / 1e3
    )?;
    Ok(())
}
