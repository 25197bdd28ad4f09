"""Several files' device code in one nvcc call, each file's register report as if alone.

Most of a small file's compile is fixed cost: the host preprocessor, cicc reading the implicit
``cuda_runtime.h`` (0.28 s for an empty kernel with nvcc 13) and, for a file using cooperative
groups, some 550 libcu++ headers (1 s). A run over many files pays it once per batch instead of
once per file: the device code of several files (analyzer/device_code) goes into one translation
unit at global scope, one after the other, each keeping its ``#line`` directives, and ptxas'
report is split back per file by function name.

Global scope, not a namespace per file: a file's ``min`` or ``lerp`` inside a namespace would
hide the global overloads from its own code and silently change overload resolution. So a file
joins a batch only where no file can see another's declarations (:func:`conflict`), and anything
else is compiled alone, exactly as :meth:`registers.NvccPlan.compile` does:

- names: what one file declares at namespace scope is neither declared nor used by another
  (identical redeclarations such as ``namespace cg = cooperative_groups;`` excepted);
- macros: each file's ``#define``/``#undef`` names are saved before its code and restored after
  it (``#pragma push_macro``/``pop_macro``), so the next file sees the macro state it sees alone;
- system headers (``<cooperative_groups.h>``... left in the device code): only files with the
  same set batch together, none of them defining before the include a macro that one of those
  headers mentions (``nvcc -M`` lists them), and no extra ``-I`` directory of the batch holds a file named like a
  system header;
- ``#pragma pack``: each file's packing is saved before it and restored after it;
- never batched: template kernels (compiled where instantiated), global data (``__device__``
  variables, string literals, asserts, math functions with tables: ptxas counts gmem per
  compile, and a batch with any is compiled again file by file), operator overloads on types
  the file does not define, other pragmas that change later code;
- a batch that fails, or whose report names a function no file (or several files) declare, or
  lacks one of a file's kernels, is dropped for single compiles (counted in :data:`stats`).
"""
from __future__ import annotations

import dataclasses
import glob
import os
import re
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from . import registers as _reg
from .registers import NvccPlan, PtxasReport, _compile_lock, _locked_compile, _read_cached, _store

__all__ = ["alone_reason", "conflict", "choose", "batch_source", "compile_batch", "stats"]

stats = {"batches": 0, "batched_files": 0, "failed_batches": 0, "fallback_files": 0, "retries": 0}
failures: list = []  # (files, why) of the last failed batches, for the bench and debugging
_stats_lock = threading.Lock()

# Pragmas whose effect ends with the declaration they precede, or with none on code generation.
# CUDA math functions whose code reads tables in global memory (__cudart_i2opi_f/_d,
# __cudart_sin_cos_coeffs: 24 to 272 bytes gmem with nvcc 13). A batch with any gmem is compiled
# again file by file (its figure cannot be split), so files that call them stay alone.
_TABLE_MATH = frozenset({
    "sin", "cos", "tan", "sincos", "sinpi", "cospi", "sincospi", "sinf", "cosf", "tanf", "sincosf",
    "lgamma", "tgamma", "j0", "j1", "jn", "y0", "y1", "yn", "j0f", "j1f", "jnf", "y0f", "y1f", "ynf",
    "erfcx", "lgammaf", "tgammaf"})
_HARMLESS_PRAGMA = re.compile(
    r"#\s*pragma\s+(once|unroll|nounroll|warning|message|comment|region|endregion|nv_diag_\w+|diag_\w+|"
    r"nv_diagnostic|GCC\s+diagnostic|clang\s+diagnostic|hd_warning_disable|nv_exec_check_disable)\b")
# Macros a system header may test (cooperative_groups.h tests _CG_*, cuda_fp16.h
# __CUDA_NO_HALF_OPERATORS__, <cassert> NDEBUG...).
_PACK = re.compile(r"#\s*pragma\s+pack\s*\(\s*(\w*)")


def _count(**kw) -> None:
    with _stats_lock:
        for k, v in kw.items():
            stats[k] += v


