"""Same findings with the precompiled prelude as with the prelude parsed as text, on real code.

    python bench/pch_equivalence.py PATH [PATH ...] [-I DIR ...] [--per-file-dir] [--sample N]

Checks every file twice in this process (ptxas off, no result cache): once as users run it (the
PCH) and once with ``CUDALINT_NO_PCH=1``; prints each file whose diagnostics or notes differ and
the count of identical ones. Exit status 1 when any file differs.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from cudalint.analyzer.options import AnalysisOptions
from cudalint.cli import collect_files
from cudalint.engine import Task, check_files
from cudalint.rules.options import CheckOptions
from bench_check import sample  # the same file sampling as the benchmark


def _findings(files, a) -> list:
    tasks = [Task(f, AnalysisOptions(include_dirs=list(a.include) + ([os.path.dirname(f)] if a.per_file_dir else []),
                                     use_ptxas=False), CheckOptions()) for f in files]
    return [(r.path, r.error, r.notes, [(d.code, d.location.line, d.location.column, d.message) for d in r.diagnostics])
            for r in check_files(tasks, jobs=1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--per-file-dir", action="store_true")
    ap.add_argument("--sample", type=int, default=0)
    a = ap.parse_args(argv)
    files = sample(sorted(collect_files([Path(p) for p in a.paths])), a.sample)
    os.environ["CUDALINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="cudalint-pcheq-")
    os.environ.pop("CUDALINT_NO_PCH", None)
    with_pch = _findings(files, a)
    os.environ["CUDALINT_NO_PCH"] = "1"
    as_text = _findings(files, a)
    differ = [x[0] for x, y in zip(with_pch, as_text) if x != y]
    for p in differ:
        print(f"differs: {p}")
    print(f"{len(files) - len(differ)} of {len(files)} files: identical findings with and without the PCH")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
