#!/usr/bin/env python3
"""Turn the device measurements of the SGEMM set into ``tests/data/sgemm-measured.json``.

    python3 bench/sgemm_collect.py DIR > tests/data/sgemm-measured.json

``DIR`` holds what ``bench/realcode_measure.py --src DIR_WITH(sgemm_tiles.cu)`` wrote
(``realcode-raw.json``: the distilled kernels of ``tests/realcode/sgemm_tiles.cu``, nvcc -O3
-arch=sm_90 -lineinfo, Nsight Compute SourceCounters) and, for the original program
(siboehm/SGEMM_CUDA at M = N = K = 4096, its own ``sgemm`` binary), ``raw_K.csv`` (``ncu --page
raw``), ``src_K.csv`` (``--page source --print-source sass``), ``sass_*.txt`` (``nvdisasm -g``),
``native_K.txt`` (the program's own timing) and ``ptxas.txt``. Per SASS memory instruction the
source line comes from the ``//## File ..., line N`` markers of nvdisasm; shared instructions
keep their wavefronts and Nsight's ideal wavefronts, global ones their sectors. Standard library
only."""
from __future__ import annotations

import collections
import csv
import glob
import io
import json
import os
import re
import sys

FUNC_RE = re.compile(r"^//-+ \.text\.(\S+) -+")
FILE_RE = re.compile(r'//## File "([^"]+)", line (\d+)')
INST_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def sass_lines(text: str) -> dict:
    out = collections.defaultdict(list)
    fn, cur = None, (None, None)
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            fn, cur = m.group(1), (None, None)
            continue
        m = FILE_RE.search(line)
        if m:
            cur = (m.group(1), int(m.group(2)))
            continue
        m = INST_RE.search(line)
        if m and fn:
            out[fn].append((int(m.group(1), 16), cur[0], cur[1], m.group(2).strip()))
    return out


def source_pages(text: str) -> list:
    rows = list(csv.reader(io.StringIO(text)))
    pages, i = [], 0
    while i < len(rows):
        if rows[i] and rows[i][0] == "Kernel Name":
            name, hdr, body = rows[i][1], rows[i + 1], []
            i += 2
            while i < len(rows) and rows[i] and rows[i][0] != "Kernel Name":
                body.append(dict(zip(hdr, rows[i])))
                i += 1
            pages.append((name, body))
        else:
            i += 1
    return pages


def num(x):
    try:
        return float(str(x).replace(",", ""))
    except ValueError:
        return None


def match_function(body: list, sass: dict, short: str):
    """The nvdisasm function whose instructions are the page's (fewest opcode mismatches)."""
    best = None
    base = int(body[0]["Address"], 16)
    for m, ins in sass.items():
        if len(ins) != len(body) or short not in m:
            continue
        ops = {o: t.split(" ")[0] for o, _, _, t in ins}
        bad = sum(1 for r in body if ops.get(int(r["Address"], 16) - base) != r["Source"].strip().split(" ")[0])
        if best is None or bad < best[0]:
            best = (bad, m)
    return best[1] if best and best[0] == 0 else None


def accesses(body: list, ins: list) -> list:
    base = int(body[0]["Address"], 16)
    where = {o: (f, ln) for o, f, ln, _ in ins}
    out = []
    for r in body:
        space = r.get("Address Space", "")
        ex = num(r.get("Instructions Executed"))
        if space not in ("Shared", "Global", "Local") or not ex:
            continue
        f, ln = where.get(int(r["Address"], 16) - base, (None, None))
        a = {"file": os.path.basename(f) if f else None, "line": ln, "sass": r["Source"].strip(),
             "space": space.lower(), "op": r.get("Access Operation", "").lower(),
             "bits": int(num(r.get("Access Size")) or 0), "executed": int(ex)}
        if space == "Shared":
            a["wavefronts_per_request"] = round(num(r["L1 Wavefronts Shared"]) / ex, 4)
            a["ideal_wavefronts_per_request"] = round(num(r["L1 Wavefronts Shared Ideal"]) / ex, 4)
        else:
            a["sectors_per_request"] = round(num(r["L2 Theoretical Sectors Global"]) / ex, 4)
            a["ideal_sectors_per_request"] = round(num(r["L2 Theoretical Sectors Global Ideal"]) / ex, 4)
        out.append(a)
    return out