def _own_guard(name: str, files: set) -> bool:
    """``_BISECT_KERNEL_LARGE_H_`` in bisect_kernel_large.cuh: an include guard of one of the
    file's own headers, which no system header tests."""
    core = name.strip("_")
    for f in files:
        stem = re.sub(r"\W", "_", os.path.basename(f).rsplit(".", 1)[0]).upper()
        if stem and re.search(r"(^|_)" + re.escape(stem) + r"(_(H|HH|HPP|CUH|INCLUDED|H_INCLUDED))?$", core):
            return True
    return False


def alone_reason(dc, plan: Optional[NvccPlan] = None) -> Optional[str]:
    """Why this device code is never batched, or None. ``plan`` (the file's compile) lets the
    headers of its ``<...>`` includes be read for the macros it defines before them; without
    it any such macro keeps the file alone."""
    if dc is None:
        return "no device code"
    if dc.template_kernels or dc.instantiations:
        return "template kernels"
    if dc.global_data or dc.refs & _TABLE_MATH:
        # ptxas counts gmem per compile, and a batch's figure cannot be split by file
        return "global data (__device__ variables, strings, math tables)"
    if dc.unused_dynamic_shared and dc.static_shared:
        return "an extern __shared__ array it does not use"
    if dc.foreign_operators:
        return "operator overloads on types the file does not define"
    if dc.late_using:
        return "a using-directive after a declaration"
    bad = [p for p in dc.pragmas if not _HARMLESS_PRAGMA.match(p) and not _PACK.match(p)]
    if bad:
        return f"{bad[0]}"
    packs = [_PACK.match(p).group(1) or "" for p in dc.pragmas if _PACK.match(p)]
    if sum(a.startswith("push") for a in packs) != sum(a.startswith("pop") for a in packs):
        return "#pragma pack push and pop unbalanced"
    if dc.kept_includes:
        return _before_include_reason(dc, plan)
    return None


def conflict(a, b) -> Optional[str]:
    """Why device codes ``a`` and ``b`` cannot share a translation unit, or None."""
    if sorted(set(a.kept_includes)) != sorted(set(b.kept_includes)):
        return "different system headers"
    if a.using_directives != b.using_directives:
        return "different using-directives"
    for x, y in ((a, b), (b, a)):
        if x.static_shared and not x.dynamic_shared and y.dynamic_shared:
            # in a compile with an extern __shared__ array ptxas rounds every kernel's static
            # shared memory up to 16 bytes; x's kernels alone are not rounded
            return "extern __shared__ in one only"
    for x, y in ((a, b), (b, a)):
        seen = x.names & (y.names | y.refs)
        for n in sorted(seen):
            if n in x.redeclarations and x.redeclarations.get(n) == y.redeclarations.get(n):
                continue  # the same alias or typedef twice is one declaration
            return f"`{n}` is declared by one and used by the other"
    return None


@lru_cache(maxsize=4)
def _system_dirs(tool: str) -> tuple:
    """The directories nvcc (its -I and -isystem) and the host compiler search for <...>."""
    from .registers import _run

    dirs = ["/usr/include", "/usr/local/include"]
    _, out, err = _run([tool, "--dryrun", "-x", "cu", "-cubin", "-o", os.devnull, os.devnull], 30)
    for m in re.finditer(r'(?:-I|-isystem"?\s+)"?([^"\s]+)', out + err):
        dirs.append(os.path.normpath(m.group(1)))
    _, out, err = _run(["g++", "-xc++", "-E", "-v", os.devnull], 30)
    text = out + err
    if "search starts here:" in text:
        block = text.split("search starts here:", 1)[1].split("End of search list.", 1)[0]
        dirs += [os.path.normpath(ln.strip()) for ln in block.splitlines() if ln.startswith(" ")]
    else:  # no g++ to ask: its usual places
        dirs += [*glob.glob("/usr/include/c++/*"), *glob.glob("/usr/include/*-linux-gnu"),
                 *glob.glob("/usr/lib/gcc/*/*/include")]
    return tuple(d for d in dict.fromkeys(dirs) if os.path.isdir(d))


