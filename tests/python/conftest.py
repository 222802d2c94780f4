"""Fixtures of the Python tests: the runtime, the real PDFs, an index made from them, the
`indexer` binary, and a real model server for `ask`.

They run from tools/test (tools/test-python), against the wheel installed in the environment
of tools/python-deps, and fail (never skip) when something they need is missing, with the
command that installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The one answer the model can give (a grammar from a JSON schema): two citations of evidence
# and one of none (7 > B = 3), as in tests/it/ask.rs.
FORCED = "Tiles show the counts [1][2]; see also [7]."
FORCED_OPTIONS = {
    "temperature": 0,
    "response_format": {"type": "json_object", "schema": {"type": "string", "enum": [FORCED]}},
}


def runtime() -> Path:
    rt = Path(os.environ.get("INDEXER_RUNTIME") or REPO / ".runtime")
    assert (rt / "lib" / "libpdfium.so").is_file(), f"the runtime is missing in {rt}\nhint: run tools/setup"
    return rt


def corpus(name: str) -> Path:
    data = Path(os.environ.get("INDEXER_TEST_DATA") or REPO / ".test-data")
    p = data / "corpus" / name
    assert p.is_file(), f"test PDF {p} is missing\nhint: run tools/test-data"
    return p


def indexer_bin() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    b = Path(os.environ.get("INDEXER_BIN") or target / "debug" / "indexer")
    assert b.is_file(), f"the indexer binary {b} is missing\nhint: cargo build"
    return b


def make_docs(root: Path) -> Path:
    """Two small real papers, a Markdown file, a corrupt PDF and a file of another type."""
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    shutil.copy(corpus("acmart-sample-sigconf.pdf"), docs / "acmart.pdf")
    shutil.copy(corpus("revtex-apssamp.pdf"), docs / "sub" / "revtex.pdf")
    (docs / "notes.md").write_text(
        "# Mosaic plots\n\nA mosaic plot shows a contingency table as tiles whose areas are the cell frequencies.\n"
    )
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<")
    (docs / "data.bin").write_bytes(bytes([0, 1, 2]))
    return docs


@pytest.fixture(scope="session")
def runtime_dir() -> Path:
    return runtime()


@pytest.fixture(scope="session")
def built(tmp_path_factory, runtime_dir):
    """An index of make_docs() made by the package: (root, Index, summary, progress events)."""
    import indexer

    root = tmp_path_factory.mktemp("package")
    docs = make_docs(root)
    idx = indexer.Index(root / "idx", runtime=runtime_dir)
    events = []
    summary = idx.ingest([docs], progress=events.append, base=root, jobs=2)
    return root, idx, summary, events


@pytest.fixture(scope="session")
def binary_index(tmp_path_factory, runtime_dir):
    """The same documents ingested by the binary: (root, index folder)."""
    root = tmp_path_factory.mktemp("binary")
    make_docs(root)
    env = dict(os.environ, INDEXER_RUNTIME=str(runtime_dir), NO_COLOR="1")
    env.pop("INDEXER_INDEX", None)
    o = subprocess.run(
        [str(indexer_bin()), "--index", "idx", "ingest", "docs", "--quiet", "--jobs", "2"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    # 1: the corrupt PDF failed, the rest went in.
    assert o.returncode == 1, o.stderr
    return root, root / "idx"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llm_url(tmp_path_factory):
    """A real OpenAI-compatible model server: llama-cpp-python's with SmolLM2-135M
    (tools/llm-deps), on a loopback port, for the whole session."""
    o = subprocess.run(
        [str(REPO / "tools" / "llm-deps"), "--print"], capture_output=True, text=True
    )
    assert o.returncode == 0, f"the model server for the tests is not installed: {o.stderr}\nhint: run tools/llm-deps"
    python, gguf = o.stdout.split("\n")[:2]
    port = _free_port()
    log = tmp_path_factory.mktemp("llm") / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [python, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
             "--port", str(port), "--model_alias", "smollm2", "--n_ctx", "2048",
             # One thread: llama.cpp's threads spin while they wait for each other.
             "--n_threads", "1", "--n_threads_batch", "1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        t0 = time.monotonic()
        while True:
            assert proc.poll() is None, f"the model server exited:\n{log.read_text()}"
            try:
                urllib.request.urlopen(url + "/models", timeout=2).read()
                break
            except OSError:
                pass
            assert time.monotonic() - t0 < 90, f"the model server did not start in 90 s:\n{log.read_text()}"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def python_with_package() -> str:
    """The interpreter the tests run in (the one the wheel is installed in)."""
    return sys.executable
