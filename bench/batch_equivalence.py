"""Batched nvcc compiles give every file the register report it gets alone.

    python bench/batch_equivalence.py PATH [PATH ...] [-I DIR ...] [--per-file-dir] [--sample N]
                                      [--batch N] [--arch sm_90]

Compiles each file's device code alone (``NvccPlan.compile``, no cache) and then all of them
in batches (``ptxas_batch.compile_batch``, groups chosen in file order by ``ptxas_batch.choose``
as the background compiler does), compares per file and function: registers, barriers, stack
frame, spill stores/loads, static shared, constant banks, local bytes, cumulative stack, and the
report's ok/mode/gmem; prints the nvcc CPU seconds (children's user+sys) of both passes, the
batches, the files batched and the fallbacks. Exit status 1 when anything differs.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cudalint.analyzer import ptxas_batch
from cudalint.analyzer.registers import nvcc_plan
from cudalint.cli import collect_files
from bench_check import sample

FIELDS = ("is_entry", "registers", "barriers", "stack_frame_bytes", "spill_store_bytes", "spill_load_bytes",
          "static_smem_bytes", "param_smem_bytes", "local_bytes", "cumulative_stack_bytes", "constant_bytes")


def _cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def summary(rep) -> dict:
    return {"ok": rep.ok, "mode": rep.mode, "gmem": rep.gmem_bytes,
            "functions": {k: {f: getattr(v, f) for f in FIELDS} for k, v in rep.functions.items()}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--per-file-dir", action="store_true", help="add each file's directory to its -I list")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--batch", type=int, default=8, help="files per batch at most")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args(argv)
    os.environ.setdefault("CUDALINT_NICE", "0")
    files = sample(sorted(str(p) for p in collect_files([Path(p) for p in a.paths])), a.sample)
    plans, skipped = [], 0
    for f in files:
        inc = list(a.include) + ([os.path.dirname(os.path.abspath(f))] if a.per_file_dir else [])
        p = nvcc_plan(f, a.arch, inc)
        if p is None or p.dc is None:
            skipped += 1  # no nvcc compile, or no kernel: nothing a batch could take
            continue
        plans.append(p)

    c0, w0 = _cpu(), time.perf_counter()
    alone = [summary(p.compile()) for p in plans]
    c1, w1 = _cpu(), time.perf_counter()
    batched: list = [None] * len(plans)
    left = list(range(len(plans)))
    groups = []
    while left:
        pick = [left[j] for j in ptxas_batch.choose([plans[i] for i in left], a.batch)]
        groups.append(pick)
        for i, rep in zip(pick, ptxas_batch.compile_batch([plans[i] for i in pick], use_cache=False)):
            batched[i] = summary(rep)
        left = [i for i in left if i not in pick]
    c2, w2 = _cpu(), time.perf_counter()

    diffs = 0
    for p, x, y in zip(plans, alone, batched):
        if x != y:
            diffs += 1
            print(f"DIFFERS: {p.src}")
            for k in sorted(set(x["functions"]) | set(y["functions"])):
                if x["functions"].get(k) != y["functions"].get(k):
                    print(f"  {k}: alone {x['functions'].get(k)}\n  {' ' * len(k)}  batch {y['functions'].get(k)}")
            for k in ("ok", "mode", "gmem"):
                if x[k] != y[k]:
                    print(f"  {k}: alone {x[k]!r}, batch {y[k]!r}")
    reasons: dict = {}
    for p in plans:
        r = ptxas_batch.alone_reason(p.dc, p)
        if r:
            reasons[r.split(" (")[0]] = reasons.get(r.split(" (")[0], 0) + 1
    for g in groups:
        if len(g) > 1:
            print("batch:", " ".join(os.path.basename(str(plans[i].src)) for i in g))
    for files_, why in ptxas_batch.failures:
        print("failed batch:", " ".join(os.path.basename(f) for f in files_), "--", why[:300])
    st = ptxas_batch.stats
    print(f"{len(files)} files, {skipped} without a kernel or nvcc compile, {len(plans)} compiled")
    print(f"groups chosen: {sum(1 for g in groups if len(g) > 1)} of 2+ files "
          f"({sum(len(g) for g in groups if len(g) > 1)} files), {sum(1 for g in groups if len(g) == 1)} alone")
    print(f"never batched: {reasons}")
    print(f"batches compiled: {st['batches']} ({st['batched_files']} files); failed batches: {st['failed_batches']}, "
          f"retries: {st['retries']}, files sent back to single compiles: {st['fallback_files']}")
    print(f"nvcc CPU: alone {c1 - c0:.1f} s, batched {c2 - c1:.1f} s "
          f"(wall {w1 - w0:.1f} s / {w2 - w1:.1f} s, CUDALINT_NICE={os.environ.get('CUDALINT_NICE')})")
    print(f"{len(plans) - diffs} of {len(plans)} files identical" + ("" if not diffs else f", {diffs} DIFFER"))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
