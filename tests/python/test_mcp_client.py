"""`indexer mcp` driven by the Model Context Protocol's Python client (the `mcp` package from
PyPI) as an agent drives it: the binary started over stdio, tools listed and called, a crop
read as a resource, errors."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import FORCED, FORCED_OPTIONS, indexer_bin

QUESTION = "How do the tiles of a mosaic plot show counts?"


def params(root, index, runtime_dir, *args, env=None):
    # The client passes the server only a few variables of its own environment (PATH, HOME,
    # ...); the runtime is named explicitly, as a client's configuration would.
    return StdioServerParameters(
        command=str(indexer_bin()),
        args=["--index", str(index), "mcp", *args],
        env={"INDEXER_RUNTIME": str(runtime_dir), **(env or {})},
        cwd=str(root),
    )


def run(coro):
    return asyncio.run(coro)


def test_tools_resources_and_errors(binary_index, runtime_dir):
    root, index = binary_index

    async def session():
        async with Client(params(root, index, runtime_dir)) as c:
            init = c.session.initialize_result
            assert init is not None, "the client fell back to the initialize handshake"
            assert init.server_info.name == "indexer"
            assert init.protocol_version == "2025-11-25"

            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert sorted(tools) == ["ask", "list_documents", "search", "show"]
            assert tools["search"].input_schema["required"] == ["query"]
            assert tools["search"].output_schema is not None

            # search: text for the model, structured hits (checked by the client against the
            # output schema), a link to each crop.
            r = await c.call_tool("search", {"query": "sample figure of a roadster", "budget": 3})
            assert not r.is_error
            hits = r.structured_content["hits"]
            assert len(hits) == 3
            top = hits[0]
            assert (top["doc"], top["page"], top["kind"]) == ("docs/acmart.pdf", 4, "figure")
            assert "[1] docs/acmart.pdf p.4 (figure)" in r.content[0].text
            links = [b for b in r.content if b.type == "resource_link"]
            assert links and str(links[0].uri) == top["image_uri"]

            # Filters, selectors, pages.
            r = await c.call_tool(
                "search",
                {"query": QUESTION, "docs": ["notes.md"], "kinds": ["text"], "selector": "cds", "budget": 2},
            )
            assert {h["doc"] for h in r.structured_content["hits"]} == {"docs/notes.md"}
            r = await c.call_tool("search", {"query": "figure", "unit": "page", "budget": 2, "pages": "3-5"})
            pages = r.structured_content["pages"]
            assert pages and all(3 <= p["page"] <= 5 for p in pages)

            # The crop, as an image resource.
            templates = (await c.list_resource_templates()).resource_templates
            assert templates[0].uri_template == "indexer://crop/{note_id}"
            listed = [str(x.uri) for x in (await c.list_resources()).resources]
            assert top["image_uri"] in listed
            res = await c.read_resource(top["image_uri"])
            blob = res.contents[0]
            assert blob.mime_type == "image/png"
            png = base64.b64decode(blob.blob)
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            # The very file of the crop folder.
            assert png in [p.read_bytes() for p in (index / "crops").iterdir()]

            # show and list_documents.
            r = await c.call_tool("show", {"note_id": top["note_id"]})
            assert r.structured_content["note_id"] == top["note_id"]
            assert r.structured_content["context"]
            r = await c.call_tool("list_documents", {})
            docs = [d["doc"] for d in r.structured_content["documents"]]
            assert docs == ["docs/acmart.pdf", "docs/notes.md", "docs/sub/revtex.pdf"]
            assert r.structured_content["failed"][0]["doc"] == "docs/broken.pdf"

            # Errors: a tool's are results the model reads, with the API's code and hint.
            r = await c.call_tool("search", {"query": "x", "docs": ["acmrt.pdf"]})
            assert r.is_error
            assert r.content[0].text.startswith("error unknown_document: ")
            assert "hint: did you mean docs/acmart.pdf?" in r.content[0].text
            r = await c.call_tool("search", {"query": "x", "pages": "9-3"})
            assert r.is_error and "bad_pages" in r.content[0].text
            r = await c.call_tool("show", {"note_id": "docs/acmart.pdf#f99"})
            assert r.is_error and "note_not_found" in r.content[0].text
            r = await c.call_tool("ask", {"query": QUESTION})
            assert r.is_error and "ask_disabled" in r.content[0].text
            # An unknown resource is the protocol's error.
            with pytest.raises(MCPError) as e:
                await c.read_resource("indexer://crop/docs%2Facmart.pdf%23f99")
            assert e.value.code == -32602
            assert e.value.data["code"] == "note_not_found"

    run(session())


def test_legacy_handshake(binary_index, runtime_dir):
    """A client that goes straight to initialize (as every client before the stateless
    revision does)."""
    root, index = binary_index

    async def session():
        async with Client(params(root, index, runtime_dir), mode="legacy") as c:
            r = await c.call_tool("search", {"query": QUESTION, "budget": 1})
            assert r.structured_content["hits"][0]["doc"] == "docs/notes.md"

    run(session())


def test_ask_with_a_model_server(binary_index, runtime_dir, llm_url):
    root, index = binary_index
    progress = []

    async def on_progress(value, total, message):
        progress.append(message)

    async def session():
        forced = json.dumps(FORCED_OPTIONS["response_format"])
        args = ["--llm-url", llm_url, "--images", "never", "--max-tokens", "48", "--llm-timeout", "900",
                "--llm-option", "temperature=0", "--llm-option", f"response_format={forced}"]
        async with Client(params(root, index, runtime_dir, *args)) as c:
            r = await c.call_tool("ask", {"query": QUESTION, "budget": 3}, progress_callback=on_progress)
            assert not r.is_error, r.content[0].text
            a = r.structured_content
            assert a["answer"].strip().strip('"') == FORCED
            assert [x["n"] for x in a["citations"]] == [1, 2]
            assert a["unknown_citations"] == [7]
            assert len(a["evidence"]) == 3
            assert "Sources:\n[1] " in r.content[0].text
            # The answer's pieces came as progress notifications while it was written.
            assert "".join(progress).strip().strip('"') == FORCED, progress

    run(session())
