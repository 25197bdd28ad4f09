"""Per-access measurements for ``cudalint validate --ncu``: SASS instructions to source lines.

Nsight Compute's ``SourceCounters`` section gives one row per SASS instruction of the profiled
kernel (``ncu --import R --page source --csv --print-source sass``): its run-time address, its
text, how often a warp executed it, its address space and direction, the L2 theoretical sectors
of a global access (the distinct 32-byte sectors the warp's lanes touched) and the n-way figure
of a shared access (wavefronts per request). The source line of each instruction comes from the
line table of the same code built with ``-lineinfo`` (``nvdisasm -g``, offsets from the
function's start). Grouped by (line, space, direction) these are the hardware's figures for the
accesses cudalint predicts on that line.

Pure functions (unit-tested with synthetic text); running ncu and nvdisasm is the caller's job.
"""
from __future__ import annotations

import csv
import io
import os
import re
from typing import Optional

__all__ = ["parse_nvdisasm", "parse_source_page", "base_name", "match_function", "mismatch", "instructions",
           "per_line", "compare_lines"]

_SPACES = {"Global": "global", "Shared": "shared", "Local": "local"}


def _num(s) -> Optional[float]:
    try:
        v = float(str(s).replace(",", ""))
    except ValueError:
        return None
    return int(v) if v.is_integer() else v


def base_name(kernel_name: str) -> str:
    """``void MatrixMulCUDA<(int)32>(float *, ...)`` -> ``MatrixMulCUDA<32>``."""
    s = re.sub(r"^void\s+", "", kernel_name.strip())
    s = re.sub(r"<\((?:unsigned )?\w+\)", "<", s)  # ncu's source page spells <(int)32>
    depth = 0
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return s[:i].strip()
    return s


def parse_nvdisasm(text: str, source: Optional[str] = None) -> dict:
    """``nvdisasm -g`` output -> {function: {offset: (source line or None, instruction text)}}.
    With ``source``, lines of other files (an inlined header function) count as unknown."""
    out: dict = {}
    fn = None
    line = None
    want = os.path.basename(source) if source else None
    for ln in (text or "").splitlines():
        m = re.match(r"^\s*\.text\.(\S+):", ln)
        if m:
            fn, line = m.group(1), None
            out[fn] = {}
            continue
        m = re.search(r'//## File "([^"]*)", line (\d+)', ln)
        if m:
            line = int(m.group(2)) if want is None or os.path.basename(m.group(1)) == want else None
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", ln)
        if m and fn is not None:
            out[fn][int(m.group(1), 16)] = (line, m.group(2).strip())
    return out


def parse_source_page(text: str) -> dict:
    """The source page's CSV -> {kernel base name: [instruction rows as dicts]}; the first section
    of each kernel (ncu may print one twice)."""
    out: dict = {}
    cur = hdr = None
    for r in csv.reader(io.StringIO(text or "")):
        if not r:
            continue
        if r[0] == "Kernel Name" and len(r) > 1:
            name = base_name(r[1])
            cur = None if name in out else name
            if cur is not None:
                out[cur] = []
            hdr = None
        elif r[0] == "Address":
            hdr = r
        elif cur is not None and hdr is not None and len(r) == len(hdr):
            out[cur].append(dict(zip(hdr, r)))
    return out


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().rstrip(";"))


def _opcodes(texts) -> list:
    # opcodes (with a predicate): branch targets are absolute in ncu and labels in nvdisasm
    out = []
    for t in texts:
        p = _norm(t).split()
        if p:
            out.append(" ".join(p[:2]) if p[0].startswith("@") else p[0])
    return out


def match_function(rows: list, funcs: dict) -> Optional[str]:
    """The disassembled function whose instructions are the profiled ones (same opcodes in the
    same order), or None when none matches (then lines cannot be given)."""
    seq = _opcodes(r.get("Source", "") for r in rows)
    best, best_d = None, None
    for fn, ins in funcs.items():
        ops = _opcodes(t for _, (_, t) in sorted(ins.items()))
        n = min(len(seq), len(ops))
        if n and ops[:n] == seq[:n]:  # nvdisasm may list trailing padding the profiler omits
            d = abs(len(ops) - len(seq))
            if best_d is None or d < best_d:
                best, best_d = fn, d
    return best


def mismatch(rows: list, funcs: dict) -> str:
    """Why no function matched: the instruction counts and the first differing opcode."""
    seq = _opcodes(r.get("Source", "") for r in rows)
    out = []
    for fn, ins in funcs.items():
        ops = _opcodes(t for _, (_, t) in sorted(ins.items()))
        k = next((i for i, (a, b) in enumerate(zip(seq, ops)) if a != b), min(len(seq), len(ops)))
        out.append(f"{fn}: {len(ops)} instructions disassembled, {len(seq)} profiled, first difference at "
                   f"{k} ({seq[k] if k < len(seq) else '-'} vs {ops[k] if k < len(ops) else '-'})")
    return "; ".join(out[:3]) or "no function in the cubin"


