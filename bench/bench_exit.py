"""How long `codeloupe serve` takes to shut down and exit (VS Code's client kills a
server that has not exited 2 s after `exit`), through the real protocol.

Each run starts the server on a copy of tests/data/lsp/repo, waits until it is ready
(or, with --early S, only S seconds: the first index run may still be loading the
model or embedding), types a function into an open buffer (a buffer write and a
re-embed get scheduled), waits --delay seconds and sends shutdown, then exit.

    python bench/bench_exit.py                      # delays 0, 0.55, 0.8 s after the edit
    python bench/bench_exit.py --early 0.5 1 2      # shut down during the first index run
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from lsprotocol import types  # noqa: E402

from bench_lsp import Client, capabilities  # noqa: E402

DATA = BENCH.parent / "tests" / "data" / "lsp" / "repo"


async def one(delay: float, keep_stdin: bool, embeddings: bool, early: float | None = None) -> dict:
    tmp = Path(tempfile.mkdtemp())
    root = tmp / "repo"
    shutil.copytree(DATA, root)
    client = Client()
    await client.start_io(sys.executable, "-m", "codeloupe", "serve")
    proc = client._server
    await client.initialize_async(types.InitializeParams(
        capabilities=capabilities(), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="repo")],
        initialization_options={"embeddings": embeddings}))
    client.initialized(types.InitializedParams())
    t0 = time.monotonic()
    if early is not None:
        await asyncio.sleep(early)
        st = await client.status()
        state = st["state"]
    else:
        st = await client.wait_ready()
        state = "ready"
    ready_s = time.monotonic() - t0
    st["folders"][0].setdefault("pending_embeddings", None)
    uri = (root / "src/shop/cart.py").as_uri()
    text = (root / "src/shop/cart.py").read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    end = types.Position(line=text.count("\n"), character=0)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=end, end=end),
            text='\n\ndef refund(cart):\n    """Give the money back for every item."""\n    return checkout(cart)\n')]))
    await asyncio.sleep(delay)
    t = time.monotonic()
    await client.shutdown_async(None)
    shutdown_s = time.monotonic() - t
    t = time.monotonic()
    client.exit(None)
    if not keep_stdin:
        proc.stdin.close()
    try:
        rc = await asyncio.wait_for(proc.wait(), 30)
    except TimeoutError:
        proc.kill()
        rc = "killed"
    exit_s = time.monotonic() - t
    client._stop_event.set()
    shutil.rmtree(tmp, ignore_errors=True)
    return {"delay": delay, "ready_s": round(ready_s, 2), "shutdown_s": round(shutdown_s, 3),
            "exit_s": round(exit_s, 3), "total_s": round(shutdown_s + exit_s, 3), "rc": rc,
            "pending": st["folders"][0].get("pending_embeddings"), "state": state,
            "progress": st["folders"][0].get("progress")}


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--delay", type=float, nargs="*", default=[0.0, 0.55, 0.8])
    p.add_argument("--keep-stdin", action="store_true")
    p.add_argument("--no-embeddings", action="store_true")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--early", type=float, nargs="*", default=None)
    a = p.parse_args()
    for _ in range(a.runs):
        if a.early is not None:
            for e in a.early:
                print(await one(0.0, a.keep_stdin, not a.no_embeddings, e), flush=True)
            continue
        for d in a.delay:
            print(await one(d, a.keep_stdin, not a.no_embeddings), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
