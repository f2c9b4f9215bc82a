"""Randomly damaged index folders (issue 11): every trial damages a copy of a good
index, then runs what a user runs, and counts what went wrong.

Damage, one to three actions a trial, seeded: truncate a file (to nothing or part),
fill it with garbage, flip a few bytes, delete a file or a folder, replace one with
a symlink (to a tampered copy of the index, to a file outside, or dangling), take
away permissions, forge or drop the owner mark. Then, each in this process through
``codeloupe.cli.main`` (no import cost a call), with a deadline:

1. read-only: ``status``, ``search --no-update --mode fts``, ``calls --no-update``;
2. the writer: ``index`` (it must repair and end with the index a clean run makes);
3. read-only again, on the repaired index.

Counted: trials; crashes (a traceback, an exit code other than 0 or 2); hangs (a
command past the deadline); data lost (the repaired index misses a file, a symbol
or a vector of a clean index, or holds other vectors); foreign data served (the
tampered copy's marker in any output or in the repaired index); and, apart,
vectors computed again although the cache was left intact (expected once when
the folder is judged foreign: its cache is not trusted either); and flipped bytes
inside a data page that were served (Lance's files carry no checksums, so no
reader can tell; counted apart from data lost).

    python bench/fuzz_index.py                 # 200 trials (about 10-20 minutes)
    python bench/fuzz_index.py --trials 20     # a quick look
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import stat
import sys
import threading
import time
import traceback
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
WORK = HERE / ".cache" / "fuzz_index"
RESULTS = HERE / "results"
SOURCE = HERE.parent / "server" / "codeloupe"  # real code: the package itself
MARKER = "FOREIGN-ROWS-7f3a"  # in the tampered copy's snippets and names
DEADLINE_S = 300.0
ACTIONS = ("truncate", "garbage", "flip", "delete", "symlink", "permissions", "owner")


def _cli(args: list[str]) -> tuple[int | None, str, str, str | None]:
    """(exit code, stdout, stderr, crash) of ``codeloupe ARGS`` in this process, under
    the deadline; exit code None when it hung."""
    from codeloupe import cli

    out, err = io.StringIO(), io.StringIO()
    result: list[object] = []

    def run() -> None:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result.append(cli.main(args))
        except SystemExit as exc:
            result.append(exc.code if isinstance(exc.code, int) else 2)
        except BaseException:  # the crash is what we count
            result.append(traceback.format_exc())

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE_S)
    if not result:
        return None, out.getvalue(), err.getvalue(), None
    if isinstance(result[0], str):
        return 1, out.getvalue(), err.getvalue(), result[0]
    crash = err.getvalue() if "Traceback (most recent call last)" in err.getvalue() else None
    return int(result[0]), out.getvalue(), err.getvalue(), crash  # type: ignore[arg-type]


def _snapshot(root: Path) -> dict[str, tuple]:
    """Every symbol of the index ``root`` uses now: id → (content hash, vector)."""
    from codeloupe.config import Settings
    from codeloupe.index import Index

    idx = Index(root, Settings.from_env(), writable=False)
    rows = idx.store.symbol_rows(["id", "content_hash", "vector", "summary_vector"])
    return {r["id"]: (r["content_hash"], tuple(round(x, 5) for x in (r["vector"] or ())),
                      tuple(round(x, 5) for x in (r["summary_vector"] or ()))) for r in rows}


def _tamper(folder: Path) -> None:
    import lancedb

    table = lancedb.connect(str(folder)).open_table("symbols")
    table.update(where="kind = 'function'", values={"snippet": MARKER, "name": MARKER})


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if not p.is_symlink())


def _damage(rng: random.Random, folder: Path, foreign: Path, outside: Path) -> list[str]:
    done = []
    for _ in range(rng.randint(1, 3)):
        action = rng.choice(ACTIONS)
        entries = _files(folder)
        if not entries:
            break
        target = rng.choice(entries)
        rel = target.relative_to(folder)
        try:
            if action in ("truncate", "garbage", "flip") and target.is_file():
                size = target.stat().st_size
                with open(target, "r+b") as fh:
                    if action == "truncate":
                        fh.truncate(rng.choice([0, size // 2, max(size - 8, 0)]))
                    elif action == "garbage":
                        fh.write(os.urandom(size))
                    else:
                        for _ in range(rng.randint(1, 8)):
                            if size:
                                fh.seek(rng.randrange(size))
                                fh.write(bytes([rng.randrange(256)]))
            elif action == "delete":
                shutil.rmtree(target) if target.is_dir() else target.unlink()
            elif action == "symlink":
                to = rng.choice([foreign / rel, outside, folder / "no-such-thing"])
                shutil.rmtree(target) if target.is_dir() else target.unlink()
                os.symlink(to, target)
            elif action == "permissions":
                os.chmod(target, 0)
            elif action == "owner":
                mark = folder / "owner"
                if mark.exists() and rng.random() < 0.5:
                    data = json.loads(mark.read_text() or "{}")
                    data["mac"] = f"{rng.getrandbits(256):064x}"
                    mark.write_text(json.dumps(data))
                else:
                    mark.unlink(missing_ok=True)
                rel = Path("owner")
            else:
                continue
        except OSError as exc:
            done.append(f"{action} {rel} (failed: {exc.strerror})")
            continue
        done.append(f"{action} {rel}")
    return done


def _restore_permissions(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        with contextlib.suppress(OSError):
            if not path.is_symlink():
                os.chmod(path, stat.S_IRWXU if path.is_dir() else stat.S_IRUSR | stat.S_IWUSR)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--backend", default="onnx", help="embedding backend (re-embedding after a "
                    "lost cache is the slow part: onnx is about twice as fast)")
    args = ap.parse_args()
    os.environ["CODELOUPE_EMBEDDING_BACKEND"] = args.backend

    from codeloupe.indexdir import INDEX_DIR

    shutil.rmtree(WORK, ignore_errors=True)
    root = WORK / "repo"
    shutil.copytree(SOURCE, root / "codeloupe", ignore=shutil.ignore_patterns("__pycache__"))
    os.environ["XDG_CACHE_HOME"] = str(WORK / "user-cache")  # fallback indexes, the key
    outside = WORK / "outside.py"
    outside.write_text(f"def {MARKER.replace('-', '_')}():\n    return 'outside the root'\n")
    started = time.monotonic()
    code, _, err, crash = _cli(["index", "-q", str(root)])
    assert code == 0 and not crash, err
    print(f"pristine index: {time.monotonic() - started:.0f}s")
    pristine = WORK / "pristine"
    shutil.copytree(root / INDEX_DIR, pristine, symlinks=True)
    foreign = WORK / "foreign"
    shutil.copytree(pristine, foreign, symlinks=True)
    _tamper(foreign)
    reference = _snapshot(root)

    rng = random.Random(args.seed)
    counts = {"trials": 0, "crashes": 0, "hangs": 0, "data lost": 0, "foreign data served": 0,
              "recomputed with the cache intact": 0, "flipped bytes served": 0}
    problems: list[str] = []
    seen: dict[str, int] = {}  # what the commands answered: reported damage, repairs, moves

    def saw(what: str) -> None:
        seen[what] = seen.get(what, 0) + 1

    for trial in range(args.trials):
        folder = root / INDEX_DIR
        _restore_permissions(folder)
        shutil.rmtree(folder, ignore_errors=True)
        if folder.is_symlink() or folder.exists():
            folder.unlink()
        shutil.copytree(pristine, folder, symlinks=True)
        actions = _damage(rng, folder, foreign, outside)
        cache_touched = any("embcache" in a for a in actions) or any(
            "symbols.lance" in a for a in actions)
        counts["trials"] += 1
        outputs = []
        commands = [
            ["status", str(root)],
            ["search", "--root", str(root), "--no-update", "--mode", "fts", "--snippets", "--json",
             "split identifiers into words"],
            ["calls", "--root", str(root), "--no-update", "--json", "split_identifier"],
            ["index", "-q", "--json", str(root)],
            ["search", "--root", str(root), "--no-update", "--mode", "fts", "--snippets",
             "split identifiers into words"],
            ["status", str(root)],
        ]
        for step, command in enumerate(commands):
            code, out, err, crash = _cli(command)
            outputs.append(out + err)
            if code == 2 and step < 3:
                saw("read-only commands refused with one line (exit 2)")
            if "not made by codeloupe for this user" in err and step == 3:
                saw("index folder judged foreign: kept elsewhere")
            if code is None:
                counts["hangs"] += 1
                problems.append(f"trial {trial} {actions}: {command[0]} hung")
            elif crash or code not in (0, 2):
                counts["crashes"] += 1
                problems.append(f"trial {trial} {actions}: {command[0]} exit {code}\n"
                                f"{(crash or err)[-1500:]}")
            if command[0] == "index" and code == 0:
                try:
                    report = json.loads(out)
                    if any(str(e).startswith("repaired") for e in report.get("errors", [])):
                        saw("index run repaired damage")
                    if report.get("rebuilt"):
                        saw("index run rebuilt (metadata unreadable)")
                    if report.get("embeddings_computed") and not cache_touched:
                        counts["recomputed with the cache intact"] += 1
                        problems.append(f"trial {trial} {actions}: {report['embeddings_computed']}"
                                        " texts embedded again (cache untouched)")
                except ValueError:
                    pass
        if any(MARKER in o or MARKER.replace("-", "_") in o for o in outputs):
            counts["foreign data served"] += 1
            problems.append(f"trial {trial} {actions}: foreign data in the output")
        try:
            now = _snapshot(root)
        except Exception as exc:
            now = {}
            problems.append(f"trial {trial} {actions}: the repaired index cannot be read: {exc}")
        if now != reference:
            # A flipped byte inside a data page is not damage Lance can see (its files
            # carry no checksums): counted apart from what the kinds lose.
            flipped = any(a.startswith("flip") for a in actions) and set(now) == set(reference)
            counts["flipped bytes served" if flipped else "data lost"] += 1
            missing = len(set(reference) - set(now))
            problems.append(f"trial {trial} {actions}: repaired index differs ({missing} "
                            f"symbols missing, {len(set(now) - set(reference))} extra)")
        if (trial + 1) % 20 == 0:
            print(f"{trial + 1} trials, {time.monotonic() - started:.0f}s: {counts}", flush=True)

    print("\n| trials | crashes | hangs | data lost | foreign data served | recomputed, cache "
          "intact | flipped bytes served |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(f"| {counts['trials']} | {counts['crashes']} | {counts['hangs']} | {counts['data lost']} "
          f"| {counts['foreign data served']} | {counts['recomputed with the cache intact']} "
          f"| {counts['flipped bytes served']} |")
    for what, n in sorted(seen.items()):
        print(f"- {what}: {n}")
    for p in problems[:40]:
        print("\n" + p)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fuzz_index.json").write_text(json.dumps({"counts": counts, "seen": seen,
                                                         "problems": problems},
                                                        indent=1))
    bad = counts["crashes"] + counts["hangs"] + counts["data lost"] + counts["foreign data served"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
