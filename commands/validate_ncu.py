"""Nsight Compute for ``cudalint validate --ncu``: the command line, the CSV, the derived figures.

The kernel is profiled in the same child program that times it (``validate_runner.py`` in
``profile`` mode: one launch), with the counters the ground truth was measured with
(``shared/groundtruth/README.md``):

- global sectors per request: ``l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum`` /
  ``l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum``;
- shared wavefronts per request: ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum`` /
  ``smsp__inst_executed_op_shared_{ld,st}.sum``;
- local sectors per request: the ``..._mem_local_op_...`` pair;
- theoretical occupancy: ``sm__maximum_warps_per_active_cycle_pct``; registers:
  ``launch__registers_per_thread``; duration: ``gpu__time_duration.sum``.

Parsing and deriving are pure functions (unit-tested with a synthetic CSV); running needs ncu.
"""
from __future__ import annotations

import csv
import glob
import io
import os
import re
import shutil
import signal
import subprocess
import time
from typing import Optional

__all__ = ["METRICS", "find_ncu", "ncu_command", "parse_ncu_csv", "derive_metrics", "run_ncu",
           "kernel_filter", "find_tool", "source_counters_command", "run_source_counters"]

# (metric, fallbacks tried when this ncu does not know the name)
METRICS: list[tuple[str, tuple[str, ...]]] = [
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", ()),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", ()),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", ()),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", ()),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", ()),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", ()),
    ("smsp__inst_executed_op_shared_ld.sum", ("smsp__sass_inst_executed_op_shared_ld.sum",)),
    ("smsp__inst_executed_op_shared_st.sum", ("smsp__sass_inst_executed_op_shared_st.sum",)),
    ("l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", ()),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", ()),
    ("l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", ()),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", ()),
    ("launch__registers_per_thread", ()),
    ("launch__occupancy_limit_registers", ()),
    ("launch__occupancy_limit_shared_mem", ()),
    ("launch__occupancy_limit_warps", ()),
    ("launch__occupancy_limit_blocks", ()),
    ("sm__maximum_warps_per_active_cycle_pct", ("sm__maxwarps_per_active_cycle_pct",)),
    ("gpu__time_duration.sum", ()),
]


def find_ncu() -> Optional[str]:
    """The ``ncu`` executable: $NCU, PATH, then the usual install locations."""
    env = os.environ.get("NCU")
    if env and os.access(env, os.X_OK):
        return env
    p = shutil.which("ncu")
    if p:
        return p
    cands: list[str] = []
    for g in ("/usr/local/cuda/bin/ncu", "/usr/local/cuda-*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu",
              "/usr/local/cuda*/nsight-compute*/ncu"):
        cands += [c for c in glob.glob(g) if os.access(c, os.X_OK)]
    return sorted(cands)[-1] if cands else None


def kernel_filter(plain_name: str) -> str:
    """ncu's ``-k`` for one kernel: its name alone or followed by template arguments."""
    return "regex:^" + re.escape(plain_name) + r"($|<|\()"


def ncu_command(ncu: str, metrics: list[str], plain_name: str, program: list[str], log_file: str) -> list[str]:
    return [ncu, "--clock-control", "none", "--cache-control", "all", "--metrics", ",".join(metrics),
            "--csv", "--page", "raw", "--print-units", "base", "-k", kernel_filter(plain_name), "-c", "1",
            "--log-file", log_file] + list(program)


