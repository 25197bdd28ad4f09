#!/usr/bin/env python3
"""Turn ``bench/realcode_measure.py``'s raw output into ``tests/data/realcode-measured.json``.

    python3 bench/realcode_collect.py RAW.json [-o tests/data/realcode-measured.json]

Per kernel of the distilled programs (``tests/realcode/*.cu``):

- ``launch``: block, grid and dynamic shared memory as Nsight Compute saw them;
- ``params``: the scalar values named in the file's ``// realcode-param: KERNEL NAME=VALUE`` lines
  (the launch's step variables);
- ``measured``: the kernel-level figures ``cudalint validate --ncu`` derives
  (``commands/validate_ncu.derive_metrics``), plus ptxas' register count of the nvcc build;
- ``accesses``: one row per SASS global/shared/local memory instruction with its source line
  (``nvdisasm -g``), the warp-level executions, and per request: L2 theoretical sectors for
  global (= distinct 32-byte sectors the warp touched), ncu's n-way figure for shared;
- ``original``: the kernel-level figures of the public original it was distilled from, when that
  program was measured too (``orig_*`` programs of the manifest).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from cudalint.commands.validate_ncu import derive_metrics  # noqa: E402
from cudalint.commands.validate_sass import (base_name, instructions, match_function,  # noqa: E402
                                             parse_nvdisasm, parse_source_page)

# distilled program -> measured original program
ORIGINALS = {"pb_correlation": "orig_pb_corr", "pb_covariance": "orig_pb_covar", "pb_gramschmidt": "orig_pb_gramschm",
             "cs_transpose": "orig_cs_transpose", "cs_matrixmul": "orig_cs_matrixmul",
             "hb_stencil1d": "orig_hb_stencil1d", "rod_backprop": "orig_rod_backprop"}


def _num(s):
    try:
        v = float(str(s).replace(",", ""))
    except ValueError:
        return None
    return int(v) if v.is_integer() else v


def raw_rows(text: str) -> list[dict]:
    """Every kernel row of ``--page raw --csv`` (the first line is the header, the second units)."""
    lines = [ln for ln in (text or "").splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if not rows:
        return []
    hdr = rows[0]
    return [dict(zip(hdr, r)) for r in rows[1:] if r and re.fullmatch(r"\d+", r[0].strip())]


def ptxas_registers(text: str) -> dict:
    out, cur = {}, None
    for ln in text.splitlines():
        m = re.search(r"Function properties for (\S+)", ln)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", ln)
        if m and cur:
            out[cur] = int(m.group(1))
    return out


def params_of(path: str) -> dict:
    out: dict = {}
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return out
    for m in re.finditer(r"//\s*realcode-param:\s*(\S+)\s+(.*)", text):
        for kv in m.group(2).split():
            k, _, v = kv.partition("=")
            out.setdefault(m.group(1), {})[k] = int(v)
    return out


def kernel_rows(prog: dict) -> dict:
    """{kernel base name: measured figures} of one program's raw page."""
    out = {}
    for row in raw_rows((prog.get("ncu") or {}).get("raw_csv", "")):
        name = base_name(row.get("Kernel Name", ""))
        if name in out:
            continue
        vals, units = {}, {}
        for k, v in row.items():
            n = _num(v)
            vals[k] = n if n is not None else v
        d = derive_metrics(vals, units)
        launch = {"block": [int(x) for x in re.findall(r"\d+", row.get("Block Size", ""))],
                  "grid": [int(x) for x in re.findall(r"\d+", row.get("Grid Size", ""))],
                  "dynamic_smem": _num(row.get("launch__shared_mem_per_block_dynamic")) or 0}
        keep = ("registers_per_thread", "theoretical_occupancy_pct", "blocks_per_sm", "occupancy_limiters",
                "global_ld_sectors_per_request", "global_st_sectors_per_request", "global_ld_requests",
                "global_st_requests", "shared_ld_wavefronts_per_request", "shared_st_wavefronts_per_request",
                "shared_ld_requests", "shared_st_requests", "local_ld_sectors_per_request",
                "local_st_sectors_per_request", "local_ld_requests", "local_st_requests", "duration_us")
        m = {k: (round(d[k], 4) if isinstance(d.get(k), float) else d.get(k)) for k in keep}
        m["static_smem_bytes"] = _num(row.get("launch__shared_mem_per_block_static"))
        out[name] = {"launch": launch, "measured": m}
    return out


def _plain_targs(name: str) -> str:
    return re.sub(r"\((?:unsigned |signed )?(?:int|long|long long|short|char|bool)\)", "", name).replace(" ", "")


def collect(raw: dict, src: str) -> dict:
    """The measured document (``realcode-measured.json``'s form) of a raw run: every distilled
    program's kernels. A program's ``file`` (repository-relative) names its source; without
    one it is ``tests/realcode/NAME.cu`` under ``src``."""
    progs = raw["programs"]
    kernels = []
    for name, prog in sorted(progs.items()):
        if prog.get("kind") != "distilled":
            continue
        comp = prog.get("compile") or {}
        regs = ptxas_registers(comp.get("ptxas", ""))
        funcs = parse_nvdisasm(comp.get("sass", ""))
        secs = parse_source_page((prog.get("ncu") or {}).get("source_csv", ""))
        rel = prog.get("file") or f"tests/realcode/{name}.cu"
        path = os.path.join(src, name + ".cu") if not prog.get("file") else \
            os.path.join(HERE, "..", rel)
        params = params_of(path)
        orig = kernel_rows(progs.get(ORIGINALS.get(name, "orig_" + name), {}))
        # Nsight's source page spells template arguments with casts (`reduce<float, (int)256>`)
        secs = {_plain_targs(k): v for k, v in secs.items()}
        for kname, info in kernel_rows(prog).items():
            rows = secs.get(_plain_targs(kname), [])
            fn = match_function(rows, funcs) if rows else None
            m = info["measured"]
            m["ptxas_registers"] = regs.get(fn) if fn else None
            entry = {"file": rel, "kernel": kname, "function": kname.split("<")[0],
                     "mangled": fn, "launch": info["launch"], "params": params.get(kname.split("<")[0], {}),
                     "measured": m, "accesses": instructions(rows, funcs.get(fn, {}))}
            o = orig.get(kname)
            if o is not None:
                entry["original"] = {"program": ORIGINALS.get(name, "orig_" + name), "launch": o["launch"],
                                     "measured": o["measured"]}
            kernels.append(entry)
    return {"device": raw.get("device"), "tools": raw.get("tools"),
            "build": "nvcc -O3 -arch=sm_90 -lineinfo (whole program: host code and kernels)",
            "profiler": "ncu --clock-control none --cache-control all --section SourceCounters, first launch of each kernel",
            "originals": {k: v.get("origin") for k, v in progs.items() if v.get("kind") == "original"},
            "kernels": kernels}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("-o", "--output", default=os.path.join(HERE, "..", "tests", "data", "realcode-measured.json"))
    ap.add_argument("--src", default=os.path.join(HERE, "..", "tests", "realcode"))
    a = ap.parse_args()
    raw = json.load(open(a.raw))
    doc = collect(raw, a.src)
    kernels = doc["kernels"]
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    with open(a.output, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(kernels)} kernels -> {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
