"""The whole pipeline (index, graph, search, calls, path, ask, the language server) over
a pinned subset of real projects, as bench/robust_corpus.py runs it over the whole
corpus: not one exception, not one hang. transformers comes from this venv's
site-packages; the others are small downloads from the package registries (Debian
source, a Debian binary package, npm), skipped with the reason when one fails."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench():
    spec = importlib.util.spec_from_file_location("robust_corpus", BENCH / "robust_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


robust = _bench()


@pytest.mark.slow
@pytest.mark.parametrize("name", robust.CI_SUBSET)
def test_the_pipeline_raises_nothing_on_a_real_project(name: str, tmp_path: Path) -> None:
    report = robust.run_project(robust.BY_NAME[name], samples=6, lsp_files=4, per_file=4,
                                queries=3, paths=2, roots=tmp_path)
    if report.skipped:
        warnings.warn(f"{name} not run: {report.skipped}", stacklevel=1)
        pytest.skip(f"{name}: {report.skipped}")
    problems = "\n".join(f"[{p.stage}] {p.kind}: {p.detail[:1200]}" for p in report.problems[:12])
    assert report.exceptions == 0 and report.hangs == 0, problems
    # it ran for real: the index, the graph and the server all saw the project
    assert report.files > 0 and report.symbols > 0 and report.sites > 0, report.as_dict()
    assert report.requests > 10, report.as_dict()
