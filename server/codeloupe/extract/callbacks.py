"""TypeScript: an inline callback's parameters have the types of the function type it
is passed as. ``operate((source, subscriber) => { source.subscribe(...) })``, where
``operate(init: (liftedSource: Observable<T>, subscriber: Subscriber<R>) => void)``:
``source`` is an ``Observable``, as tsserver infers it from the context.

Two facts, read together by the resolver (``graph.resolve.values``):

* ``cbparam`` (a variable fact of the scope around the call): ``name`` the callback's
  parameter without a type of its own, ``source`` ``"<argument> <parameter>"`` (their
  positions), ``original`` the callee as written (``operate``, ``this.lift``,
  ``new Observable``);
* ``cbtypes`` (a function's): for each of its parameters, in order, the types of the
  parameters of its function type (joined by ``model.TYPE_SEP``), "" where the
  parameter is no function type; positions joined by ``CALLBACK_SEP``.

A ``this`` parameter (``(this: Observable<T>, subscriber: Subscriber<T>) => ...``) is
no position on either side. Callees written with a call or a subscript in them are
left out (their value is the resolver's guess, not a name)."""

from __future__ import annotations

from tree_sitter import Node, QueryCursor

from ..languages import Language, query
from ..model import CALLBACK_SEP, FUNCTION_KINDS, TYPE_SEP, Reference
from .captures import Def, RawRef
from .source import Source

_CALLS = ("[(call_expression function: (_) @callee arguments: (arguments) @args)"
          " (new_expression constructor: (_) @callee arguments: (arguments) @args)]")
_PARAMETERS = frozenset({"required_parameter", "optional_parameter"})
_CALLEE_LIMIT = 120  # characters of a callee kept
_TYPE_LIMIT = 120  # characters of a parameter's type kept
_PER_FILE = 4000  # callback parameters read in one file, at most


def callback_refs(src: Source, lang: Language, root: Node) -> list[RawRef]:
    """A ``cbparam`` fact for each parameter without a type of each function written as
    an argument of a call or ``new``."""
    out: list[RawRef] = []
    for _, caps in QueryCursor(query(lang.grammar, _CALLS)).matches(root):
        callee, args = caps["callee"][0], caps["args"][0]
        text = src.node_text(callee)
        if not text or len(text) > _CALLEE_LIMIT or any(c in text for c in "()[]\n<"):
            continue
        if callee.parent is not None and callee.parent.type == "new_expression":
            text = "new " + text
        values = [a for a in args.named_children if a.type != "comment"]
        for i, arg in enumerate(values):
            if arg.type not in lang.function_nodes:
                continue
            for j, (name, node) in enumerate(_untyped(src, arg)):
                if name and len(out) < _PER_FILE:
                    out.append(("cbparam", node, name, "", f"{i} {j}", text))
    return out


def _untyped(src: Source, fn: Node) -> list[tuple[str, Node]]:
    """A function's parameters by position (``this`` left out): the name of each that
    has no type of its own, "" for the others."""
    single = fn.child_by_field_name("parameter")  # `x => ...`
    if single is not None:
        return [(src.node_text(single), single)] if single.type == "identifier" else [("", single)]
    params = fn.child_by_field_name("parameters")
    out: list[tuple[str, Node]] = []
    for p in params.named_children if params is not None else ():
        if p.type == "comment":
            continue
        pattern = p.child_by_field_name("pattern") if p.type in _PARAMETERS else p
        if pattern is not None and pattern.type == "this":
            continue
        typed = p.type in _PARAMETERS and p.child_by_field_name("type") is not None
        named = pattern is not None and pattern.type == "identifier" and not typed
        out.append((src.node_text(pattern) if named else "", p))
    return out


def callback_type_facts(path: str, lang: Language, real: list[Def], src: Source) -> list[Reference]:
    """A ``cbtypes`` fact per function or method with a parameter of a function type."""
    out: list[Reference] = []
    for d in real:
        sym = d.symbol
        if sym is None or sym.kind not in FUNCTION_KINDS:
            continue
        params = _parameters(d.node, lang)
        if params is None:
            continue
        positions = [_function_type_params(src, p) for p in params.named_children
                     if p.type in _PARAMETERS and not _is_this(p)]
        if any(positions):
            out.append(Reference(path=path, kind="cbtypes", name=sym.name, receiver="", line=0, col=0,
                                 enclosing=sym.id, source=CALLBACK_SEP.join(positions)))
    return out


def _parameters(node: Node, lang: Language) -> Node | None:
    """The parameter list of a definition's node (a function, a method, a variable
    holding an arrow function)."""
    params = node.child_by_field_name("parameters")
    if params is not None:
        return params
    for decl in node.named_children:  # `const f = (a) => ...`
        value = decl.child_by_field_name("value") if decl.type == "variable_declarator" else None
        if value is not None and value.type in lang.function_nodes:
            return value.child_by_field_name("parameters")
    return None


def _is_this(p: Node) -> bool:
    pattern = p.child_by_field_name("pattern")
    return pattern is not None and pattern.type == "this"


def _function_type_params(src: Source, p: Node) -> str:
    """The types of the parameters of a parameter's function type, "" when it has none."""
    annotation = p.child_by_field_name("type")
    ftype = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    if ftype is not None and ftype.type == "parenthesized_type" and ftype.named_children:
        ftype = ftype.named_children[0]
    if ftype is None or ftype.type != "function_type":
        return ""
    params = ftype.child_by_field_name("parameters")
    types = []
    for q in params.named_children if params is not None else ():
        if q.type not in _PARAMETERS or _is_this(q):
            continue
        t = q.child_by_field_name("type")
        inner = t.named_children[0] if t is not None and t.named_children else None
        types.append(src.node_text(inner)[:_TYPE_LIMIT].replace(TYPE_SEP, "").replace(CALLBACK_SEP, "")
                     if inner is not None else "")
    return TYPE_SEP.join(types)
