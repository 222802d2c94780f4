"""An index as a LangChain-style retriever.

    from indexer.langchain import IndexerRetriever

    retriever = IndexerRetriever(index=indexer.Index(".indexer"), budget=5)
    docs = retriever.invoke("How is a mosaic plot read?")
    docs[0].page_content, docs[0].metadata["doc"], docs[0].metadata["page"]

With ``langchain-core`` installed, ``IndexerRetriever`` is a ``BaseRetriever`` (a Runnable:
``invoke``, ``ainvoke``, ``batch``, chains) and returns LangChain ``Document`` objects. Without
it, the same class works alone, duck-typed: ``invoke`` and ``get_relevant_documents`` return
this module's ``Document`` (``page_content`` and ``metadata``). LangChain is never required to
import ``indexer`` or this module.

Each document is one evidence note: ``page_content`` is its text (a figure or table's caption
comes first in it), ``metadata`` holds ``source`` and ``doc`` (the document id), ``page``
(1-based, None for Markdown, HTML and text), ``page_label``, ``kind``, ``caption``,
``section``, ``note_id``, ``rank``, ``score`` and ``image_path`` (the crop PNG of a figure or
table).
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional, Sequence, Union

from ._native import Hit, Index

__all__ = ["IndexerRetriever", "Document", "to_documents"]


class _PlainDocument:
    """A retrieved note: ``page_content`` and ``metadata``, as LangChain's ``Document``."""

    __slots__ = ("page_content", "metadata")

    def __init__(self, page_content: str, metadata: Optional[Dict[str, Any]] = None):
        self.page_content = page_content
        self.metadata = metadata or {}

    def __repr__(self) -> str:
        return f"Document(page_content={self.page_content[:60]!r}, metadata={self.metadata!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _PlainDocument)
            and other.page_content == self.page_content
            and other.metadata == self.metadata
        )


try:  # LangChain is optional.
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    _HAVE_LANGCHAIN = True
except ImportError:
    Document = _PlainDocument  # type: ignore[misc,assignment]
    _HAVE_LANGCHAIN = False


def _metadata(hit: Hit) -> Dict[str, Any]:
    return {
        "source": hit.doc,
        "doc": hit.doc,
        "page": hit.page,
        "page_label": hit.page_label,
        "kind": hit.kind,
        "caption": hit.caption,
        "section": list(hit.section),
        "note_id": hit.note_id,
        "rank": hit.rank,
        "score": hit.score,
        "image_path": hit.image_path,
    }


def to_documents(hits: Sequence[Hit]) -> List[Any]:
    """Hits as documents (LangChain's when it is installed)."""
    return [Document(page_content=h.text, metadata=_metadata(h)) for h in hits]


def _search(
    index: Index,
    query: str,
    budget: int,
    selector: Optional[str],
    docs: Optional[Union[str, Sequence[str]]],
    kinds: Optional[Union[str, Sequence[str]]],
    pages: Optional[Union[int, str, Sequence[int]]],
) -> List[Any]:
    hits = index.query(query, budget=budget, selector=selector, docs=docs, kinds=kinds, pages=pages)
    return to_documents(hits)


if _HAVE_LANGCHAIN:

    class IndexerRetriever(BaseRetriever):  # type: ignore[no-redef]
        """The evidence set of a question as LangChain documents."""

        index: Any
        """An ``indexer.Index``."""
        budget: int = 5
        selector: Optional[str] = None
        docs: Optional[Union[str, List[str]]] = None
        kinds: Optional[Union[str, List[str]]] = None
        pages: Optional[Union[int, str, List[int]]] = None

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> List[Document]:
            return _search(
                self.index, query, self.budget, self.selector, self.docs, self.kinds, self.pages
            )

        async def _aget_relevant_documents(self, query: str, *, run_manager: Any) -> List[Document]:
            # The search releases the GIL: a thread lets the event loop go on meanwhile.
            return await asyncio.to_thread(
                _search,
                self.index,
                query,
                self.budget,
                self.selector,
                self.docs,
                self.kinds,
                self.pages,
            )

        def get_relevant_documents(self, query: str, **kwargs: Any) -> List[Document]:
            """As ``invoke`` (the name of LangChain's older retriever API)."""
            return self.invoke(query, **kwargs)

else:

    class IndexerRetriever:  # type: ignore[no-redef]
        """The evidence set of a question as documents with ``page_content`` and ``metadata``
        (LangChain is not installed: the retriever is duck-typed)."""

        def __init__(
            self,
            index: Index,
            budget: int = 5,
            selector: Optional[str] = None,
            docs: Optional[Union[str, Sequence[str]]] = None,
            kinds: Optional[Union[str, Sequence[str]]] = None,
            pages: Optional[Union[int, str, Sequence[int]]] = None,
        ):
            self.index = index
            self.budget = budget
            self.selector = selector
            self.docs = docs
            self.kinds = kinds
            self.pages = pages

        def invoke(self, input: str, config: Optional[Dict[str, Any]] = None, **kwargs: Any) -> List[Any]:
            return _search(
                self.index, input, self.budget, self.selector, self.docs, self.kinds, self.pages
            )

        def get_relevant_documents(self, query: str, **kwargs: Any) -> List[Any]:
            return self.invoke(query)

        async def ainvoke(self, input: str, config: Optional[Dict[str, Any]] = None, **kwargs: Any) -> List[Any]:
            return await asyncio.to_thread(self.invoke, input)

        def __repr__(self) -> str:
            return f"IndexerRetriever(index={self.index!r}, budget={self.budget})"
