"""watchdog against watchfiles for ``codeloupe mcp``'s file watcher (issue 15): how soon a
change is heard, what setting up the watch costs, how many inotify watches it takes,
and whether a symbolic link out of the root is followed.

    python bench/bench_watch.py                   # 20 writes each, a 2,000-folder tree outside
    python bench/bench_watch.py --writes 50 --outside-dirs 10000

Each library runs in its own process on the same fresh tree: a root with 200 folders
and a link to a folder outside it that holds ``--outside-dirs`` folders (the shape of a
repository with a link to a big tree: a dependency cache, ``/usr``). Reported: setup
until the first change is heard, the median and worst delay from a write to its event,
the inotify watches the process holds (``/proc/self/fdinfo``), and whether a write
outside the root, through the link, was reported."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = r'''
import json, os, sys, threading, time
which, root, outside, writes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
heard = []
outside_seen = []
cond = threading.Condition()

def got(paths):
    with cond:
        heard.extend(paths)
        outside_seen.extend(p for p in paths if "secret" in p)
        cond.notify_all()

def wait_for(pred, timeout=10.0):
    end = time.monotonic() + timeout
    with cond:
        while not pred():
            left = end - time.monotonic()
            if left <= 0:
                return False
            cond.wait(left)
    return True

t0 = time.perf_counter()
if which == "watchfiles":
    import watchfiles
    stop = threading.Event()
    def run():
        for changes in watchfiles.watch(root, stop_event=stop, step=50):
            got([p for _, p in changes])
    threading.Thread(target=run, daemon=True).start()
else:
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer
    class H(FileSystemEventHandler):
        def on_any_event(self, e):
            if e.event_type not in ("opened", "closed_no_write"):
                got([os.fsdecode(e.src_path)])
    o = Observer()
    o.schedule(H(), root, recursive=True, follow_symlink=False)
    o.start()
# ready: the first change heard (a library may set up its watches in a thread)
probe = os.path.join(root, "probe.txt")
n = 0
while True:
    n += 1
    with open(probe, "w") as f:
        f.write(str(n))
    if wait_for(lambda: any(p.endswith("probe.txt") for p in heard), 0.2):
        break
setup = time.perf_counter() - t0
watches = 0
for fd in os.listdir("/proc/self/fdinfo"):
    try:
        with open(f"/proc/self/fdinfo/{fd}") as f:
            watches += sum(1 for line in f if line.startswith("inotify wd:"))
    except OSError:
        pass
with open(os.path.join(outside, "secret.py"), "w") as f:
    f.write("token = 1\n")
delays = []
for i in range(writes):
    target = os.path.join(root, f"d{i % 200}", f"f{i}.py")
    with cond:
        heard.clear()
    t = time.perf_counter()
    with open(target, "w") as f:
        f.write("x = 1\n")
    if wait_for(lambda: target in heard):
        delays.append(time.perf_counter() - t)
with cond:  # the outside write came before all the others: heard by now, if at all
    outside_heard = bool(outside_seen)
print(json.dumps({"setup_s": setup, "watches": watches, "delays": delays,
                  "outside_heard": outside_heard}))
'''


def tree(base: Path, outside_dirs: int) -> tuple[Path, Path]:
    root, outside = base / "repo", base / "outside"
    for i in range(200):
        (root / f"d{i}").mkdir(parents=True)
    for i in range(outside_dirs):
        (outside / f"o{i // 100}" / f"p{i}").mkdir(parents=True)
    (root / "vendor").symlink_to(outside, target_is_directory=True)
    return root, outside


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writes", type=int, default=20)
    ap.add_argument("--outside-dirs", type=int, default=2000)
    args = ap.parse_args()
    rows = {}
    for which in ("watchdog", "watchfiles"):
        base = Path(tempfile.mkdtemp(prefix="bench-watch-"))
        try:
            root, outside = tree(base, args.outside_dirs)
            proc = subprocess.run([sys.executable, "-c", PROBE, which, str(root), str(outside),
                                   str(args.writes)], capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                sys.exit(f"{which} failed:\n{proc.stderr[-2000:]}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
        finally:
            shutil.rmtree(base, ignore_errors=True)
        d = sorted(r["delays"])
        rows[which] = {"setup_ms": round(r["setup_s"] * 1000, 1), "watches": r["watches"],
                       "heard": f"{len(d)}/{args.writes}",
                       "p50_ms": round(statistics.median(d) * 1000, 1) if d else None,
                       "max_ms": round(d[-1] * 1000, 1) if d else None,
                       "outside_heard": r["outside_heard"]}
    print(f"root: 200 folders; a link out of it to {args.outside_dirs:,} folders; "
          f"{args.writes} writes; load {os.getloadavg()[0]:.1f}")
    print("| library | setup (ms) | inotify watches | heard | delay p50 / max (ms) | a write outside, through the link, heard |")
    print("| --- | --- | --- | --- | --- | --- |")
    for which, r in rows.items():
        print(f"| {which} | {r['setup_ms']} | {r['watches']:,} | {r['heard']} | {r['p50_ms']} / {r['max_ms']} | "
              f"{'yes' if r['outside_heard'] else 'no'} |")


if __name__ == "__main__":
    main()
