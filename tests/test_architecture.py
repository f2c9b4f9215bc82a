"""The package's import graph keeps the architecture (docs/architecture.md): imports
run one way, the engine never imports the language server or the CLI, the graph
never reads the store, only the store speaks LanceDB, the language server's
features never import each other, and no module is in an import circle.

Imports are read from the source (``ast``): every ``import`` a module runs, at the
top or in a function, counts; those under ``if TYPE_CHECKING:`` (type hints only)
do not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "server" / "codeloupe"

# The units from the bottom up: a unit may import its own modules and any unit of a
# lower rank, never one of a higher rank ("languages <- extract <- graph; embed,
# store <- index <- search <- workspace <- ask <- lsp, mcp, cli").
RANKS: dict[str, int] = {
    "errors": 0, "model": 0, "safeio": 0, "userkey": 0, "workers": 0, "lazy": 0,
    "languages": 1, "resolve": 1, "embed": 1, "store": 1, "scan": 1, "indexdir": 1, "llm": 1,
    "extract": 2, "config": 2,
    "buffer": 3, "graph": 3, "graph_store": 3, "statusfile": 3, "filejob": 3, "pending": 3,
    "index": 4,
    "search": 5, "calls": 5,
    "workspace": 6,
    "ask": 7,
    "lsp": 8, "mcp": 8, "cli": 8, "__main__": 9,
    "version": 0,  # codeloupe/__init__.py: __version__ and nothing else
}
FRONT_ENDS = {"lsp", "mcp", "cli"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path) -> set[str]:
    """The modules a file imports when it runs (absolute names)."""
    module = _module_name(path)
    package = module if _is_package(path) else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    prefix = ".".join(base + ([child.module] if child.module else []))
                else:
                    prefix = child.module or ""
                found.add(prefix)
                for alias in child.names:  # `from . import x` imports the module x
                    found.add(f"{prefix}.{alias.name}")
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _graph() -> dict[str, set[str]]:
    """codeloupe module → the codeloupe modules it imports (existing ones only)."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    graph = {}
    for name, path in files.items():
        graph[name] = {m for m in _imports(path) if m in files and m != name}
    return graph


GRAPH = _graph()
ALL_IMPORTS = {name: _imports(path) for name, path in
               ((_module_name(p), p) for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "version"


def test_every_unit_has_a_rank() -> None:
    units = {_unit(m) for m in GRAPH}
    assert units <= set(RANKS), sorted(units - set(RANKS))


def against_direction(graph: dict[str, set[str]]) -> list[str]:
    return [f"{m} -> {o}" for m, imported in graph.items() for o in imported
            if _unit(o) != _unit(m) and RANKS[_unit(o)] > RANKS[_unit(m)]]


def engine_imports_front_end(graph: dict[str, set[str]]) -> list[str]:
    return [f"{m} -> {o}" for m, imported in graph.items() for o in imported
            if _unit(m) not in FRONT_ENDS | {"__main__"} and _unit(o) in FRONT_ENDS]


def graph_reads_store(graph: dict[str, set[str]]) -> list[str]:
    return [f"{m} -> {o}" for m, imported in graph.items() for o in imported
            if _unit(m) == "graph" and _unit(o) in {"store", "index", "workspace", "search"}]


def features_import_features(graph: dict[str, set[str]]) -> list[str]:
    features = {m for m in graph if m.startswith("codeloupe.lsp.features.")}
    return [f"{m} -> {o}" for m in features for o in graph[m] if o in features]


def test_imports_run_one_way() -> None:
    wrong = against_direction(GRAPH)
    assert not wrong, "imports against the direction of the architecture:\n" + "\n".join(wrong)


def test_the_engine_never_imports_a_front_end() -> None:
    assert not engine_imports_front_end(GRAPH)


def test_the_graph_never_reads_the_store() -> None:
    assert not graph_reads_store(GRAPH)


def test_only_the_store_imports_lancedb() -> None:
    wrong = [m for m, imported in ALL_IMPORTS.items()
             if any(i == "lancedb" or i.startswith("lancedb.") or i == "lance" for i in imported)
             and _unit(m) != "store"]
    assert not wrong, wrong


def test_lsp_features_never_import_each_other() -> None:
    assert any(m.startswith("codeloupe.lsp.features.") for m in GRAPH)
    assert not features_import_features(GRAPH)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_module_is_in_an_import_circle() -> None:
    # a package's __init__ re-exporting its modules is not a circle of its own making
    graph = {m: {o for o in imported if not (m.startswith(o + ".") and GRAPH.get(o) is not None
                                             and _is_init(o))}
             for m, imported in GRAPH.items()}
    assert _cycles(graph) == []


def _is_init(module: str) -> bool:
    return (PACKAGE.parent / Path(*module.split(".")) / "__init__.py").is_file()


@pytest.mark.parametrize("edge,check", [
    (("codeloupe.graph", "codeloupe.store"), graph_reads_store),
    (("codeloupe.store", "codeloupe.workspace"), against_direction),
    (("codeloupe.index", "codeloupe.lsp"), engine_imports_front_end),
    (("codeloupe.lsp.features.hover", "codeloupe.lsp.features.hierarchy"), features_import_features),
])
def test_the_checks_see_a_broken_rule(edge: tuple[str, str], check) -> None:
    """The checks are not vacuous: an import that breaks a rule is caught (and the
    same import made both ways is a circle)."""
    graph = {m: set(i) for m, i in GRAPH.items()}
    source, target = edge
    assert not check(graph)
    graph[source].add(target)
    assert check(graph)
    graph[target].add(source)
    assert _cycles(graph)