def instructions(rows: list, lines: dict) -> list:
    """One dict per global/shared/local memory instruction: line, sass, space, op, executed, and
    sectors (global) or wavefronts per request (shared)."""
    if not rows:
        return []
    try:
        start = int(rows[0]["Address"], 16)
    except (KeyError, ValueError):
        return []
    out = []
    for r in rows:
        space = _SPACES.get(r.get("Address Space", ""))
        op = (r.get("Access Operation") or "").lower()
        if space is None or op not in ("load", "store", "atomic"):
            continue
        try:
            off = int(r["Address"], 16) - start
        except ValueError:
            continue
        ex = _num(r.get("Instructions Executed")) or 0
        row = {"line": lines.get(off, (None, None))[0], "sass": _norm(r.get("Source", "")), "space": space,
               "op": op, "bits": _num(r.get("Access Size")), "executed": ex}
        if space == "global":
            row["sectors"] = _num(r.get("L2 Theoretical Sectors Global")) or 0
            row["sectors_per_request"] = round(row["sectors"] / ex, 4) if ex else None
        elif space == "shared":
            row["wavefronts_per_request"] = _num(r.get("L1 Conflicts Shared N-Way"))
        out.append(row)
    return out


def per_line(instrs: list) -> dict:
    """{(line, space, 'load'|'store'): {"measured", "requests", "instructions"}}: global sectors
    per request over the line's instructions (sectors / warp-level executions), shared
    wavefronts per request weighted by executions. Instructions that never ran are left out."""
    acc: dict = {}
    for a in instrs:
        if a["line"] is None or a["op"] not in ("load", "store") or a["space"] not in ("global", "shared"):
            continue
        s = acc.setdefault((a["line"], a["space"], a["op"]), [0.0, 0, 0])
        if a["space"] == "global":
            s[0] += a.get("sectors") or 0
        else:
            s[0] += (a.get("wavefronts_per_request") or 0) * a["executed"]
        s[1] += a["executed"]
        s[2] += 1
    return {k: {"measured": v[0] / v[1], "requests": v[1], "instructions": v[2]} for k, v in acc.items() if v[1]}


def compare_lines(accesses: list, measured: dict) -> list:
    """Rows of the per-access table. ``accesses``: cudalint's (explain JSON shape: line, column,
    space, kind, sectors_per_request / wavefronts_per_request, issued); ``measured``: ``per_line``.
    One row per (line, space, direction) seen on either side; the prediction is the mean over
    cudalint's accesses on the line (an access the compiler keeps in a register is left out),
    weighted by each access's predicted requests when every one has a count -- as the
    measurement weights the line's instructions by their executions (``x[i] += A[i*n + j] *
    y[j]`` with x loaded once before the loop: (32 + 1) / 2 a request, not (4 + 32 + 1) / 3)."""
    from .validate_report import agree

    pred: dict = {}
    cols: dict = {}
    for a in accesses:
        if a.get("space") not in ("global", "shared") or a.get("kind") not in ("load", "store"):
            continue
        if a.get("issued") is False:
            continue
        v = a.get("sectors_per_request") if a["space"] == "global" else a.get("wavefronts_per_request")
        key = (a.get("line"), a["space"], a["kind"])
        cols.setdefault(key, []).append(a.get("column"))
        if v is not None:
            # requests of a predicated branch that move nothing count with 0 (moving_share)
            pred.setdefault(key, []).append((float(v) * float(a.get("moving_share", 1.0)), a.get("requests")))
    rows = []
    for key in sorted(set(pred) | set(measured) | set(cols), key=lambda k: (k[0] or 0, k[1], k[2])):
        line, space, kind = key
        field = "sectors_per_request" if space == "global" else "wavefronts_per_request"
        p = _line_mean(pred[key]) if pred.get(key) else None
        m = measured.get(key)
        mv = m["measured"] if m else None
        if p is not None and mv is not None:
            ok, tol = agree(field, p, mv)
            note = ""
        else:
            ok, tol = agree(field, None, None)
            ok = False if (p is None) != (mv is None) else None
            note = ("no instruction on this line ran (the compiler removed or merged it)" if mv is None
                    else "measured, but cudalint predicts no access here")
        rows.append({"line": line, "columns": [c for c in cols.get(key, []) if c is not None], "space": space,
                     "kind": kind, "metric": field, "predicted": p, "measured": mv, "agree": ok, "tolerance": tol,
                     "requests": m["requests"] if m else None, "instructions": m["instructions"] if m else 0,
                     "predicted_accesses": len(pred.get(key, [])), "note": note})
    return rows


def _line_mean(vals: list) -> float:
    """Mean of (figure, predicted requests) pairs: request-weighted when every count is known
    and some is positive, else plain."""
    reqs = [r for _, r in vals]
    if all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in reqs) and sum(reqs) > 0:
        return sum(v * r for v, r in vals) / sum(reqs)
    return sum(v for v, _ in vals) / len(vals)
