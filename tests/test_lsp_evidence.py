"""The call hierarchy offers name matches with few candidates beside what it shows,
each item's ``detail`` saying why ("by name, 2 candidates"), and says why a narrowed
edge was drawn."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .lsp_support import SERVER, position, start, stop, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")
APP = Path(__file__).parent / "data" / "graph" / "python" / "app"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lsp-evidence") / "repo"
    shutil.copytree(APP / "shapes", root / "shapes")
    shutil.copytree(APP / "checks", root / "checks")
    return root.resolve()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo, {"embeddings": False})
    yield
    await stop(lsp_client)


async def prepare(client: LanguageClient, repo: Path, rel: str, needle: str, offset: int):
    text = (repo / rel).read_text()
    return await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel)), position=position(text, needle, offset=offset)))


async def test_name_matches_with_few_candidates_are_offered_with_their_count(client: LanguageClient,
                                                                             repo: Path) -> None:
    [item] = await prepare(client, repo, "shapes/circle.py", "def scale", 5)
    calls = await client.call_hierarchy_incoming_calls_async(types.CallHierarchyIncomingCallsParams(item=item))
    assert [(c.from_.name, c.from_.detail) for c in calls] == [("zoom", "zoom — by name, 2 candidates")]
    layout = (repo / "shapes/layout.py").read_text()
    site = position(layout, "view.scale(w, h)", offset=5)
    assert [r.start for r in calls[0].from_ranges] == [site]


async def test_a_narrowed_call_and_an_arity_survivor_say_why(client: LanguageClient, repo: Path) -> None:
    [item] = await prepare(client, repo, "checks/test_alpha.py", "def test_expiry", 5)
    calls = await client.call_hierarchy_outgoing_calls_async(types.CallHierarchyOutgoingCallsParams(item=item))
    assert [(c.to.name, c.to.detail) for c in calls] == [
        ("advance", "Clock.advance — narrowed by caller's file has its own Clock.advance: 1 of 2 candidates")]
    [item] = await prepare(client, repo, "shapes/layout.py", "def fit", 5)
    calls = await client.call_hierarchy_outgoing_calls_async(types.CallHierarchyOutgoingCallsParams(item=item))
    assert [(c.to.name, c.to.detail) for c in calls] == [
        ("resize", "Box.resize — by name, 1 candidate (arity: 1 of 2 candidates)")]
