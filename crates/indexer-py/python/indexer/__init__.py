"""indexer: a search engine for long documents, from Python.

    import indexer

    idx = indexer.Index(".indexer")            # an index folder (made by the first ingest)
    idx.ingest(["papers/"])                    # PDFs, Markdown, HTML and text; incremental
    for hit in idx.query("How is a mosaic plot read?", budget=5):
        print(hit.rank, hit.doc, hit.page, hit.kind, hit.text[:80])

The heavy work (parsing, embedding, searching) runs in Rust without holding the GIL. Errors are
``indexer.IndexerError`` and its subclasses, with the HTTP API's ``code`` and a ``hint``.
``indexer.langchain`` adapts an index as a retriever (LangChain itself is optional).
"""

from . import _native
from ._native import Answer, AskStream, Citation, Hit, Index, Note, Page
from .errors import IndexerError, InvalidRequestError, ModelServerError, NotFoundError

__version__ = _native.__version__

__all__ = [
    "Index",
    "Hit",
    "Page",
    "Note",
    "AskStream",
    "Answer",
    "Citation",
    "IndexerError",
    "InvalidRequestError",
    "NotFoundError",
    "ModelServerError",
    "__version__",
]
