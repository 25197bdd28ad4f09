"""Predicted vs measured for ``cudalint validate``: the rows, the tolerances, text and JSON.

Pure: the predictions come from a kernel's facts (``predictions(kf)``), the measurements from
the runner's and Nsight Compute's results (plain dicts), so every part is unit-tested with
synthetic numbers.

Tolerances (the coalescing issue's, and the ground truth's observations):

- global / local sectors per request: within 0.5 sectors;
- shared wavefronts per request: within 10 % of the measured value (the counter sits a few
  percent above the integer: 1.04 for a conflict-free access);
- registers: within max(2, 10 %) when ptxas gave the prediction, max(4, 25 %) for an estimate
  (NVRTC and nvcc run the same ptxas, but not always on the same PTX);
- local memory per thread and static shared memory: equal (25 % for an estimate);
- theoretical occupancy: within 2 percentage points;
- time: no prediction to compare with; the row shows the DRAM lower bound (bytes of the
  buffers / the device preset's bandwidth) for scale, never flagged.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["Row", "TOLERANCES", "predictions", "compare", "agree", "render_text", "render_json", "access_table",
           "weighted_mean", "REPORT_VERSION"]

REPORT_VERSION = 1

TOLERANCES = {
    "sectors_abs": 0.5,
    "wavefronts_rel": 0.10,
    "registers_ptxas": (2, 0.10),
    "registers_estimate": (4, 0.25),
    "occupancy_pts": 2.0,
    "bytes_estimate_rel": 0.25,
}


@dataclass
class Row:
    key: str
    label: str
    predicted: Any = None
    measured: Any = None
    tolerance: str = ""
    agree: Optional[bool] = None  # None: nothing to compare
    note: str = ""
    source: str = ""  # where the measurement comes from: runner | ncu

    def to_json(self) -> dict:
        return {"metric": self.key, "label": self.label, "predicted": _jnum(self.predicted),
                "measured": _jnum(self.measured), "tolerance": self.tolerance, "agree": self.agree,
                "note": self.note, "source": self.source}


def _jnum(v):
    if isinstance(v, float):
        if not math.isfinite(v):
            return None
        return round(v, 4)
    return v


# --------------------------------------------------------------------------- predictions


def weighted_mean(table, space: str, kind: str, field_name: str, env: Optional[dict] = None) -> Optional[float]:
    """Kernel-wide figure of one space/kind: the mean over its accesses weighted by how often
    each executes (the product of its enclosing loops' trip counts, when known; 1 otherwise),
    which is what a counter ratio such as sectors / requests measures."""
    from .validate_plan import interval

    num = den = 0.0
    for a in getattr(table, "accesses", []) or []:
        if a.space != space or a.kind != kind or a.atomic:
            continue
        v = getattr(a, field_name)
        if v is None:
            continue
        w = 1.0
        ev = a.event
        for li in (getattr(ev, "loops", ()) or ()):
            t = getattr(li, "trip", None)
            if t is None or env is None:
                continue
            r = interval(t, env)
            if r is not None and r[1] > 0:
                w *= float(r[1])
        num += w * float(v)
        den += w
    return num / den if den else None


def predictions(kf, params: Optional[dict] = None) -> dict:
    """What cudalint predicts for kernel facts ``kf`` (the numbers ``validate`` checks)."""
    out: dict = {}
    res = kf.resources
    if res is not None:
        out["registers"] = res.registers
        out["registers_source"] = res.registers_source
        out["local_bytes"] = res.local_bytes
        out["static_smem_bytes"] = res.static_smem_bytes
    occ = kf.occupancy
    if occ is not None and occ.result is not None:
        r = occ.result
        out["occupancy_pct"] = 100.0 * r.occupancy
        out["blocks_per_sm"] = r.active_blocks_per_sm
        out["occupancy_limiters"] = list(r.limiters)
    tab = kf.accesses
    env = None
    ev = getattr(tab, "evaluator", None)
    if ev is not None and kf.launch.grid is not None:
        from .validate_plan import symbol_ranges

        env, _ = symbol_ranges(ev.syms, ev.b, tuple(kf.launch.block), tuple(kf.launch.grid), params)
    pc = getattr(kf, "predicted_counters", None)
    for space, fld, key in (("global", "sectors_per_request", "global_{}_sectors_per_request"),
                            ("shared", "wavefronts_per_request", "shared_{}_wavefronts_per_request"),
                            ("local", "sectors_per_request", "local_{}_sectors_per_request")):
        for kind, k2 in (("load", "ld"), ("store", "st")):
            if pc is not None:  # the request model's figures: explain's predicted_counters
                out[key.format(k2)] = pc.get(key.format(k2))
            else:
                out[key.format(k2)] = weighted_mean(tab, space, kind, fld, env) if tab is not None else None
    return out


# --------------------------------------------------------------------------- comparison


def agree(key: str, predicted, measured, registers_source: str = "ptxas") -> tuple[Optional[bool], str]:
    """Whether a prediction matches a measurement, and the tolerance in words."""
    t = TOLERANCES
    if key.endswith("sectors_per_request"):
        tol = f"±{t['sectors_abs']:g} sectors"
        if predicted is None or measured is None:
            return None, tol
        return abs(predicted - measured) <= t["sectors_abs"] + 1e-9, tol
    if key.endswith("wavefronts_per_request"):
        tol = f"±{100 * t['wavefronts_rel']:.0f} %"
        if predicted is None or measured is None:
            return None, tol
        return abs(predicted - measured) <= t["wavefronts_rel"] * abs(measured) + 1e-9, tol
    estimate = registers_source != "ptxas"
    if key == "registers":
        a, r = t["registers_estimate" if estimate else "registers_ptxas"]
        tol = f"±max({a}, {100 * r:.0f} %)"
        if predicted is None or measured is None:
            return None, tol
        return abs(predicted - measured) <= max(a, r * measured) + 1e-9, tol
    if key in ("local_bytes", "static_smem_bytes"):
        if estimate and key == "local_bytes":
            tol = f"±{100 * t['bytes_estimate_rel']:.0f} %"
            if predicted is None or measured is None:
                return None, tol
            return abs(predicted - measured) <= t["bytes_estimate_rel"] * max(predicted, measured) + 1e-9, tol
        tol = "equal"
        if predicted is None or measured is None:
            return None, tol
        return int(predicted) == int(measured), tol
    if key.startswith("occupancy"):
        tol = f"±{t['occupancy_pts']:g} pts"
        if predicted is None or measured is None:
            return None, tol
        return abs(predicted - measured) <= t["occupancy_pts"] + 1e-9, tol
    return None, ""


_ACCESS_ROWS = [
    ("global_ld_sectors_per_request", "global load sectors/request", "global_ld_requests"),
    ("global_st_sectors_per_request", "global store sectors/request", "global_st_requests"),
    ("shared_ld_wavefronts_per_request", "shared load wavefronts/request", "shared_ld_requests"),
    ("shared_st_wavefronts_per_request", "shared store wavefronts/request", "shared_st_requests"),
    ("local_ld_sectors_per_request", "local load sectors/request", "local_ld_requests"),
    ("local_st_sectors_per_request", "local store sectors/request", "local_st_requests"),
]


def compare(pred: dict, run: Optional[dict], ncu: Optional[dict], time_lower_bound_us: Optional[float] = None) -> list[Row]:
    """The rows of the report. ``run`` is the runner's result, ``ncu`` the derived ncu figures
    (``validate_ncu.derive_metrics``) or None when ``--ncu`` was not asked for / failed."""
    rows: list[Row] = []
    run = run or {}
    attrs = run.get("attributes") or {}
    src = pred.get("registers_source") or "ptxas"
    meas_regs = attrs.get("num_regs")
    for key, label, m in (("registers", "registers / thread", meas_regs),
                          ("local_bytes", "local memory / thread (B)", attrs.get("local_size_bytes")),
                          ("static_smem_bytes", "static shared memory / block (B)", attrs.get("shared_size_bytes"))):
        p = pred.get(key)
        ok, tol = agree(key, p, m, src)
        note = ""
        if key == "registers" and p is not None:
            note = "ptxas" if src == "ptxas" else "estimated"
            if ok is False and src == "ptxas":
                note = (f"nvcc's ptxas allocates {p} for the file's build; the NVRTC build "
                        f"that ran uses {m}")
        rows.append(Row(key, label, p, m, tol, ok, note, "runner"))
    occ = run.get("occupancy") or {}
    p = pred.get("occupancy_pct")
    m = occ.get("occupancy_pct")
    ok, tol = agree("occupancy", p, m)
    note = ""
    if m is not None and occ.get("blocks_per_sm") is not None:
        note = f"{pred.get('blocks_per_sm', '?')} vs {occ['blocks_per_sm']} blocks/SM"
    rows.append(Row("occupancy_api", "theoretical occupancy % (CUDA API)", p, m, tol, ok, note, "runner"))
    if ncu is not None:
        m = ncu.get("theoretical_occupancy_pct")
        ok, tol = agree("occupancy", p, m)
        rows.append(Row("occupancy_ncu", "theoretical occupancy % (ncu)", p, m, tol, ok,
                        ", ".join(ncu.get("occupancy_limiters") or []), "ncu"))
    for key, label, req_key in _ACCESS_ROWS:
        p = pred.get(key)
        if ncu is None:
            if p is None:
                continue
            ok, tol = agree(key, p, None)
            rows.append(Row(key, label, p, None, tol, None, "measure with --ncu", "ncu"))
            continue
        m = ncu.get(key)
        reqs = ncu.get(req_key)
        if p is None and m is None:
            continue
        ok, tol = agree(key, p, m)
        note = ""
        if p is None and m is not None:
            ok, note = False, f"measured {_count(reqs)} requests, none predicted" if isinstance(reqs, (int, float)) else "none predicted"
        elif p is not None and m is None:
            ok, note = False, "predicted, but no requests measured"
        elif isinstance(reqs, (int, float)):
            note = f"{_count(reqs)} requests"
        rows.append(Row(key, label, p, m, tol, ok, note, "ncu"))
    tm = run.get("timing") or {}
    if tm.get("median_us") is not None or time_lower_bound_us is not None:
        note = ""
        if tm.get("median_warm_us") is not None:
            note = f"warm (L2 not flushed): {tm['median_warm_us']:.2f} µs"
        label = f"time µs (median of {tm.get('repeat', '?')}, L2 flushed)"
        rows.append(Row("time_us", label, time_lower_bound_us, tm.get("median_us"),
                        "lower bound (DRAM)" if time_lower_bound_us is not None else "", None, note, "runner"))
    return rows


def _count(n) -> str:
    return f"{int(round(n)):,}".replace(",", " ") if float(n).is_integer() or n >= 100 else f"{n:g}"


# --------------------------------------------------------------------------- rendering


def _fmt(v, key: str = "") -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if key == "time_us":
            return f"{v:.2f}"
        if key.endswith("_pct") or key.startswith("occupancy"):
            return f"{v:.1f}"
        r = round(v, 2)
        return str(int(r)) if r.is_integer() and abs(v - r) < 5e-3 else f"{v:.2f}"
    return str(v)


def _status(r: Row) -> str:
    if r.agree is None:
        return ""
    return "ok" if r.agree else "DIFF"


def table(rows: list[Row]) -> str:
    head = ("metric", "predicted", "measured", "tolerance", "", "note")
    body = []
    for r in rows:
        pred = _fmt(r.predicted, r.key)
        if r.key == "time_us" and r.predicted is not None:
            pred = "≥ " + pred
        body.append((r.label, pred, _fmt(r.measured, r.key), r.tolerance, _status(r), r.note))
    w = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(head)).rstrip(),
             "  ".join("-" * w[i] for i in range(len(head))).rstrip()]
    for b in body:
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(b)).rstrip())
    return "\n".join(lines)


def _arg_line(a: dict) -> str:
    if a["kind"] == "buffer":
        b = a.get("bytes", 0)
        size = f"{b / 2**20:.1f} MiB" if b >= 2**20 else f"{b} B"
        extra = f", values in [{a['int_range'][0]}, {a['int_range'][1]})" if a.get("int_range") else ""
        return f"{a['name']}: {a['type']} -> {a['elements']} elements ({size}, random {a['fill']}{extra}; size from {a['source']})"
    if a["kind"] == "struct":
        parts = [f"{f['name']} = " + (f"&{f['buffer']}" if "buffer" in f else
                                      "zeros" if f.get("zero") else str(f.get("value"))) for f in a.get("fields") or []]
        return f"{a['name']}: {a['type']} by value ({a.get('bytes')} B: {', '.join(parts)}; {a['source']})"
    return f"{a['name']}: {a['type']} = {a['value']} ({a['source']})"


def access_table(rows: list) -> str:
    """Per-access rows of ``validate --ncu`` (``validate_sass.compare_lines``) as text."""
    head = ("line", "space", "kind", "predicted", "measured", "tolerance", "", "note")
    body = []
    for r in rows:
        cols = r.get("columns") or []
        where = f"{r['line']}" + (f":{','.join(str(c) for c in cols)}" if cols else "")
        mark = "ok" if r["agree"] else ("DIFF" if r["agree"] is False else "")
        n = r.get("predicted_accesses") or 0
        note = r.get("note") or (f"{n} accesses, {r.get('instructions', 0)} instructions" if n > 1 or
                                 (r.get("instructions") or 0) > 1 else "")
        body.append((where, r["space"], r["kind"], _fmt(r["predicted"]), _fmt(r["measured"]), r.get("tolerance", ""),
                     mark, note))
    w = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    return "\n".join("  ".join(str(c).ljust(w[i]) for i, c in enumerate(x)).rstrip() for x in [head] + body)


def render_text(doc: dict) -> str:
    """The human report of one ``validate`` run (``doc`` is what ``render_json`` prints)."""
    out = []
    dev = doc.get("device") or {}
    out.append(f"cudalint validate: {doc['kernel']} ({doc['file']})"
               + (f" on {dev.get('name')} (cc {dev.get('cc')})" if dev.get("name") else ""))
    la = doc.get("launch") or {}
    if la:
        out.append(f"launch: grid {'x'.join(map(str, la.get('grid') or []))}, block "
                   f"{'x'.join(map(str, la.get('block') or []))}, dynamic shared memory {la.get('dynamic_smem', 0)} B"
                   f" ({la.get('source', '')}); predictions for {doc.get('arch')}")
    for a in doc.get("arguments") or []:
        out.append("  " + _arg_line(a))
    run = doc.get("run") or {}
    if run.get("status") not in (None, "ok"):
        out.append(f"RUN {run['status'].upper()}: {run.get('error', '')}".rstrip())
    rows = [Row(**{k: v for k, v in r.items() if k in ("label", "predicted", "measured", "tolerance", "agree",
                                                     "note", "source")}, key=r["metric"])
            for r in doc.get("rows") or []]
    if rows:
        out.append("")
        out.append(table(rows))
    ncu = doc.get("ncu")
    if ncu is not None and not ncu.get("ok"):
        out.append(f"ncu: {ncu.get('error') or 'failed'}")
    if doc.get("accesses"):
        out.append("")
        out.append("per access (source line:columns; the hardware's figures are those of the SASS "
                   "instructions with that line, sectors or wavefronts per request):")
        out.extend("  " + ln for ln in access_table(doc["accesses"]).splitlines())
    elif doc.get("accesses_note"):
        out.append(f"per access: {doc['accesses_note']}")
    cf = doc.get("compare_fix")
    if cf:
        out.append("")
        out.append("--compare-fix:")
        if not cf.get("fixes"):
            out.append("  " + (cf.get("error") or "cudalint proposes no fix for this kernel"))
        for f in cf.get("fixes") or []:
            out.append(f"  applied {f['code']} at line {f['line']}: {f['fix']}")
        if cf.get("rows"):
            crow = [Row(**{k: v for k, v in r.items() if k in ("label", "predicted", "measured", "tolerance",
                                                             "agree", "note", "source")}, key=r["metric"])
                    for r in cf["rows"]]
            out.append("  fixed kernel, predicted vs measured:")
            out.extend("    " + ln for ln in table(crow).splitlines())
        if cf.get("error") and cf.get("fixes"):
            out.append(f"  fixed kernel: {cf['error']}")
        if cf.get("speedup") is not None:
            out.append(f"  time (median, L2 flushed): original {cf['original_us']:.2f} µs, fixed {cf['fixed_us']:.2f} µs"
                       f" -> speedup {cf['speedup']:.2f}x")
            if cf.get("speedup_warm") is not None:
                out.append(f"  time (median, warm): original {cf['original_warm_us']:.2f} µs, fixed "
                           f"{cf['fixed_warm_us']:.2f} µs -> speedup {cf['speedup_warm']:.2f}x")
    for a in doc.get("assumptions") or []:
        out.append(f"assumed: {a}")
    for n in doc.get("notes") or []:
        out.append(f"note: {n}")
    n = doc.get("disagreements", 0)
    out.append("")
    if run.get("status") not in (None, "ok"):
        out.append("the kernel did not complete: see above")
    elif n:
        out.append(f"{n} disagreement{'s' if n != 1 else ''} between cudalint's predictions and the measurement (DIFF)")
    else:
        checked = sum(1 for r in rows if r.agree is not None)
        out.append(f"all {checked} compared figures agree within tolerance")
    return "\n".join(out) + "\n"


def render_json(doc: dict) -> str:
    return json.dumps(doc, indent=2, default=str) + "\n"
