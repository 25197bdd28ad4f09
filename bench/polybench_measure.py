#!/usr/bin/env python3
"""Measure PolyBench-ACC's kernels at their real sizes on a GPU, per source line (standard
library only; run from the repository root on the device).

    python3 bench/polybench_measure.py [--out DIR] [--deadline SECONDS] [--only SUBSTRING]
                                       [--list]

The programs are the distilled PolyBench kernels of ``tests/realcode``: ``pb_*.cu`` where they
already run at PolyBench-ACC's STANDARD_DATASET sizes and grids, and ``tests/realcode/polybench``
where they do not (``*_std.cu``: 3mm, gemm, correlation, covariance, jacobi-1d/2d resized; adi
with PolyBench-ACC's ``grid1.x``) or where the host loop's step variable matters
(``pb_lu_k1001.cu``, ``pb_gramschmidt_k1001.cu``: one iteration at k = 1001 with the grids the
loop computes there). 23 programs, 46 kernels. The slowest (correlation and covariance at
M = N = 2048: one launch of corr_kernel/covar_kernel is about 2 s) run last.

For each program, ``bench/realcode_measure.py``'s steps: ``nvcc -O3 -arch=sm_90 -lineinfo
-Xptxas -v``, ``nvdisasm -g`` (source line of every SASS instruction), Nsight Compute with the
kernel-level metrics and the SourceCounters section (``--cache-control all --clock-control
none``, each kernel's one launch). Then ``bench/realcode_collect.py``'s collection: per kernel
the launch, the kernel-level counters and one row per SASS global/shared/local instruction with
its source line, executions (warp-level requests) and L2 theoretical sectors per request.

Written to ``OUT`` (default ``$OUT``), after every program so a run cut short keeps what it
measured:

- ``polybench-raw.json``: the raw pages (``realcode-raw.json``'s form);
- ``polybench-measured.json``: ``tests/data/realcode-measured.json``'s form, plus ``lines`` per
  kernel: per (source line, space, direction) the executed requests, sectors and
  sectors/request summed over the line's instructions -- the per-source-line figure.

Compare with cudalint here (no GPU): ``tests/test_polybench_measured.py`` once the file is
stored as ``tests/data/polybench-measured.json``.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import realcode_measure as RM  # noqa: E402

# tests/realcode/pb_*.cu superseded by a tests/realcode/polybench/*_std.cu at the real size
SUPERSEDED = {"pb_3mm", "pb_gemm", "pb_correlation", "pb_covariance", "pb_jacobi1d", "pb_jacobi2d",
              "pb_adi"}
SLOW = {"pb_correlation_std": 420, "pb_covariance_std": 420}  # per-program profile time limit (s)


def programs() -> list:
    progs = []
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "realcode", "pb_*.cu"))):
        name = os.path.splitext(os.path.basename(p))[0]
        if name not in SUPERSEDED:
            progs.append(p)
    progs += sorted(glob.glob(os.path.join(ROOT, "tests", "realcode", "polybench", "*.cu")))
    out = []
    for p in progs:
        name = os.path.splitext(os.path.basename(p))[0]
        prog = {"name": name, "path": p, "kind": "distilled",
                "file": os.path.relpath(p, ROOT).replace(os.sep, "/")}
        if name in SLOW:
            prog["timeout"] = SLOW[name]
        out.append(prog)
    return sorted(out, key=lambda p: (p["name"] in SLOW, p["name"]))


def _collector():
    """bench/realcode_collect.py, importable whatever the checkout's directory is called (it
    imports ``cudalint.commands``: pure standard library)."""
    link_dir = tempfile.mkdtemp(prefix="pb_pkg_")
    os.symlink(ROOT, os.path.join(link_dir, "cudalint"))
    sys.path.insert(0, link_dir)
    import realcode_collect as RC
    return RC


def lines_of(entry: dict) -> list:
    """Per (line, space, op): executed requests, sectors (or wavefronts) and the ratio, summed
    over the SASS instructions of the line."""
    acc: dict = {}
    for a in entry.get("accesses", []):
        key = (a.get("line"), a.get("space"), a.get("op"))
        ex = a.get("executed") or 0
        d = acc.setdefault(key, {"line": key[0], "space": key[1], "op": key[2], "instructions": 0,
                                 "executed": 0, "sectors": 0, "wavefronts": 0})
        d["instructions"] += 1
        d["executed"] += ex
        if a.get("sectors_per_request") is not None:
            d["sectors"] += a.get("sectors", a["sectors_per_request"] * ex)
        if a.get("wavefronts_per_request") is not None:
            d["wavefronts"] += a["wavefronts_per_request"] * ex
    out = []
    for d in sorted(acc.values(), key=lambda d: (d["line"] or 0, d["space"] or "", d["op"] or "")):
        if d["space"] == "shared":
            d["wavefronts_per_request"] = round(d["wavefronts"] / d["executed"], 4) if d["executed"] else None
            del d["sectors"]
        else:
            d["sectors_per_request"] = round(d["sectors"] / d["executed"], 4) if d["executed"] else None
            del d["wavefronts"]
        out.append(d)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--deadline", type=float, default=560.0, help="seconds for the whole run")
    ap.add_argument("--only", default=None, help="substring of the program names to run")
    ap.add_argument("--list", action="store_true", help="print the programs and exit")
    a = ap.parse_args()
    progs = programs()
    if a.only:
        progs = [p for p in progs if a.only in p["name"]]
    if a.list:
        for p in progs:
            print(p["file"])
        return 0
    deadline = RM.T0 + a.deadline
    os.makedirs(a.out, exist_ok=True)
    ncu = RM.tool("ncu")
    vers = {}
    for t in ("nvcc", "ncu"):
        p = RM.tool(t)
        vers[t] = RM.run([p, "--version"], 60)[1].strip().splitlines()[-2:] if p else None
    _, smi, _ = RM.run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"], 60)
    raw = {"device": smi.strip(), "tools": vers, "host": platform.node(), "metrics": RM.METRICS, "programs": {}}
    RC = _collector()
    rawp = os.path.join(a.out, "polybench-raw.json")
    outp = os.path.join(a.out, "polybench-measured.json")

    def save():
        with open(rawp, "w") as f:
            json.dump(raw, f)
        try:
            doc = RC.collect(raw, os.path.join(ROOT, "tests", "realcode"))
        except Exception as e:  # keep the raw pages whatever the collection makes of them
            RM.log(f"collection failed: {e!r}")
            return
        for k in doc["kernels"]:
            k["lines"] = lines_of(k)
        doc["sizes"] = "PolyBench-ACC STANDARD_DATASET (see each file's first comment)"
        with open(outp, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")

    import concurrent.futures
    build = tempfile.mkdtemp(prefix="polybench_")
    RM.log(f"{len(progs)} programs; device {raw['device']}; compiling")
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as ex:
        comp = dict(zip([p["name"] for p in progs], ex.map(lambda p: RM.compile_one(p, build), progs)))
    for p in progs:
        raw["programs"][p["name"]] = {k: v for k, v in p.items() if k != "path"}
        raw["programs"][p["name"]]["compile"] = comp[p["name"]]
        if comp[p["name"]]["rc"] != 0:
            RM.log(f"compile FAILED {p['name']}: {comp[p['name']]['ptxas'][-300:]}")
    save()
    if ncu is None:
        RM.log("no ncu: counters not read")
        return 0
    for p in progs:
        exe = comp[p["name"]]["exe"]
        if not exe:
            continue
        t = time.time()
        raw["programs"][p["name"]]["ncu"] = RM.profile(p, exe, ncu, build, deadline)
        e = raw["programs"][p["name"]]["ncu"].get("error")
        RM.log(f"{p['name']}: {'ok' if not e else e} ({time.time() - t:.1f}s)")
        save()
    RM.log(f"done: {outp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