@lru_cache(maxsize=4)
def _system_names(tool: str) -> frozenset:
    """Top-level names in the system include directories: a batch's extra -I directory holding
    one of them could change what a system header includes."""
    names: set = set()
    for d in _system_dirs(tool):
        try:
            names |= set(os.listdir(d))
        except OSError:
            pass
    return frozenset(names)


def _header_words(plan: Optional[NvccPlan], dc):
    if plan is None:
        return None
    from .system_headers import header_names

    return header_names(plan.tool, plan.version, plan.sm, tuple(dc.kept_includes))


def _before_include_reason(dc, plan: Optional[NvccPlan]) -> Optional[str]:
    """In a batch, a file's ``<...>`` headers may have been included by an earlier file, and
    then do not see the macros it defines before its own include: harmless only where those
    headers never name them."""
    defined = {m for m in dc.defined_before_include if not _own_guard(m, dc.files)}
    if not defined:
        return None
    words = _header_words(plan, dc)
    if words is None:
        return "macros before a system header whose headers could not be read"
    hit = sorted(defined & words.identifiers)
    return f"defines {hit[0]} before <{dc.kept_includes[0]}>, whose headers name it" if hit else None


def must_lead(plan: NvccPlan) -> bool:
    """Whether the file's code before its ``<...>`` include tests a macro that those headers
    define or uses a name they declare at global scope (or define): after an earlier file's
    include it would see them where alone it does not. Such a file can only be the first of its
    batch."""
    dc = plan.dc
    tested = {m for m in dc.tested_before_include if not _own_guard(m, dc.files)}
    used = set(dc.used_before_include)
    if not dc.kept_includes or not (tested or used):
        return False
    words = _header_words(plan, dc)
    return words is None or bool(tested & words.macros) or bool(used & (words.globals | words.macros))


def _leading_first(plans: Sequence[NvccPlan]) -> Optional[list[int]]:
    """The order to emit ``plans`` in (the one that must lead first), or None where two must."""
    lead = [i for i, p in enumerate(plans) if must_lead(p)]
    if len(lead) > 1:
        return None
    return lead + [i for i in range(len(plans)) if i not in lead]


def _search(plan: NvccPlan) -> list[str]:
    """The -I directories of its single compile, in order (its own directory last)."""
    return [os.path.abspath(d) for d in plan.inc] + [str(plan.src.parent.resolve())]


def batch_dirs(plans: Sequence[NvccPlan]) -> Optional[list[str]]:
    """The -I directories of a batch: those every file searches (in the same order for all),
    then the others, each holding nothing that a system header or a file's <...> include could
    find. None where no such order exists."""
    lists = [list(dict.fromkeys(_search(p))) for p in plans]
    common = [d for d in lists[0] if all(d in other for other in lists[1:])]
    if any([d for d in lst if d in common] != common for lst in lists):
        return None
    extra = list(dict.fromkeys(d for lst in lists for d in lst if d not in common))
    if extra:
        names = _system_names(plans[0].tool) | {i.split("/")[0] for p in plans
                                                for i in p.dc.kept_includes + p.dc.system_includes}
        for d in extra:
            try:
                if set(os.listdir(d)) & names:
                    return None
            except OSError:
                return None
    return common + extra


def _flags(plan: NvccPlan) -> tuple:
    fl = list(plan.flags)
    for i in range(len(fl) - 1):
        if fl[i] == "-x" and fl[i + 1] == "cu":  # the device-only compile passes -x cu anyway
            del fl[i:i + 2]
            break
    return (plan.tool, plan.sm, plan.version, tuple(fl))


def compatible(plans: Sequence[NvccPlan]) -> bool:
    """Whether these files can be compiled in one batch."""
    if len({_flags(p) for p in plans}) != 1 or any(alone_reason(p.dc, p) for p in plans):
        return False
    if _leading_first(plans) is None:
        return False
    for i, a in enumerate(plans):
        for b in plans[i + 1:]:
            if conflict(a.dc, b.dc):
                return False
    return batch_dirs(plans) is not None


