"""The live model of a workspace folder, shared by the language server and the CLI.

- ``folder``: one folder — its index, the phase of its index run, the model of its
  files (disk and live buffers), its writer thread and searcher;
- ``model``: the per-file model (symbol rows, reference dicts) and where things are
  in a file;
- ``graphs``: the call graph of the model, one update per change, and the graph
  saved beside the index (the CLI's graph comes from the same cache);
- ``schedule``: the one keyed debouncer and the one serial-per-key runner;
- ``jobs``: thread pools a shutdown need not wait for.

It knows nothing of LSP or MCP types: ``lsp`` and ``cli`` adapt it.
"""

from __future__ import annotations

from .folder import Folder, indexes_alive, rows_and_key, sync_files, track_index
from .graphs import GraphCache, Snapshot, graph_for
from .jobs import Jobs
from .model import FileModel, SymRow, contains, innermost, name_span, ref_at
from .schedule import Debouncer, Serial

__all__ = [
    "Debouncer", "FileModel", "Folder", "GraphCache", "Jobs", "Serial", "Snapshot", "SymRow",
    "contains", "graph_for", "indexes_alive", "innermost", "name_span", "ref_at", "rows_and_key",
    "sync_files", "track_index",
]
