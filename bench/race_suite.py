"""Detection and false-alarm counts of the race rules (CL602/CL603/CL606/CL607) on a labelled
suite laid out like GPUVerify's CUDA test suite (github.com/mc-imperial/gpuverify,
``testsuite/CUDA``): one ``kernel.cu`` per directory whose first line is ``//pass`` (verified
race-free) or ``//xfail:NOT_ALL_VERIFIED`` (an error is expected), whose second line gives
``--blockDim=`` and ``--gridDim=``, and whose following comment lines give the expected error.

    python bench/race_suite.py SUITE_ROOT [--list]

An xfail kernel counts as racy when its expected error names a race (``race``, ``Write by
thread``, "This kernel is racy") or it is one of the unlabelled races named in ``RACY``; xfail
kernels for other errors (asserts, null pointers, barrier divergence, constant memory,
frontend errors) are left out. Racy kernels are split by the memory their race is on
(``SHARED_RACES``: shared; the others global). Every ``//pass`` kernel counts as race-free
(those verified under GPUVerify's warp-synchronous mode are listed apart as well). The GPUVerify annotation builtins
(``__requires`` ...) are defined away (loop invariants, which sit in a loop's condition, as
``(void)0``); ``cuda.h``, cooperative groups and cuRAND are included, and GPUVerify's
``synchronize(g)`` is ``g.sync()``, as GPUVerify's own prelude does.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.rules.runner import CheckOptions, check_file

#: xfail kernels of the suite that race but whose expected message does not say so
RACY = {"atomics/add_tid", "atomics/add_zero", "cooperative_groups/fail/race",
        "fail_tests/race_on_shared", "fail_tests/shared_int", "pointeranalysistests/testbasicaliasing",
        "warpsync/broken_shuffle", "globalarray/fail"}
#: racy kernels whose race is on shared memory
SHARED_RACES = {"fail_tests/race_on_shared", "fail_tests/shared_int", "loop_unwind", "pointertests/cast"}
RACE_CODES = ("CL602", "CL603", "CL606", "CL607")
PRELUDE = """#include <cuda.h>
#include <cooperative_groups.h>
#include <curand_kernel.h>
using namespace cooperative_groups;
#define __requires(x)
#define __ensures(x)
#define __assert(x)
#define __assume(x)
#define __invariant(x) ((void)0)
#define __global_invariant(x) ((void)0)
#define __requires_fresh_array(x)
#define __function_wide_invariant(x)
#define synchronize(g) (g).sync()
"""


def dims(text: str, name: str):
    m = re.search(rf"--{name}=(\[[^\]]*\]|\d+)", text)
    if not m:
        return None
    v = [int(x) for x in re.findall(r"\d+", m.group(1))]
    return tuple((v + [1, 1])[:3])


def label(rel: str, lines: list[str]):
    head = lines[0].strip().lower()
    comments = " ".join(l for l in lines[2:12] if l.startswith("//")).lower()
    if head.startswith("//pass"):
        return "free"
    if head.startswith("//xfail:not_all_verified"):
        if rel in RACY or "race" in comments or "write by thread" in comments or "racy" in comments:
            return "racy"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--list", action="store_true", help="print every kernel's verdict")
    a = ap.parse_args(argv)
    root = Path(a.root)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in sorted(root.rglob("kernel.cu")):
            rel = str(f.parent.relative_to(root))
            text = f.read_text(errors="replace")
            lines = text.splitlines()
            lab = label(rel, lines)
            if lab is None:
                continue
            block, grid = dims(lines[1], "blockDim"), dims(lines[1], "gridDim")
            src = Path(tmp) / (rel.replace("/", "_") + ".cu")
            src.write_text(PRELUDE + text)
            opts = AnalysisOptions(use_ptxas=False)
            if block:
                opts.block = block
            if grid:
                opts.grid = grid
            opts.defines = [f"{m.group(1)}={m.group(2)}" for m in re.finditer(r"-D(\w+)=(\S+)", lines[1])]
            res, _ = check_file(str(src), opts, CheckOptions(select=list(RACE_CODES) + ["CL000"]))
            diags = res.diagnostics
            codes = sorted({d.code for d in diags})
            found = [c for c in codes if c in RACE_CODES]
            rows.append((rel, lab, found, "CL000" in codes))
    racy = [r for r in rows if r[1] == "racy"]
    free = [r for r in rows if r[1] == "free"]
    det = [r for r in racy if r[2]]
    fa = [r for r in free if r[2]]
    glob = [r for r in racy if r[0] not in SHARED_RACES]
    if a.list:
        for rel, lab, found, err in rows:
            verdict = ("found" if found else "MISSED") if lab == "racy" else ("FALSE ALARM" if found else "clean")
            print(f"{lab:5} {verdict:11} {','.join(found) or '-':12} {'(CL000)' if err else '':8} {rel}")
    print(f"racy kernels: {len(racy)}, reported: {len(det)}")
    print(f"  global-memory races: {len(glob)}, reported: {sum(1 for r in glob if r[2])}")
    print(f"  shared-memory races: {len(racy) - len(glob)}, reported: {len(det) - sum(1 for r in glob if r[2])}")
    print(f"race-free kernels: {len(free)}, false alarms: {len(fa)}")
    print(f"not parsed (CL000): {sum(1 for r in rows if r[3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
