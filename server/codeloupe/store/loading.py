"""Importing lancedb without the half second its namespace client costs.

``import lancedb`` imports ``lance_namespace`` for the request and response models of
Lance namespaces, and that imports the package ``lance_namespace_urllib3_client``,
whose ``__init__`` builds every REST API class of the namespace service (pydantic
validators for some 200 methods): measured 0.5 of lancedb's 1.0 s import on this
machine. Neither lancedb nor codeloupe uses those classes: the models come from the
package's ``models`` subpackage, which needs nothing of its ``__init__``.

So before lancedb is imported, the client package is put in ``sys.modules`` with
its ``__init__`` not yet run (``defer_package_init``): its subpackages import from
its ``__path__`` as usual, and the first access of any other attribute of the
package itself (``ApiClient``, ``Configuration``, ``__version__``, ``from … import
*``) runs the ``__init__`` then, so whoever does use the client gets exactly the
package it would have had. Only the standard import protocol is used (a module
``__getattr__``, PEP 562; ``importlib.util.module_from_spec``), nothing of lancedb is
touched, and when the package is missing, already imported or not a package, lancedb
is imported the ordinary way.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType

NAMESPACE_CLIENT = "lance_namespace_urllib3_client"
_lock = threading.RLock()


def defer_package_init(name: str) -> bool:
    """Register package ``name`` in ``sys.modules`` with its ``__init__`` deferred to the
    first access of an attribute it would define; its submodules import at once.
    False (and nothing done) when it is imported already, missing or not a package."""
    with _lock:
        if name in sys.modules:
            return False
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return False
        module = importlib.util.module_from_spec(spec)
        ran = threading.Event()

        def run_init(attr: str) -> object:
            with _lock:
                if not ran.is_set():
                    ran.set()
                    del module.__dict__["__getattr__"]
                    try:
                        spec.loader.exec_module(module)  # type: ignore[union-attr]
                    except BaseException:
                        sys.modules.pop(name, None)  # as a failed import leaves it
                        raise
            try:
                return module.__dict__[attr]
            except KeyError:
                raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

        module.__dict__["__getattr__"] = run_init
        sys.modules[name] = module
        return True


def import_lancedb() -> ModuleType:
    """The ``lancedb`` module, its namespace client's ``__init__`` deferred."""
    if "lancedb" not in sys.modules:
        defer_package_init(NAMESPACE_CLIENT)
    return importlib.import_module("lancedb")
