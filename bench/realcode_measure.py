#!/usr/bin/env python3
"""Measure the real-code validation set on a GPU (standard library only).

    python3 bench/realcode_measure.py [--src tests/realcode] [--manifest originals.json]
                                      [--out DIR] [--deadline SECONDS]

For every ``tests/realcode/*.cu`` (each a whole program that launches each of its kernels once)
and every program of an optional manifest (``[{"name", "cwd", "compile": [argv], "run": [argv],
"kernels": N}]``, e.g. the public originals the kernels were distilled from):

1. compile with ``nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v`` (in parallel) and keep ptxas'
   report (registers, spills, shared memory per kernel);
2. disassemble with ``nvdisasm -g`` (each SASS instruction's address and source line);
3. profile under Nsight Compute: the kernel-level counters ``cudalint validate --ncu`` reads
   (``commands/validate_ncu.py``) and, for the distilled programs, the ``SourceCounters``
   section, exported as the raw page (one row per kernel) and the source page
   (``--print-source sass``: one row per SASS instruction with its executed count, L2
   theoretical sectors and shared wavefronts).

Everything goes to ``OUT/realcode-raw.json`` (rewritten after each program, so a run cut short
keeps what it measured); ``tests/realcode_data.py`` turns it into the committed
``tests/data/realcode-measured.json``.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

T0 = time.time()
METRICS = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
    "launch__registers_per_thread", "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks", "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic", "launch__block_size", "launch__grid_size",
    "sm__maximum_warps_per_active_cycle_pct", "gpu__time_duration.sum",
]


def log(msg: str) -> None:
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def run(cmd, timeout, cwd=None):
    """(rc, stdout, stderr); the whole process group is killed at the timeout (rc 124)."""
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return 127, "", f"cannot run {cmd[0]}: {e}"
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        return 124, out.decode("utf-8", "replace"), err.decode("utf-8", "replace") + f"\nTIMEOUT after {timeout}s"


def tool(name: str):
    p = shutil.which(name)
    if p:
        return p
    c = sorted(glob.glob(f"/usr/local/cuda*/bin/{name}") + glob.glob(f"/opt/nvidia/nsight-compute/*/{name}"))
    return c[-1] if c else None


def compile_one(prog: dict, build: str) -> dict:
    exe = os.path.join(build, prog["name"])
    cmd = prog.get("compile") or ["nvcc", "-O3", "-arch=sm_90", "-lineinfo", "-Xptxas", "-v", "-o", exe, prog["path"]]
    cmd = [exe if a == "{exe}" else a for a in cmd]
    rc, out, err = run(cmd, 300, cwd=prog.get("cwd"))
    res = {"rc": rc, "command": " ".join(cmd), "ptxas": (out + err)[-20000:], "exe": exe if rc == 0 else None}
    if rc == 0:
        d = tempfile.mkdtemp(dir=build)
        run([tool("cuobjdump") or "cuobjdump", "-xelf", "all", exe], 120, cwd=d)
        texts = []
        for cub in sorted(glob.glob(os.path.join(d, "*.cubin"))):
            rc2, o2, e2 = run([tool("nvdisasm") or "nvdisasm", "-g", "-c", cub], 120)
            texts.append(o2 if rc2 == 0 else f"// nvdisasm failed: {e2[-500:]}")
        res["sass"] = "\n".join(texts)
    return res


def profile(prog: dict, exe: str, ncu: str, work: str, deadline: float) -> dict:
    rep = os.path.join(work, prog["name"])
    n = int(prog.get("kernels", 64))
    base = [ncu, "--clock-control", "none", "--cache-control", "all", "--metrics", ",".join(METRICS), "-f", "-o", rep]
    if prog.get("source_counters", True):
        base += ["--section", "SourceCounters"]
    attempts = []
    if prog.get("first_of_each"):
        attempts.append(base + ["--kernel-id", "::regex:.*:1", "-c", str(n), "--kill", "on"])
        attempts.append(base + ["-c", str(n), "--kill", "on"])
    else:
        attempts.append(base + ["-c", str(n)])
    res: dict = {"tries": []}
    for cmd in attempts:
        left = deadline - time.time()
        if left < 20:
            res["error"] = "skipped: time budget"
            return res
        full = cmd + [exe] + list(prog.get("args", []))
        rc, out, err = run(full, min(prog.get("timeout", 150), left), cwd=prog.get("cwd"))
        res["tries"].append({"command": " ".join(full), "rc": rc, "tail": (out + err)[-3000:]})
        if os.path.exists(rep + ".ncu-rep"):
            break
    if not os.path.exists(rep + ".ncu-rep"):
        res["error"] = "no report"
        return res
    rc, out, err = run([ncu, "-i", rep + ".ncu-rep", "--page", "raw", "--csv", "--print-units", "base"], 120)
    res["raw_csv"] = out if rc == 0 else ""
    res["raw_err"] = err[-2000:]
    if prog.get("source_counters", True):
        rc, out, err = run([ncu, "-i", rep + ".ncu-rep", "--page", "source", "--csv", "--print-source", "sass",
                            "--print-units", "base"], 180)
        res["source_csv"] = out if rc == 0 else ""
        res["source_err"] = err[-2000:] + ("" if rc == 0 else out[-2000:])
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "realcode"))
    ap.add_argument("--manifest", default=None)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--deadline", type=float, default=540.0)
    ap.add_argument("--only", default=None, help="substring of the program names to run")
    a = ap.parse_args()
    deadline = T0 + a.deadline
    os.makedirs(a.out, exist_ok=True)
    progs = [{"name": os.path.splitext(os.path.basename(p))[0], "path": os.path.abspath(p), "kind": "distilled",
              "file": os.path.relpath(p, os.path.join(a.src, "..", "..")).replace(os.sep, "/")}
             for p in sorted(glob.glob(os.path.join(a.src, "*.cu")))]
    if a.manifest:
        with open(a.manifest) as f:
            for m in json.load(f):
                m.setdefault("kind", "original")
                m.setdefault("first_of_each", True)
                m.setdefault("source_counters", False)
                if m.get("cwd"):
                    m["cwd"] = os.path.join(os.path.dirname(os.path.abspath(a.manifest)), m["cwd"])
                progs.append(m)
    if a.only:
        progs = [p for p in progs if a.only in p["name"]]
    ncu = tool("ncu")
    vers = {}
    for t in ("nvcc", "ncu"):
        p = tool(t)
        vers[t] = run([p, "--version"], 60)[1].strip().splitlines()[-2:] if p else None
    rc, smi, _ = run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"], 60)
    doc = {"device": smi.strip(), "tools": vers, "host": platform.node(), "metrics": METRICS, "programs": {}}
    outp = os.path.join(a.out, "realcode-raw.json")

    def save():
        with open(outp, "w") as f:
            json.dump(doc, f)

    build = tempfile.mkdtemp(prefix="realcode_")
    log(f"{len(progs)} programs; device {doc['device']}; compiling")
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as ex:
        comp = dict(zip([p["name"] for p in progs], ex.map(lambda p: compile_one(p, build), progs)))
    for p in progs:
        doc["programs"][p["name"]] = {k: v for k, v in p.items() if k not in ("compile",)}
        doc["programs"][p["name"]]["compile"] = comp[p["name"]]
        if comp[p["name"]]["rc"] != 0:
            log(f"compile FAILED {p['name']}: {comp[p['name']]['ptxas'][-300:]}")
    save()
    if ncu is None:
        log("no ncu: counters not read")
        return 0
    for p in progs:
        exe = comp[p["name"]]["exe"]
        if not exe:
            continue
        t = time.time()
        doc["programs"][p["name"]]["ncu"] = profile(p, exe, ncu, build, deadline)
        e = doc["programs"][p["name"]]["ncu"].get("error")
        log(f"{p['name']}: {'ok' if not e else e} ({time.time() - t:.1f}s)")
        save()
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
