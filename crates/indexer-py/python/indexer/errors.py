"""The exceptions of the indexer package.

Every error carries the code the HTTP API gives the same failure (``empty_query``,
``unknown_document``, ``note_not_found``, ``llm_unreachable``, ...; see
crates/indexer-server/README.md, "Errors") and, when there is one, a hint that says what to do.
"""

from __future__ import annotations

from typing import Optional


class IndexerError(Exception):
    """A failure of the engine: ``code`` is stable, ``hint`` says what to do (or is None)."""

    def __init__(self, message: str, code: str = "internal", hint: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} (hint: {self.hint})"
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, hint={self.hint!r})"


class InvalidRequestError(IndexerError, ValueError):
    """The caller can fix it: an empty query, an unknown selector, document or kind, a bad page
    range, a missing runtime."""


class NotFoundError(IndexerError, LookupError):
    """A note or image that is not in the index, or ``ask`` without a model server."""


class ModelServerError(IndexerError):
    """The model server of ``ask`` failed, refused, or took too long."""


__all__ = ["IndexerError", "InvalidRequestError", "NotFoundError", "ModelServerError"]