def choose(plans: Sequence[Optional[NvccPlan]], limit: int) -> list[int]:
    """Indices of a batch led by ``plans[0]``: the first others, in order, that fit with those
    chosen before them (at most ``limit`` in all). Only ``[0]`` where it must be compiled alone."""
    first = plans[0]
    if first is None or alone_reason(first.dc, first) or limit < 2:
        return [0]
    chosen = [0]
    led = must_lead(first)  # a batch has at most one file that must come first
    for i in range(1, len(plans)):
        p = plans[i]
        if len(chosen) >= limit:
            break
        if p is None or _flags(p) != _flags(first) or alone_reason(p.dc, p):
            continue
        if any(conflict(p.dc, plans[j].dc) for j in chosen):
            continue
        if batch_dirs([plans[j] for j in chosen] + [p]) is None:
            continue
        if must_lead(p):
            if led:
                continue
            led = True
        chosen.append(i)
    return chosen


def batch_source(plans: Sequence[NvccPlan], head: Sequence[str] = ()) -> str:
    """One translation unit with each file's device code, its macros saved before and restored
    after it; ``head``: system headers included first (as each file's second single compile
    does)."""
    out = [f"#include <{h}>" for h in head]
    for p in plans:
        macros = sorted(p.dc.macros)
        pack = any(_PACK.match(x) for x in p.dc.pragmas)  # its packing ends with it
        out.extend(f'#pragma push_macro("{m}")' for m in macros)
        out.extend(["#pragma pack(push)"] if pack else [])
        out.append(p.dc.source_for_nvcc(system_headers=False).rstrip("\n"))
        out.extend(["#pragma pack(pop)"] if pack else [])
        out.extend(f'#pragma pop_macro("{m}")' for m in reversed(macros))
    return "\n".join(out) + "\n"


_BLOCK_START = re.compile(r"Compiling entry function '([^']+)'|Function properties for (\S+)")
_GMEM_LINE = re.compile(r"ptxas info\s*:\s*\d+ bytes gmem")


def split_report(rep: PtxasReport, plans: Sequence[NvccPlan], full_log: str,
                 shared: Optional[dict] = None) -> Optional[list[PtxasReport]]:
    """Each file's report out of the batch's, or None where a function cannot be attributed to
    exactly one file or a file's kernel is missing. ``shared``: functions that the files' common
    headers put in every compile (each file's, where the batch has them alike)."""
    owner: dict[str, int] = {}  # -1: every file's
    for name, fn in rep.functions.items():
        hits = [i for i, p in enumerate(plans) if fn.plain_name in p.dc.names]
        if not hits and shared and name in shared and shared[name] == dataclasses.replace(fn, arch=shared[name].arch):
            owner[name] = -1
            continue
        if len(hits) != 1:
            return None
        owner[name] = hits[0]
    out = []
    for i, p in enumerate(plans):
        funcs = {k: v for k, v in rep.functions.items() if owner[k] in (i, -1)}
        if not any(owner[k] == i for k in funcs) or not set(p.dc.kernels) <= {f.plain_name for f in funcs.values() if f.is_entry}:
            return None
        out.append(PtxasReport(
            ok=True, arch=rep.arch, nvcc=rep.nvcc, nvcc_version=rep.nvcc_version, command=list(rep.command),
            functions=funcs, gmem_bytes=rep.gmem_bytes, log=_member_log(full_log, set(funcs), p)[-4000:],
            mode="device code only", batch=[str(q.src) for q in plans if q is not p]))
    return out


def _member_log(log: str, names: set, plan: NvccPlan) -> str:
    """The lines of the batch's output about this file: its functions' blocks, the module's
    gmem line (0 bytes: then 0 for each file alone too) and messages pointing into its files."""
    keep, cur = [], None
    files = tuple(plan.dc.files)
    for line in log.splitlines():
        m = _BLOCK_START.search(line)
        if m:
            cur = m.group(1) or m.group(2)
        elif _GMEM_LINE.search(line):
            keep.append(line)
            cur = None
            continue
        elif not line.startswith((" ", "\t", "ptxas info")):
            cur = None
            if line.startswith(files):
                keep.append(line)
            continue
        if cur in names:
            keep.append(line)
    return "\n".join(keep)


