"""The call graph (the reference map): extraction results resolved to symbols, the
edges between them, and the queries users ask of them (callers, callees, chains,
most called, unused). Fed by extraction results, whoever holds them; it never reads
the index store (``codeloupe.graph_store`` does that for it).

``Graph`` is the facade; the records are in ``model``.
"""

from __future__ import annotations

from .graph import Graph
from .model import CLASS_KINDS, DEFAULT_MIN_CONFIDENCE, CallSite, Edge, Reason, SymbolInfo, TypeRef

__all__ = ["CLASS_KINDS", "DEFAULT_MIN_CONFIDENCE", "CallSite", "Edge", "Graph", "Reason", "SymbolInfo",
           "TypeRef"]
