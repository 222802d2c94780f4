"""Types of the native module (crates/indexer-py/src/)."""

import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

__version__: str

_Paths = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]
_Strings = Union[str, Sequence[str], None]
_Pages = Union[int, str, Tuple[int, int], None]

class Hit:
    rank: int
    note_id: str
    doc: str
    page: Optional[int]
    page_label: Optional[str]
    kind: str
    text: str
    caption: Optional[str]
    section: List[str]
    snippet: str
    score: float
    cosine: float
    bm25_rank: Optional[int]
    vector_rank: Optional[int]
    image_path: Optional[str]
    def to_dict(self) -> Dict[str, Any]: ...

class Page:
    rank: int
    doc: str
    page: Optional[int]
    score: float
    hits: List[Hit]

class Note:
    note_id: str
    doc: str
    page: Optional[int]
    page_label: Optional[str]
    kind: str
    text: str
    caption: Optional[str]
    context: Optional[str]
    summary: str
    keywords: List[str]
    section: List[str]
    image_path: Optional[str]
    links: List[Tuple[str, str]]

class Citation:
    n: int
    note_id: str
    doc: str
    page: Optional[int]
    kind: str

class Answer:
    question: str
    text: str
    citations: List[Citation]
    unknown_citations: List[int]
    evidence: List[Hit]
    model: str
    notices: List[str]
    finish_reason: Optional[str]

class AskStream(Iterator[str]):
    evidence: List[Hit]
    notices: List[str]
    def __iter__(self) -> "AskStream": ...
    def __next__(self) -> str: ...
    def result(self) -> Answer: ...
    def close(self) -> None: ...

class Index:
    path: os.PathLike
    runtime: os.PathLike
    def __init__(
        self,
        path: Union[str, os.PathLike, None] = None,
        *,
        runtime: Union[str, os.PathLike, None] = None,
        model: Optional[str] = None,
    ) -> None: ...
    def ingest(
        self,
        paths: _Paths,
        progress: Union[bool, Callable[[Dict[str, Any]], Any], None] = True,
        *,
        base: Union[str, os.PathLike, None] = None,
        jobs: Optional[int] = None,
        crops: bool = True,
        ocr_pictures: bool = False,
        aligned_tables: bool = False,
    ) -> Dict[str, Any]: ...
    def query(
        self,
        query: str,
        budget: int = 10,
        selector: Optional[str] = None,
        docs: _Strings = None,
        kinds: _Strings = None,
        pages: _Pages = None,
        unit: str = "note",
        *,
        candidates: Optional[int] = None,
        matching: Optional[str] = None,
        feedback: Optional[bool] = None,
        rewrite: Union[bool, str, Sequence[str], None] = None,
        ranking: Optional[str] = None,
    ) -> Union[List[Hit], List[Page]]: ...
    def ask(
        self,
        query: str,
        budget: int = 10,
        selector: Optional[str] = None,
        docs: _Strings = None,
        kinds: _Strings = None,
        pages: _Pages = None,
        *,
        llm_url: Optional[str] = None,
        llm_model: Optional[str] = None,
        images: Optional[str] = None,
        timeout: Optional[float] = None,
        max_tokens: Optional[int] = None,
        options: Optional[Dict[str, Any]] = None,
    ) -> AskStream: ...
    def show(self, note_id: str) -> Note: ...
    def stats(self) -> Dict[str, Any]: ...
    def documents(self) -> List[Dict[str, Any]]: ...

def _pdf_worker() -> None: ...