_UNRESOLVED = re.compile(r"Unresolved extern function '([^']+)'")
_ERROR_AT = re.compile(r"^(.*?)(?:\(\d+\)|:\d+:\d+): (?:catastrophic |fatal )?error")


def _failing(log: str, plans: Sequence[NvccPlan]) -> Optional[set[int]]:
    """The files a failed batch's errors point into, or None where one points elsewhere or
    into several files' code."""
    bad: set[int] = set()
    for line in log.splitlines():
        m = _ERROR_AT.match(line)
        u = _UNRESOLVED.search(line)
        if u:  # a device function declared and not defined (another file's, with -rdc)
            name = _reg.base_name(u.group(1))
            hits = [i for i, p in enumerate(plans) if name in p.dc.names or name in p.dc.refs]
        elif m:
            hits = [i for i, p in enumerate(plans) if m.group(1) in p.dc.files]
        else:
            continue
        if len(hits) != 1:
            return None
        bad.add(hits[0])
    return bad or None


def _run_batch(plans: Sequence[NvccPlan], head: tuple = ()) -> tuple[Optional[list[PtxasReport]], Optional[set[int]]]:
    """(reports, None) when the batch compiled and split; (None, files to leave out) when it
    failed because of those files; (None, None) otherwise."""
    order = _leading_first(plans) or list(range(len(plans)))
    reps, bad = _run_ordered([plans[i] for i in order], head)
    if reps is not None:
        back: list = [None] * len(plans)
        for j, i in enumerate(order):
            back[i] = reps[j]
        return back, None
    return None, ({order[j] for j in bad} if bad is not None else None)


def _run_ordered(plans: Sequence[NvccPlan], head: tuple) -> tuple[Optional[list[PtxasReport]], Optional[set[int]]]:
    first = plans[0]
    dirs = batch_dirs(plans)
    flags = list(_flags(first)[3])
    with tempfile.TemporaryDirectory(prefix="cudalint-batch-") as tmp:
        dev = Path(tmp) / "batch.cu"
        dev.write_text(batch_source(plans, head), encoding="utf-8")
        cmd = first.cmd[:7] + [f"-I{d}" for d in dirs or ()] + flags + ["-x", "cu", str(dev)]
        rep = _reg._nvcc_run(cmd, first.sm, first.tool, first.version, first.timeout * len(plans), keep=None)
    if not rep.ok:
        _failed(plans, rep.reason or "nvcc failed")
        return None, _failing(rep.log, plans)
    # What the headers alone put in every compile matters only for global data or a function
    # no file declares (CUB's EmptyKernel): its compile (1.3 s for cooperative_groups.h) only then.
    unowned = any(not any(fn.plain_name in p.dc.names for p in plans) for fn in rep.functions.values())
    base = _baseline(first, tuple(flags), head) if rep.gmem_bytes or unowned else None
    if rep.gmem_bytes and rep.gmem_bytes != (base or {}).get("gmem"):
        _failed(plans, f"{rep.gmem_bytes} bytes gmem, which cannot be split by file")
        return None, None
    out = split_report(rep, plans, rep.log, (base or {}).get("functions") or {})
    if out is None:
        _failed(plans, "the report does not split by file")
    return out, None


def _baseline(plan: NvccPlan, flags: tuple, head: tuple) -> Optional[dict]:
    """What every compile with the batch's headers has (gmem, functions such as CUB's
    EmptyKernel): the files have no global data of their own (alone_reason), so a batch with
    just this much gmem has it for each file, and these functions are each file's too."""
    from .system_headers import baseline

    includes = tuple(head) + tuple(dict.fromkeys(plan.dc.kept_includes))
    return baseline(plan.tool, plan.version, plan.sm, flags, includes) if includes else {"gmem": 0, "functions": {}}


def _failed(plans, why: str) -> None:
    with _stats_lock:
        failures.append(([str(p.src) for p in plans], why))
        del failures[:-50]


