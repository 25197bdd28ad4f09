#!/usr/bin/env python3
"""Run ``cudalint validate --ncu`` on the real-code set (needs CuPy, ncu and a GPU).

    python3 bench/realcode_validate.py [--only SUBSTR ...] [--out DIR] [--deadline SECONDS]

For each kernel of ``tests/data/realcode-measured.json``: the launch that was measured
(``--block``/``--grid``), the step variables of its ``// realcode-param:`` line, and each scalar
parameter named after a macro of the file (``ni`` for ``#define NI 1024``, as PolyBench's hosts
pass ``int ni = NI``) as ``--param``. Each report (JSON) goes to ``OUT/validate-<file>-<kernel>.json``
and one line per kernel to ``OUT/validate-summary.jsonl``: kernel-level rows (validate's NVRTC
build) and per-access rows (source line, predicted and measured).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def params_for(entry: dict) -> dict:
    text = open(os.path.join(ROOT, entry["file"]), encoding="utf-8").read()
    macros = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define\s+(\w+)\s+(\d+)\b", text)}
    sig = re.search(r"__global__\s+void\s+" + re.escape(entry["function"]) + r"\s*\(([^)]*)\)", text)
    out = {}
    for p in (sig.group(1).split(",") if sig else []):
        name = p.strip().split()[-1].lstrip("*") if p.strip() else ""
        if name.upper() in macros and "*" not in p:
            out[name] = macros[name.upper()]
    out.update(entry.get("params") or {})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--deadline", type=float, default=300.0)
    a = ap.parse_args()
    t0 = time.time()
    data = json.load(open(os.path.join(ROOT, "tests", "data", "realcode-measured.json")))
    os.makedirs(a.out, exist_ok=True)
    summary = open(os.path.join(a.out, "validate-summary.jsonl"), "a")
    for e in data["kernels"]:
        kid = f"{os.path.splitext(os.path.basename(e['file']))[0]}:{e['kernel']}"
        if a.only and not any(s in kid for s in a.only):
            continue
        left = a.deadline - (time.time() - t0)
        if left < 25:
            print(f"{kid}: skipped (time)", flush=True)
            continue
        args = [sys.executable, "-m", "cudalint.cli", "validate", os.path.join(ROOT, e["file"]), "--kernel",
                e["kernel"], "--block", ",".join(map(str, e["launch"]["block"])),
                "--grid", ",".join(map(str, e["launch"]["grid"])), "--ncu", "--repeat", "3",
                "--output-format", "json", "--timeout", "60"]
        for k, v in params_for(e).items():
            args += ["--param", f"{k}={v}"]
        dst = os.path.join(a.out, "validate-" + kid.replace(":", "-").replace("<", "_").replace(">", "") + ".json")
        t = time.time()
        try:
            p = subprocess.run(args + ["--output-file", dst], capture_output=True, text=True, timeout=left)
        except subprocess.TimeoutExpired:
            print(f"{kid}: timeout", flush=True)
            continue
        doc = None
        if os.path.exists(dst):
            try:
                doc = json.load(open(dst))
            except ValueError:
                doc = None
        line = {"kernel": kid, "rc": p.returncode, "seconds": round(time.time() - t, 1),
                "stderr": p.stderr[-800:] if doc is None else ""}
        if doc:
            line.update(rows=doc.get("rows"), accesses=doc.get("accesses"), accesses_note=doc.get("accesses_note"),
                        run=doc.get("run"), arguments=[{k: x.get(k) for k in ("name", "kind", "elements", "value")}
                                                       for x in doc.get("arguments") or []])
        summary.write(json.dumps(line) + "\n")
        summary.flush()
        acc = doc.get("accesses") if doc else None
        print(f"{kid}: rc={p.returncode} {line['seconds']}s accesses={len(acc) if acc else acc} "
              f"{(doc or {}).get('accesses_note') or ''}{line['stderr'][-200:]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
