"""The call graph (the reference map): call references resolved to symbols, and the
queries users ask of it (callers, callees, chains, most called, unused). Fed by
extraction results, whoever holds them; it never reads the index store
(``codeloupe.graph_store`` does that for it).

A call is resolved the way a careful reader would, in order; each edge records the
step that found it (``reason``) and a ``confidence``:

1. ``local``: a function or class defined in an enclosing scope (closures, then
   the file's top level); a call of a local variable's value follows the value;
2. ``self`` / ``super``: ``self``/``cls``/``this``/``super()`` to the enclosing
   class and its bases defined in the repository (left-to-right, depth-first
   like Python's MRO, ``extends``/``implements``, mixins, Go embedding); a method a
   mixin calls on ``self`` but only its subclasses define resolves to those, with
   a lower confidence; Java/C#/C++/Ruby bare calls are ``this`` calls; Ruby
   ``super``, C# ``base(...)``, C++ ``Base::send()`` from a derived class; a C++
   method defined out of line (``int Foo::send() {}``) belongs to the class
   ``Foo``; a Rust ``impl`` block sees its type's fields and its trait;
3. ``import``: a name bound by an import (Python relative imports and
   ``__init__`` re-exports, ``import a.b as c``, JS/TS ``import``/``require``, Java
   imports, Go packages, Rust ``use`` paths, C# ``using``, PHP ``use``, C++
   ``using``: by qualified name), and ``module.name`` through such a binding; a
   class of a namespace the file is in or imports whole (C#, PHP, C++); a function
   or class of a file named by ``#include`` / ``require`` (with the sources that
   share a header's stem: ``net/transport.h`` → ``net/transport.c``);
4. ``type``: a call on a value whose type is known from local inference
   (``x = Foo()``, ``x: Foo``, annotated parameters and returns, ``self.x = Foo()``,
   ``a.b().c()`` through known return types; elements of typed sequences: ``xs[0]``,
   ``xs.slice(-1)[0]``, array-method callbacks, ``@returns {X[]}``; either branch
   of ``c ? a : b``; every assignment of a variable assigned again; a JS closure's
   parameters from the calls its defining function makes; a function a method
   assigns to ``this.name``, for ``x.name()`` on an instance whose class has no
   such member); with ``sole-implementation`` (0.8) beside it, the method of the
   one repository class implementing the interface a value is typed by (none when
   two classes or more implement it: the interface member stays the answer);
5. ``name``: only when nothing above found the target (nor showed it lies outside
   the repository: a builtin, an external module, a method of an external type), by
   name across the repository: low confidence, every candidate kept and the edges
   marked ambiguous when there are several; ``unique`` (0.6) when a call on an
   unknown value names a method that exactly one class in the repository defines
   and that the standard types do not use (``get``, ``close``, ``append`` ...);
   the candidates are then narrowed by evidence (``resolve/narrow``): the call's
   argument count rules out those whose parameters cannot take it (Python, Go:
   defaults, ``*args``, variadics, ``self`` not counted); the caller's class, its
   file, the files it imports favour some (marked). None of that promotes (the call
   may go to no candidate: a builtin type's method), but for the caller file's own
   copy of a class whose other copies no import of the file reaches (each test
   file's ``Timer``): ``narrowed`` (0.6, in the default view, why in the edge's
   ``detail``). The candidates of a site with at most three left are offered beside
   the view, "by name, 2 candidates" (``queries.offered``, ``queries.evidence``).

A call of a class is a call of its constructor as well: the edge to the class comes
with one to its ``__init__``/``constructor`` (found along the bases).

Every lookup a resolution makes is keyed by a name and recorded with the call site,
so replacing one file re-resolves exactly the sites that looked up a name whose
facts (definitions, bases, imports, attribute and return types) changed there.

The units, each its own module: ``model`` (the records and enums), ``facts`` (what
extraction hands the graph, digested per file), ``deps`` (dependency keys),
``index`` (symbols and facts, per file), ``edges`` (call sites and edges),
``memo`` (remembered lookups), ``resolve/`` (the resolver), ``queries``,
``persist`` (the saved graph: versioned plain data, never a pickle), ``callfile``
(its calls alone, saved beside it and read in place by the commands that ask about a
few symbols), and ``graph`` (``Graph``, the facade callers use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import CLASS_KINDS, DEFAULT_MIN_CONFIDENCE, CallSite, Edge, Reason, SymbolInfo, TypeRef

if TYPE_CHECKING:
    from .graph import Graph

__all__ = ["CLASS_KINDS", "DEFAULT_MIN_CONFIDENCE", "CallSite", "Edge", "Graph", "Reason", "SymbolInfo",
           "TypeRef"]


# ``Graph`` (and the resolver, numpy and pyarrow under it) is imported on first use: the
# command-line parser reads ``DEFAULT_MIN_CONFIDENCE`` alone
__getattr__ = lazy_names(__name__, {"Graph": "graph"})