def compile_batch(plans: Sequence[NvccPlan], cache_root=None, use_cache: bool = True) -> list[PtxasReport]:
    """Every file's report, each stored in the cache where its single compile would store it:
    from the cache, from one batch compile, or from its own compile where the batch could not
    give it."""
    n = len(plans)
    reports: list[Optional[PtxasReport]] = [None] * n
    cfiles = [p.cache_file(cache_root) if use_cache else None for p in plans]
    locks: dict[int, _compile_lock] = {}
    later: list[int] = []  # someone else is compiling these: wait for their report afterwards
    try:
        todo = []
        for i, cf in enumerate(cfiles):
            if cf is not None:
                rep = _read_cached(cf)
                if rep is None:
                    lk = _compile_lock(cf, wait=False).__enter__()
                    if lk.busy:
                        later.append(i)
                        continue
                    locks[i] = lk
                    rep = _read_cached(cf)
                if rep is not None:
                    reports[i] = rep
                    continue
            todo.append(i)
        alone = _batch_into(plans, todo, reports)
        for i in alone:
            reports[i] = plans[i].compile()
        for i in todo:
            if cfiles[i] is not None:
                _store(cfiles[i], reports[i])
    finally:
        for lk in locks.values():
            lk.__exit__(None, None, None)
    for i in later:
        reports[i] = _locked_compile(plans[i].compile, cfiles[i])
    return reports  # type: ignore[return-value]


# A batch whose errors point into some files is tried again without them: the front end reports
# every file's errors at once, but ptxas' (an unresolved function) only after it.
_ATTEMPTS = 3


def _batch_into(plans: Sequence[NvccPlan], todo: list[int], reports: list) -> list[int]:
    """Compile ``todo`` as a batch, filling ``reports``; the indices left to single compiles."""
    members = [i for i in todo if alone_reason(plans[i].dc, plans[i]) is None]
    alone = [i for i in todo if i not in members]
    if len(members) < 2 or not compatible([plans[i] for i in members]):
        return todo
    # Files whose device code does not compile without their system headers: alone they are
    # compiled next with those headers first, so together with the others that have the same.
    # Those that name something of them (a curandState) go there without trying.
    with_headers = [i for i in members if plans[i].dc.needed_system_includes()]
    members = [i for i in members if i not in with_headers]
    if len(members) < 2:
        return alone + members + _with_headers(plans, with_headers, reports)
    for attempt in range(_ATTEMPTS):
        done, bad = _batch_once(plans, members, reports)
        if done:
            return alone + _with_headers(plans, with_headers, reports)
        if bad is None or attempt == _ATTEMPTS - 1:
            break
        failed = [members[j] for j in sorted(bad)]
        with_headers += [i for i in failed if plans[i].dc.system_includes]
        alone += [i for i in failed if not plans[i].dc.system_includes]
        members = [m for j, m in enumerate(members) if j not in bad]
        if len(members) < 2:
            return alone + members + _with_headers(plans, with_headers, reports)
        _count(retries=1)
    _count(fallback_files=len(members))
    return alone + members + _with_headers(plans, with_headers, reports)


def _batch_once(plans: Sequence[NvccPlan], members: list[int], reports: list,
                head: tuple = ()) -> tuple[bool, Optional[set[int]]]:
    """(True, None) when the batch filled ``reports``, else (False, the positions in ``members``
    of the files its errors point into, or None)."""
    reps, bad = _run_batch([plans[i] for i in members], head)
    if reps is None:
        _count(failed_batches=1)
        return False, bad
    for i, r in zip(members, reps):
        reports[i] = r
    _count(batches=1, batched_files=len(members))
    return True, None


def _with_headers(plans: Sequence[NvccPlan], idx: list[int], reports: list) -> list[int]:
    """Batches of the files that failed without their system headers, by the same headers; the
    indices left to single compiles."""
    groups: dict = {}
    for i in idx:
        groups.setdefault(tuple(plans[i].dc.system_includes), []).append(i)
    left = []
    for head, group in groups.items():
        for attempt in range(_ATTEMPTS):
            if len(group) < 2:
                break
            done, bad = _batch_once(plans, group, reports, head)
            if done:
                group = []
                break
            if bad is None or attempt == _ATTEMPTS - 1:
                break
            _count(retries=1)
            left += [group[j] for j in sorted(bad)]
            group = [m for j, m in enumerate(group) if j not in bad]
        left += group
    return left
