"""Time ``relialint upgrade DIR --to VERSION`` against ``relialint check DIR`` on the generated tree of 1,000 mixed
files of ``bench_tree.py`` (compose with ``.env``, Kubernetes, Helm values, vLLM configs, Dockerfiles, systemd
units, shell scripts, llama.cpp services, files relialint does not read).

    python bench/bench_upgrade.py [--files 1000] [--to 0.23.0] [--repeat 3] [--keep DIR]

Issue 28's target: upgrading the files takes at most twice the time of checking them (an upgrade lints each file on
both sides of the version change, then compares). Prints the best of ``--repeat`` wall times for each command and
the ratio upgrade/check.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tree import build, timed  # the tree of bench_tree.py: one definition


def best(command: list[str], repeat: int) -> tuple[float, int]:
    """The fastest of ``repeat`` runs (the least disturbed by other work on the machine), and its exit code."""
    runs = [timed(command) for _ in range(repeat)]
    return min(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--to", default="0.23.0", help="the release to upgrade to  [default: 0.23.0]")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the tree here and keep it")
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    relialint = shutil.which("relialint", path=str(bindir)) or "relialint"
    tmp = None
    if args.keep:
        root = args.keep
        root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="relialint-bench-")
        root = Path(tmp.name)
    try:
        build(root, args.files)
        total = sum(1 for p in root.rglob("*") if p.is_file())
        print(f"tree: {root} ({total} files)")
        check, check_code = best([relialint, "check", str(root), "--format", "json"], args.repeat)
        print(f"relialint check DIR:                 {check:7.2f} s  (exit {check_code})")
        upgrade, upgrade_code = best([relialint, "upgrade", str(root), "--to", args.to, "--format", "json"],
                                     args.repeat)
        print(f"relialint upgrade DIR --to {args.to:<9} {upgrade:7.2f} s  (exit {upgrade_code})")
        print(f"ratio upgrade/check: {upgrade / check:.2f} (target: at most 2)")
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