def kernel_counters(row: dict) -> dict:
    n = lambda k: num(row.get(k, ""))  # noqa: E731
    def ratio(a, b):
        x, y = n(a), n(b)
        if y is None and "sass_inst" in b:
            y = n(b.replace("sass_inst", "inst"))
        return round(x / y, 4) if x is not None and y else None
    return {
        "registers_per_thread": int(n("launch__registers_per_thread")),
        "duration_us": round(n("gpu__time_duration.sum") / 1000, 3),
        "shared_ld_bank_conflicts": n("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        "shared_st_bank_conflicts": n("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
        "shared_ld_wavefronts_per_request": ratio("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                                  "smsp__sass_inst_executed_op_shared_ld.sum"),
        "shared_st_wavefronts_per_request": ratio("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                                  "smsp__sass_inst_executed_op_shared_st.sum"),
        "global_ld_sectors_per_request": ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                               "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
        "global_st_sectors_per_request": ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                               "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    }


def raw_rows(text: str) -> list:
    r = list(csv.reader(io.StringIO(text)))
    return [dict(zip(r[0], row)) for row in r[2:] if row]


def main() -> int:
    d = sys.argv[1]
    raw = json.load(open(os.path.join(d, "realcode-raw.json")))
    prog = raw["programs"]["sgemm_tiles"]
    sass = sass_lines(prog["compile"]["sass"])
    pages = dict(source_pages(prog["ncu"]["source_csv"]))
    kernels = []
    for row in raw_rows(prog["ncu"]["raw_csv"]):
        name = row["Kernel Name"]
        short = re.match(r"void (\w+)<", name).group(1)
        page = next(b for k, b in pages.items() if re.match(r"void " + short + "<", k))
        fn = match_function(page, sass, short)
        kernels.append({
            "file": "tests/realcode/sgemm_tiles.cu",
            "kernel": re.match(r"void (\w+<[^>]*>)", name).group(1),
            "function": short, "mangled": fn,
            "launch": {"block": json.loads(row["Block Size"].replace("(", "[").replace(")", "]")),
                       "grid": json.loads(row["Grid Size"].replace("(", "[").replace(")", "]"))},
            "measured": kernel_counters(row),
            "accesses": accesses(page, sass[fn]) if fn else [],
        })
    orig = {}
    osass = {}
    for f in glob.glob(os.path.join(d, "sass_*.txt")):
        osass.update(sass_lines(open(f).read()))
    for f in sorted(glob.glob(os.path.join(d, "raw_*.csv")), key=lambda p: int(re.findall(r"\d+", p)[-1])):
        k = int(re.findall(r"\d+", f)[-1])
        rows = raw_rows(open(f).read())
        if not rows:
            continue
        name = rows[0]["Kernel Name"]
        short = re.match(r"void (\w+)<?", name).group(1)
        native = open(os.path.join(d, f"native_{k}.txt")).read()
        gf = re.search(r"performance: \(\s*([\d.]+)\)", native)
        entry = {"kernel": re.sub(r"\(int\)|\(unsigned int\)", "", re.match(r"void ([^(]+)", name).group(1)).strip(),
                 "measured": kernel_counters(rows[0]),
                 "native_gflops_4096": float(gf.group(1)) if gf else None}
        srcf = os.path.join(d, f"src_{k}.csv")
        if os.path.exists(srcf):
            for pname, body in source_pages(open(srcf).read()):
                fn = match_function(body, osass, short)
                if fn:
                    entry["accesses"] = [a for a in accesses(body, osass[fn]) if a["space"] == "shared"]
        orig[str(k)] = entry
    for k in ("1", "2"):
        p = os.path.join(d, f"native_{k}.txt")
        if os.path.exists(p) and k not in orig:
            gf = re.search(r"performance: \(\s*([\d.]+)\)", open(p).read())
            orig[k] = {"native_gflops_4096": float(gf.group(1)) if gf else None}
    doc = {
        "device": raw["device"], "tools": raw["tools"],
        "build": "nvcc -O3 -arch=sm_90 -lineinfo (whole program)",
        "profiler": "ncu --clock-control none --cache-control all --section SourceCounters, first launch of each kernel",
        "kernels": kernels,
        "original": {
            "source": "siboehm/SGEMM_CUDA sgemm.cu + src/runner.cu (kernels 1-12), M = N = K = 4096, alpha 0.5, beta 3",
            "kernels": orig,
        },
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
