"""indexer.langchain: the retriever adapter, with LangChain installed and without it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import indexer
from indexer.langchain import IndexerRetriever, to_documents

QUESTION = "How do the tiles of a mosaic plot show counts?"


def test_a_langchain_retriever(built):
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    _, idx, _, _ = built
    r = IndexerRetriever(index=idx, budget=3, kinds=["text"])
    assert isinstance(r, BaseRetriever)
    docs = r.invoke(QUESTION)
    assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
    top = docs[0]
    assert top.metadata["source"] == top.metadata["doc"] == "docs/notes.md"
    assert top.metadata["kind"] == "text" and top.metadata["rank"] == 1
    assert "mosaic plot" in top.page_content
    hits = idx.query(QUESTION, budget=3, kinds="text")
    assert [d.metadata["note_id"] for d in docs] == [h.note_id for h in hits]
    assert r.get_relevant_documents(QUESTION) == docs
    assert asyncio.run(r.ainvoke(QUESTION)) == docs
    assert r.batch([QUESTION, QUESTION]) == [docs, docs]
    # Figures keep their page and crop.
    fig = IndexerRetriever(index=idx, budget=1, kinds="figure").invoke("sample figure of a roadster")[0]
    assert fig.metadata["page"] == 4 and fig.metadata["image_path"].endswith(".png")


def test_without_langchain(built):
    """In a fresh interpreter where langchain_core cannot be imported, the adapter works alone."""
    root, idx, _, _ = built
    script = f"""
import json, sys
sys.modules["langchain_core"] = None  # every import of it fails
import indexer
from indexer.langchain import IndexerRetriever, Document
idx = indexer.Index({str(idx.path)!r}, runtime={str(idx.runtime)!r})
r = IndexerRetriever(idx, budget=2, docs="notes.md")
docs = r.get_relevant_documents({QUESTION!r})
assert docs == r.invoke({QUESTION!r})
print(json.dumps({{"base": [c.__name__ for c in type(r).__mro__],
                  "docs": [[type(d).__name__, d.page_content, d.metadata] for d in docs]}}))
"""
    o = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert o.returncode == 0, o.stderr
    out = json.loads(o.stdout)
    assert "BaseRetriever" not in out["base"]
    assert out["docs"], out
    for kind, text, meta in out["docs"]:
        assert kind == "_PlainDocument" and text
        assert meta["doc"] == "docs/notes.md" and meta["page"] is None


def test_to_documents(built):
    _, idx, _, _ = built
    hits = idx.query(QUESTION, budget=2)
    docs = to_documents(hits)
    assert [d.page_content for d in docs] == [h.text for h in hits]
    assert docs[1].metadata["rank"] == 2
    assert isinstance(indexer.langchain.IndexerRetriever, type)
