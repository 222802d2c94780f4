"""The indexer Python package (the wheel built from crates/indexer-py) on real PDFs."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import indexer
from conftest import FORCED, FORCED_OPTIONS, corpus

QUESTION = "How do the tiles of a mosaic plot show counts?"


def test_ingest_reports_what_it_did(built):
    root, idx, summary, events = built
    assert summary["added"] == ["docs/acmart.pdf", "docs/notes.md", "docs/sub/revtex.pdf"]
    assert [f["doc"] for f in summary["failed"]] == ["docs/broken.pdf"]
    assert [f["doc"] for f in summary["skipped"]] == ["docs/data.bin"]
    assert summary["notes_total"] > 50
    kinds = [e["event"] for e in events]
    assert kinds[0] == "scanned" and kinds[-1] == "committed", kinds
    assert events[0]["to_parse"] == 4
    assert {"file_started", "page", "embedded", "file_failed"} <= set(kinds)
    assert idx.path == root / "idx"


def test_ingest_again_is_incremental_and_prints_progress(built, capsys):
    root, idx, _, _ = built
    s = idx.ingest(root / "docs", base=root)
    assert s["added"] == [] and s["updated"] == [] and s["unchanged"] == 3
    err = capsys.readouterr().err
    assert "indexer: 4 files: 1 to parse, 3 unchanged, 0 to remove" in err, err
    assert "docs/broken.pdf failed" in err
    s = idx.ingest(str(root / "docs" / "notes.md"), progress=False, base=root)
    assert s["unchanged"] == 1
    assert capsys.readouterr().err == ""


def test_query_returns_typed_hits(built):
    _, idx, _, _ = built
    hits = idx.query("sample figure of a roadster", budget=5)
    assert len(hits) == 5
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    for h in hits:
        assert isinstance(h, indexer.Hit)
        assert h.doc in {"docs/acmart.pdf", "docs/sub/revtex.pdf", "docs/notes.md"}
        assert h.kind in {"text", "figure", "table"}
        assert h.text and isinstance(h.score, float) and h.note_id.startswith(h.doc + "#")
        assert isinstance(h.section, list)
    top = hits[0]
    assert (top.doc, top.page, top.kind) == ("docs/acmart.pdf", 4, "figure")
    assert "Franklin" in top.caption
    # A crop is a file in the index's crop folder.
    assert top.image_path and Path(top.image_path).is_file()
    assert Path(top.image_path).parent == idx.path / "crops"
    assert Path(top.image_path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    d = top.to_dict()
    assert d["note_id"] == top.note_id and d["page"] == 4 and d["image_path"] == top.image_path
    assert "Hit(rank=1" in repr(top)


def test_query_filters_and_selectors(built):
    _, idx, _, _ = built
    hits = idx.query("figure", docs="acmart.pdf", budget=4)
    assert hits and all(h.doc == "docs/acmart.pdf" for h in hits)
    hits = idx.query("figure", kinds=["figure", "table"], budget=4)
    assert hits and all(h.kind in ("figure", "table") for h in hits)
    for pages in ((1, 2), "1-2", 2):
        hits = idx.query("introduction", pages=pages, budget=3)
        lo, hi = (pages, pages) if isinstance(pages, int) else (1, 2)
        assert hits and all(lo <= h.page <= hi for h in hits if h.page is not None), pages
    for selector in ("cds", "cds-paper", "fused-cap:cap=2", "mmr", "fused"):
        assert len(idx.query(QUESTION, budget=3, selector=selector)) == 3
    assert idx.query("mosaic plot tiles", budget=1, matching="exact", feedback=False)[0].doc == "docs/notes.md"
    # The page a question names of a known document comes first; rewrite=False searches the
    # question as typed, and each rule is switched on by name.
    named = "What is on the second page?"
    assert idx.query(named, budget=1, docs=["acmart.pdf"])[0].page == 2
    assert idx.query(named, budget=1, docs=["acmart.pdf"], rewrite="pages")[0].page == 2
    assert idx.query(named, budget=1, docs=["acmart.pdf"], rewrite=["pages", "terms"])[0].page == 2
    assert idx.query(named, budget=1, docs=["acmart.pdf"], rewrite=False)
    assert idx.query(named, budget=1, docs=["acmart.pdf"], rewrite="instructions,terms")
    with pytest.raises(indexer.InvalidRequestError):
        idx.query("x", rewrite="no")
    with pytest.raises(TypeError):
        idx.query("x", rewrite=3)


def test_query_by_page_and_document(built):
    _, idx, _, _ = built
    pages = idx.query("sample figure of a roadster", budget=2, unit="page")
    assert [type(p) for p in pages] == [indexer.Page, indexer.Page]
    assert (pages[0].doc, pages[0].page, pages[0].rank) == ("docs/acmart.pdf", 4, 1)
    assert pages[0].hits and all(h.page == 4 for h in pages[0].hits)
    docs = idx.query("mosaic plot", budget=3, unit="document")
    assert docs[0].doc == "docs/notes.md" and docs[0].page is None
    assert len({d.doc for d in docs}) == len(docs)


def test_show_stats_documents(built):
    _, idx, _, _ = built
    top = idx.query("sample figure of a roadster", budget=1)[0]
    note = idx.show(top.note_id)
    assert isinstance(note, indexer.Note)
    assert (note.note_id, note.doc, note.page, note.kind) == (top.note_id, top.doc, top.page, "figure")
    assert note.text == top.text and note.image_path == top.image_path
    assert note.context and all(isinstance(t, str) and isinstance(k, str) for t, k in note.links)
    stats = idx.stats()
    assert stats["documents"] == 3 and stats["failed_files"] == 1
    assert stats["failed"][0]["doc"] == "docs/broken.pdf"
    assert stats["notes"] == sum(stats["notes_by_kind"].values())
    assert stats["model"].startswith("sentence-transformers/all-MiniLM-L6-v2")
    docs = idx.documents()
    assert [d["doc"] for d in docs] == ["docs/acmart.pdf", "docs/notes.md", "docs/sub/revtex.pdf"]
    assert docs[0]["pages"] > 1


def _raises(cls, code, fn, *args, **kwargs):
    with pytest.raises(cls) as e:
        fn(*args, **kwargs)
    assert isinstance(e.value, indexer.IndexerError)
    assert e.value.code == code, repr(e.value)
    return e.value


def test_errors_carry_the_apis_code_and_hint(built, tmp_path, runtime_dir, monkeypatch):
    _, idx, _, _ = built
    bad = indexer.InvalidRequestError
    _raises(bad, "empty_query", idx.query, "  ")
    e = _raises(bad, "unknown_document", idx.query, "x", docs=["acmrt.pdf"])
    assert e.hint == "did you mean docs/acmart.pdf?"
    assert "hint: did you mean docs/acmart.pdf?" in str(e)
    _raises(bad, "unknown_selector", idx.query, "x", selector="best")
    e = _raises(bad, "bad_selector_option", idx.query, "x", selector="fused-cap:colour=red")
    assert "cap, k" in str(e)
    _raises(bad, "unknown_kind", idx.query, "x", kinds="chart")
    _raises(bad, "bad_pages", idx.query, "x", pages=(9, 3))
    _raises(bad, "bad_pages", idx.query, "x", pages=[1, 2, 3])
    _raises(bad, "bad_number", idx.query, "x", budget=0)
    _raises(bad, "unknown_unit", idx.query, "x", unit="chapter")
    # InvalidRequestError is also a ValueError, NotFoundError a LookupError.
    with pytest.raises(ValueError):
        idx.query("", budget=3)
    e = _raises(indexer.NotFoundError, "note_not_found", idx.show, "docs/acmart.pdf#f99")
    assert isinstance(e, LookupError) and e.hint

    # ask without a model server: the API's ask_disabled, with indexer ask's hint.
    monkeypatch.delenv("INDEXER_LLM_URL", raising=False)
    e = _raises(indexer.NotFoundError, "ask_disabled", idx.ask, QUESTION)
    assert "INDEXER_LLM_URL" in e.hint

    # An index folder that was never made, a runtime that is not there, a missing input.
    e = _raises(indexer.IndexerError, "bad_request", indexer.Index(tmp_path / "none", runtime=runtime_dir).query, "x")
    monkeypatch.chdir(tmp_path)
    e = _raises(bad, "bad_request", indexer.Index, "idx", runtime=tmp_path / "no-runtime")
    assert "INDEXER_RUNTIME" in str(e) or "tools/setup" in str(e)
    _raises(bad, "bad_request", idx.ingest, tmp_path / "missing.pdf")


def test_long_calls_release_the_gil(tmp_path, runtime_dir):
    """While an ingest and searches run on a thread, Python code runs on another."""
    idx = indexer.Index(tmp_path / "idx", runtime=runtime_dir)
    done = threading.Event()

    def work():
        try:
            idx.ingest(corpus("revtex-apssamp.pdf"), progress=False, jobs=1)
            for _ in range(3):
                idx.query(QUESTION, selector="cds-paper")
        finally:
            done.set()

    t = threading.Thread(target=work)
    t0 = time.monotonic()
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.005)
    t.join()
    elapsed = time.monotonic() - t0
    # Held for the whole call, the GIL would let this loop run only between the calls (a
    # handful of ticks); released, it runs throughout (a 20th of the most is plenty on a busy
    # machine, where a 5 ms sleep takes longer).
    assert ticks > 0.05 * elapsed / 0.005, (ticks, elapsed)
    assert idx.query(QUESTION, budget=1)[0].doc.endswith("revtex-apssamp.pdf")


def test_ask_streams_the_answer(built, llm_url, monkeypatch):
    _, idx, _, _ = built
    stream = idx.ask(
        QUESTION, budget=3, llm_url=llm_url, images="never", max_tokens=48, timeout=900,
        options=FORCED_OPTIONS,
    )
    assert isinstance(stream, indexer.AskStream)
    assert len(stream.evidence) == 3
    pieces = list(stream)
    assert len(pieces) > 1, pieces  # streamed, not one block
    assert "".join(pieces).strip().strip('"') == FORCED
    answer = stream.result()
    assert isinstance(answer, indexer.Answer)
    assert answer.text.strip().strip('"') == FORCED and str(answer) == answer.text
    assert [c.n for c in answer.citations] == [1, 2]
    assert answer.unknown_citations == [7]
    assert [h.rank for h in answer.evidence] == [1, 2, 3]
    for c in answer.citations:
        assert c.note_id == answer.evidence[c.n - 1].note_id
    assert answer.model == "smollm2"
    assert list(stream) == []  # ended

    # The model server from the environment, as indexer ask finds it; result() alone.
    monkeypatch.setenv("INDEXER_LLM_URL", llm_url)
    answer = idx.ask(QUESTION, budget=3, images="never", max_tokens=48, timeout=900, options=FORCED_OPTIONS).result()
    assert answer.citations and answer.unknown_citations == [7]

    # A model server that is not there: raised while reading the stream, with its code.
    stream = idx.ask(QUESTION, budget=3, llm_url="http://127.0.0.1:9/v1")
    with pytest.raises(indexer.ModelServerError) as e:
        list(stream)
    assert e.value.code == "llm_unreachable" and e.value.hint
    # Bad arguments are raised before anything is asked.
    with pytest.raises(indexer.InvalidRequestError):
        idx.ask(QUESTION, llm_url=llm_url, images="sometimes")


def test_ask_stream_closed_early(built, llm_url):
    _, idx, _, _ = built
    stream = idx.ask(QUESTION, budget=3, llm_url=llm_url, images="never", max_tokens=48, timeout=900,
                     options=FORCED_OPTIONS)
    first = next(stream)
    assert first
    stream.close()
    assert list(stream) == []
