"""What the global-memory race check (CL606/CL607) adds to ``cudalint check``.

    python bench/race_cost.py PATH ... [-I DIR ...] [--per-file-dir] [--sample N] [--repeat N]

Times ``engine.check_files`` (one process, jobs=1, no result cache, ptxas off; CPU seconds of the
process, so that other load on a shared machine stays out) over the files
(``--sample N``: N spread over the sorted list, as bench/bench_check.py picks them) three ways,
interleaved, medians of ``--repeat`` rounds after a warm-up:

* **all rules**: what a user gets;
* **without CL606/CL607** (``--ignore CL606,CL607``): the race run records no global access
  and pairs none, and the parameter probing and the one-warp rerun are skipped; it still runs
  the blocks the global check picks, so CL602/CL603 see the same run either way;
* **one block, no global check**: the race run over block 0 alone, as before the global
  check existed (a bench-only setting: what the check costs in all).

Prints the seconds and the ratios all/without and all/one-block.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from cudalint.analyzer import sync as sync_mod
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.cli import collect_files
from cudalint.engine import Task, check_files
from cudalint.rules.runner import CheckOptions
from bench_check import sample  # the same file sampling as the benchmark


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--per-file-dir", action="store_true")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    files = sample(sorted(collect_files([Path(p) for p in a.paths])), a.sample)

    def tasks(copts):
        return [Task(f, AnalysisOptions(include_dirs=list(a.include) + (
            [os.path.dirname(os.path.abspath(f))] if a.per_file_dir else []), use_ptxas=False), copts)
            for f in files]

    real_blocks = sync_mod.global_blocks

    def one_block(grid, comps):
        return [(0, 0, 0)], ""

    def run(mode: str) -> float:
        sync_mod.global_blocks = one_block if mode == "one block" else real_blocks
        copts = CheckOptions(ignore=["CL606", "CL607"]) if mode != "all rules" else CheckOptions()
        t0 = time.process_time()  # CPU time of this process: other load on the machine stays out
        check_files(tasks(copts), jobs=1, cache=None)
        return time.process_time() - t0

    modes = ["all rules", "without CL606/CL607", "one block"]
    check_files(tasks(CheckOptions())[:1], jobs=1, cache=None)  # warm-up: imports, prelude
    times = {m: [] for m in modes}
    for i in range(a.repeat):
        for m in (modes if i % 2 == 0 else modes[::-1]):
            times[m].append(run(m))
    sync_mod.global_blocks = real_blocks
    med = {m: statistics.median(v) for m, v in times.items()}
    print(f"{len(files)} files, {a.repeat} rounds (medians, CPU seconds)")
    for m in modes:
        print(f"  {m:22} {med[m]:7.2f}   ({', '.join(f'{x:.2f}' for x in times[m])})")
    print(f"  all / without CL606-7  {med['all rules'] / med['without CL606/CL607']:.3f}")
    print(f"  all / one block        {med['all rules'] / med['one block']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
