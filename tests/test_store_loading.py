"""lancedb imported with its namespace client's ``__init__`` deferred
(``codeloupe.store.loading``): the client's submodules import at once, the package's own
names run its ``__init__`` on first use, and lancedb works as it did. Each check runs in
a fresh interpreter (``sys.modules`` is what is being tested)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from .test_cli import ENV


def python(code: str, cwd: Path | None = None) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, env=ENV, cwd=cwd, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_deferred_package_runs_its_init_at_the_first_name_it_defines(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("import sys\nsys.ran = getattr(sys, 'ran', 0) + 1\n"
                                     "from pkg.sub.leaf import LEAF\nNAME = 'init'\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "leaf.py").write_text("LEAF = 'leaf'\n")
    out = python("""
        import sys
        from codeloupe.store.loading import defer_package_init
        assert defer_package_init("pkg") and not defer_package_init("pkg")
        from pkg.sub.leaf import LEAF
        print(LEAF, getattr(sys, "ran", 0))
        from pkg import NAME
        import pkg
        print(NAME, pkg.LEAF, sys.ran, hasattr(pkg, "nothing"), sys.ran)
        import json  # a package already imported is not deferred
        assert not defer_package_init("json") and not defer_package_init("no_such_package")
    """, cwd=tmp_path)
    assert out.split("\n")[:2] == ["leaf 0", "init leaf 1 False 1"]


def test_lancedb_imports_without_the_namespace_client_apis_and_still_works(tmp_path: Path) -> None:
    out = python(f"""
        import sys
        from codeloupe.store.loading import import_lancedb
        lancedb = import_lancedb()
        print(any(m.startswith("lance_namespace_urllib3_client.api") for m in sys.modules))
        db = lancedb.connect({str(tmp_path / "db")!r})
        table = db.create_table("t", data=[{{"id": "a", "n": 1}}, {{"id": "b", "n": 2}}])
        print(table.count_rows(), sorted(r["id"] for r in table.search().where("n > 1").to_list()))
        import lance_namespace_urllib3_client as client
        print(client.ApiClient.__name__, "lance_namespace_urllib3_client.api.table_api" in sys.modules)
    """)
    assert out.split("\n")[:3] == ["False", "2 ['b']", "ApiClient True"]