def _number(s):
    if s is None:
        return None
    if isinstance(s, (int, float)):
        return s
    t = str(s).strip().replace(",", "")
    if t in ("", "n/a", "N/A", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return int(v) if v.is_integer() and re.fullmatch(r"-?\d+", t) else v


def parse_ncu_csv(text: str) -> tuple[dict, dict]:
    """``ncu --csv --page raw`` output -> ({metric: value}, {metric: unit}) of the first kernel
    row; also accepts the details page's long format. Empty dicts when there is no row."""
    lines = [ln for ln in (text or "").splitlines() if ln.startswith('"')]
    if not lines:
        return {}, {}
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    values: dict = {}
    units: dict = {}
    if "Metric Name" in header and "Metric Value" in header:
        iname, ival = header.index("Metric Name"), header.index("Metric Value")
        iunit = header.index("Metric Unit") if "Metric Unit" in header else None
        for r in rows[1:]:
            if len(r) > max(iname, ival):
                v = _number(r[ival])
                values[r[iname]] = v if v is not None else r[ival]
                if iunit is not None and len(r) > iunit:
                    units[r[iname]] = r[iunit]
        return values, units
    unit_row, data = None, None
    for r in rows[1:]:
        if r and re.fullmatch(r"\d+", r[0].strip()):
            data = r
            break
        unit_row = r
    if data is None:
        return {}, {}
    for i, h in enumerate(header):
        if i < len(data):
            v = _number(data[i])
            values[h] = v if v is not None else data[i]
        if unit_row is not None and i < len(unit_row):
            units[h] = unit_row[i]
    return values, units


def _ratio(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
        return None
    return a / b


def derive_metrics(values: dict, units: Optional[dict] = None) -> dict:
    """The per-request figures and occupancy from raw counter values."""
    def g(*names):
        for n in names:
            v = values.get(n)
            if isinstance(v, (int, float)):
                return v
        return None

    d: dict = {}
    for kind in ("ld", "st"):
        req = g(f"l1tex__t_requests_pipe_lsu_mem_global_op_{kind}.sum")
        sec = g(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{kind}.sum")
        d[f"global_{kind}_requests"] = req
        d[f"global_{kind}_sectors_per_request"] = _ratio(sec, req)
        wf = g(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum")
        ins = g(f"smsp__inst_executed_op_shared_{kind}.sum", f"smsp__sass_inst_executed_op_shared_{kind}.sum")
        d[f"shared_{kind}_requests"] = ins
        d[f"shared_{kind}_wavefronts_per_request"] = _ratio(wf, ins)
        lreq = g(f"l1tex__t_requests_pipe_lsu_mem_local_op_{kind}.sum")
        lsec = g(f"l1tex__t_sectors_pipe_lsu_mem_local_op_{kind}.sum")
        d[f"local_{kind}_requests"] = lreq
        d[f"local_{kind}_sectors_per_request"] = _ratio(lsec, lreq)
    d["registers_per_thread"] = g("launch__registers_per_thread")
    d["theoretical_occupancy_pct"] = g("sm__maximum_warps_per_active_cycle_pct", "sm__maxwarps_per_active_cycle_pct")
    lims = {n: g("launch__occupancy_limit_" + n) for n in ("registers", "shared_mem", "warps", "blocks")}
    finite = {n: v for n, v in lims.items() if v is not None}
    if finite:
        m = min(finite.values())
        d["blocks_per_sm"] = m
        d["occupancy_limiters"] = sorted(n for n, v in finite.items() if v == m)
    t = g("gpu__time_duration.sum")
    unit = ((units or {}).get("gpu__time_duration.sum") or "nsecond").strip()
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
             "second": 1e6, "s": 1e6}.get(unit, 1e-3)
    d["duration_us"] = None if t is None else t * scale
    return d


def _run(cmd: list[str], timeout: float) -> tuple[int, str, str, float]:
    t0 = time.time()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return 127, "", f"cannot run {cmd[0]}: {e}", 0.0
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.time() - t0
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        return 124, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.time() - t0


def run_ncu(ncu: str, plain_name: str, program: list[str], workdir: str, timeout: float = 300.0) -> dict:
    """Profile ``program`` (which launches the kernel once) and return
    ``{"ok", "metrics", "units", "derived", "error", "seconds", "command"}``. A metric this ncu
    rejects is replaced by its fallback or dropped, and the run tried again (twice at most)."""
    wanted = [m for m, _ in METRICS]
    alts = {m: list(a) for m, a in METRICS}
    dropped: list[str] = []
    last: dict = {}
    deadline = time.time() + timeout
    for attempt in range(3):
        log_file = os.path.join(workdir, f"ncu_{attempt}.csv")
        cmd = ncu_command(ncu, wanted, plain_name, program, log_file)
        rc, out, err, secs = _run(cmd, max(10.0, deadline - time.time()))
        text = ""
        if os.path.exists(log_file):
            with open(log_file, encoding="utf-8", errors="replace") as f:
                text = f.read()
        vals, units = parse_ncu_csv(text)
        if not vals:
            vals, units = parse_ncu_csv(out)
        errors = [ln for ln in (text + "\n" + out + "\n" + err).splitlines() if "==ERROR==" in ln]
        last = {"ok": rc == 0 and bool(vals), "metrics": vals, "units": units, "seconds": round(secs, 2),
                "command": " ".join(cmd), "rc": rc, "dropped_metrics": list(dropped)}
        if last["ok"]:
            last["derived"] = derive_metrics(vals, units)
            return last
        if rc == 124:
            last["error"] = f"ncu timed out after {timeout:.0f} s"
            return last
        bad = [m for m in wanted if any(m.split(".")[0] in e for e in errors)]
        if not bad:
            tail = "\n".join((errors or (text + err + out).strip().splitlines())[-8:])
            if not vals and not errors and "No kernels were profiled" in (text + out + err):
                tail = f"ncu profiled no kernel matching {kernel_filter(plain_name)!r}"
            last["error"] = tail or f"ncu exited with {rc}"
            return last
        for b in bad:
            wanted.remove(b)
            rep = [a for a in alts.get(b, []) if a not in wanted]
            if rep:
                wanted.append(rep[0])
            dropped.append(b)
    last.setdefault("error", "ncu rejected the metric list")
    return last


def find_tool(name: str, near: Optional[str] = None) -> Optional[str]:
    """A CUDA tool (``nvdisasm``): PATH, next to ``near`` (ncu's or nvcc's folder), the usual
    toolkit locations."""
    p = shutil.which(name)
    if p:
        return p
    cands = []
    if near:
        cands.append(os.path.join(os.path.dirname(near), name))
    cands += sorted(glob.glob(f"/usr/local/cuda*/bin/{name}"))[::-1]
    return next((c for c in cands if os.access(c, os.X_OK)), None)


def source_counters_command(ncu: str, plain_name: str, program: list[str], report: str) -> list[str]:
    """Profile one launch with the SourceCounters section (per SASS instruction) into ``report``."""
    return [ncu, "--clock-control", "none", "--cache-control", "all", "--section", "SourceCounters",
            "-k", kernel_filter(plain_name), "-c", "1", "-f", "-o", report] + list(program)


def run_source_counters(ncu: str, plain_name: str, program: list[str], workdir: str,
                        timeout: float = 300.0) -> dict:
    """``{"ok", "csv", "error", "seconds"}``: the source page (``--print-source sass``) of one
    profiled launch as CSV text."""
    rep = os.path.join(workdir, "source")
    t0 = time.time()
    rc, out, err, _ = _run(source_counters_command(ncu, plain_name, program, rep), timeout)
    if not os.path.exists(rep + ".ncu-rep"):
        tail = "\n".join([ln for ln in (out + err).splitlines() if "ERROR" in ln][-4:]) or f"ncu exited with {rc}"
        return {"ok": False, "error": "no source-counter report: " + tail, "seconds": round(time.time() - t0, 2)}
    rc, out, err, _ = _run([ncu, "--import", rep + ".ncu-rep", "--page", "source", "--csv", "--print-source", "sass",
                            "--print-units", "base"], max(30.0, timeout / 2))
    ok = rc == 0 and '"Address"' in out
    return {"ok": ok, "csv": out if ok else "", "seconds": round(time.time() - t0, 2),
            "error": "" if ok else f"ncu could not export the source page: {(err or out).strip()[-400:]}"}
