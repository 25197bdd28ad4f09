"""Host-API facts: how the host code of a file uses the CUDA runtime's error reporting.

    ignored_errors(tu, path) -> list[IgnoredError]       runtime results thrown away or never read
    unchecked_launches(tu, path) -> list[UncheckedLaunch]  launches with a path to a sync, return
                                                           or the end without a last-error check
    smem_optin(tu) -> set[str]                           kernels whose dynamic shared memory limit
                                                           the file raises ('*' when unclear)

Host functions are lowered to the same IR as kernels (launches as ``ir.LaunchExpr``); the paths
are those of their control-flow graph (``cfg.py``). What counts as checking an error:

- the ``cudaError_t`` a call returns is used: compared, passed to a function or macro
  (``CHECK(cudaMalloc(...))``, ``checkCudaErrors(...)``, ``gpuErrchk(...)``), returned, or
  stored in a variable that is read later (``cudaError_t e = cudaMalloc(...); if (e) ...``);
- a cast to ``void`` (``(void)cudaFree(p)``) is a deliberate, visible decision to ignore it;
- for a launch: a call of ``cudaGetLastError()``/``cudaPeekAtLastError()`` whose result is used,
  a wrapper defined in the file that makes such a call, or a helper whose name says it checks
  the last error (``getLastCudaError("...")``, ``cudaCheckError()``, ``CUDA_CHECK_LAST()``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from . import ir
from .cfg import CFG, EXIT, RETURN

ERROR_TYPES = {"cudaError_t", "cudaError", "enum cudaError"}
LAST_ERROR_CALLS = {"cudaGetLastError", "cudaPeekAtLastError"}
# Queries whose usual answer is an error code (cudaErrorNotReady while work is pending): a call
# on its own line is made for what it does (the book "CUDA 编程" calls cudaEventQuery(start)
# after cudaEventRecord to flush the launch queue under WDDM, unchecked on purpose); checking
# it with a CHECK macro would abort on a normal answer, and a sticky error is returned again by
# the next call. Its result stored in a variable and never read is still reported.
QUERY_CALLS = {"cudaEventQuery", "cudaStreamQuery"}
SYNC_CALLS = {"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaStreamSynchronize",
              "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D",
              "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyPeer", "cudaMemcpy2DToArray",
              "cudaMemcpy2DFromArray", "cudaMemcpyToArray", "cudaMemcpyFromArray", "cudaDeviceReset",
              "cudaThreadExit", "cudaFree", "cudaFreeArray", "cudaFreeHost", "cudaStreamDestroy"}
# A helper whose name says it checks the last error (takes no CUDA call as argument).
LAST_ERROR_HELPER_RE = re.compile(
    r"(?i)(last_?(cuda_?)?err|check_?(cuda_?)?(last_?)?err|cuda_?check|errchk|check_?(kernel|launch)|"
    r"(kernel|launch)_?check|err(or)?_?check)")



@dataclass
class IgnoredError:
    """A runtime call whose ``cudaError_t`` nobody looks at."""
    call: ir.Call
    variable: Optional[ir.Variable] = None  # None: discarded; else stored here and never read


@dataclass
class UncheckedLaunch:
    """A launch with a path that reaches ``reached`` without a last-error check."""
    function: ir.Function
    launch: ir.LaunchExpr
    reached: object  # the CFG node: kind EXIT, RETURN, or a statement with a synchronizing call
    sync_call: Optional[str] = None  # that synchronizing call's name


def _in(r: ir.SourceRange, path) -> bool:
    """``r`` is in the file ``path``, or in a file the predicate ``path`` accepts (the checked
    file and the user's headers analysed through it)."""
    return bool(r.file) and (path(r.file) if callable(path) else r.in_file(path))


def host_functions(tu: Optional[ir.TranslationUnit], path) -> list[ir.Function]:
    """Host and host-device functions defined (with a body) in the file ``path`` (a name, or a
    predicate on file names)."""
    if tu is None:
        return []
    return [f for f in tu.functions if f.kind in ("host", "host_device") and _in(f.range, path)
            and f.body is not None]


def _cfgs(tu: Optional[ir.TranslationUnit]):
    """``cfg_of(fn)``: the control-flow graph of a host function, built once per translation
    unit for both rules (CL701's ignored errors and CL702's unchecked launches read the same
    graphs; neither changes them)."""
    memo = tu.__dict__.setdefault("_host_cfgs", {}) if tu is not None else {}

    def cfg_of(fn):
        g = memo.get(id(fn))
        if g is None or g[0] is not fn:
            g = memo[id(fn)] = (fn, CFG(fn))
        return g[1]
    return cfg_of


def ignored_errors(tu: Optional[ir.TranslationUnit], path) -> list[IgnoredError]:
    """Per host function of ``path``: calls whose error is discarded (unless every later path
    checks the last error, which keeps the failure until read), then errors stored in a variable
    that is never read."""
    out: list[IgnoredError] = []
    memo: dict = {}
    cfg_of = _cfgs(tu)

    fns = host_functions(tu, path)
    for fn in fns:
        for c in _discarded_calls(fn):
            if c.callee == "cudaGetLastError" or c.callee in QUERY_CALLS or not _in(c.range, path):
                continue
            # `cudaMalloc(...); cudaCheckError();`: the error state keeps the failure until it
            # is read, so a last-error check on every path afterwards checks this call too,
            # and so does one after every call of a helper that leaves with the error unread
            # (`alloc_bytes(p, n); cudaCheckErrors("...");` around a bare cudaMallocManaged).
            cfg = cfg_of(fn)
            node = cfg.node_of_expr(c)
            if node is not None:
                bad = _unchecked_path(cfg, node, tu, memo, stop_at_sync=False)
                if bad is None or (bad.kind in (EXIT, RETURN) and
                                   _callers_check(fn, fns, cfg_of, tu, memo, 0, site_checks=False)):
                    continue
            out.append(IgnoredError(c))
        reads = _reads(fn)
        for st in fn.statements():
            pairs = []
            if isinstance(st, ir.DeclStmt) and st.init is not None:
                pairs.append((st.var, strip_implicit(st.init)))
            for e in st.exprs() if not isinstance(st, ir.DeclStmt) else []:
                for x in e.walk():
                    if isinstance(x, ir.Assign) and x.op == "=" and isinstance(x.target, ir.VarRef):
                        pairs.append((x.target.var, strip_implicit(x.value)))
            for var, val in pairs:
                if isinstance(val, ir.Call) and _returns_error(val) and var not in reads and \
                        not var.file_scope and _in(val.range, path):
                    out.append(IgnoredError(val, var))
    return out


def unchecked_launches(tu: Optional[ir.TranslationUnit], path) -> list[UncheckedLaunch]:
    """Launches in host functions of ``path`` with a path to a return, the end of the function
    or a bare ``cudaGetLastError();`` (which discards the error) without a last-error check. A launch in a helper that returns is
    checked when every call of the helper in the file is followed by a check."""
    out: list[UncheckedLaunch] = []
    memo: dict = {}
    cfg_of = _cfgs(tu)

    fns = host_functions(tu, path)
    for fn in fns:
        if not _calls(fn, memo)[0]:
            continue  # no launch anywhere in it: no control-flow graph to build
        cfg = cfg_of(fn)
        for n in cfg.nodes:
            if not _node_has_launch(n) or not _in(n.range, path):
                continue
            if n.stmt is not None and _launch_checked_inline(n, tu, memo):
                continue
            # A synchronisation does not end the search: the launch error stays in the error
            # state until read, so a check after `cudaDeviceSynchronize()` catches it.
            bad = _unchecked_path(cfg, n, tu, memo, stop_at_sync=False)
            if bad is None:
                continue
            if bad.kind in (EXIT, RETURN) and _callers_check(fn, fns, cfg_of, tu, memo, 0):
                continue
            launch = next(x for e in n.exprs() for x in e.walk() if isinstance(x, ir.LaunchExpr))
            sync = None
            if bad.kind not in (EXIT, RETURN):
                sync = "cudaGetLastError"  # a bare `cudaGetLastError();` discarding the error
            out.append(UncheckedLaunch(fn, launch, bad, sync))
    return out


def _returns_error(c: ir.Call) -> bool:
    sp = c.type.spelling.replace("const ", "").strip()
    return c.callee.startswith("cuda") and (sp in ERROR_TYPES or sp.endswith("::cudaError_t"))


def strip_implicit(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast) and e.implicit:
        e = e.operand
    return e


def _discarded_calls(fn: ir.Function):
    """(call, how) for runtime calls whose cudaError_t is discarded: ``how`` is 'statement'
    for a call used as a statement."""
    for st in fn.statements():
        if isinstance(st, ir.ExprStmt):
            e = strip_implicit(st.expr)
            if isinstance(e, ir.Call) and _returns_error(e):
                yield e
            elif isinstance(e, ir.BinOp) and e.op == ",":
                for side in (e.lhs, e.rhs):
                    s2 = strip_implicit(side)
                    if isinstance(s2, ir.Call) and _returns_error(s2):
                        yield s2
        elif isinstance(st, ir.Loop):
            for x in ([st.step] if st.step is not None else []):
                s2 = strip_implicit(x)
                if isinstance(s2, ir.Call) and _returns_error(s2):
                    yield s2


def _reads(fn: ir.Function) -> set:
    """Variables read anywhere in ``fn`` (a plain ``=`` target is not a read)."""
    out: set = set()
    targets: set = set()
    for e in fn.expressions():
        if isinstance(e, ir.Assign) and e.op == "=" and isinstance(e.target, ir.VarRef):
            targets.add(id(e.target))
    for e in fn.expressions():
        if isinstance(e, ir.VarRef) and id(e) not in targets:
            out.add(e.var)
    return out


def _checks_last_error(fn: ir.Function, tu, depth: int = 0, memo: Optional[dict] = None) -> bool:
    """Whether calling ``fn`` reads the last error (a wrapper around cudaGetLastError)."""
    memo = memo if memo is not None else {}
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = False
    res = False
    if fn.body is not None and depth < 4:
        for st in fn.statements():
            if _stmt_checks(st, tu, depth + 1, memo):
                res = True
                break
    memo[id(fn)] = res
    return res


def _call_is_check(c: ir.Call, tu, depth: int, memo: dict, used: bool) -> bool:
    if c.callee in LAST_ERROR_CALLS:
        return used
    if c.function is not None and c.function.kind != "global" and _checks_last_error(c.function, tu, depth, memo):
        return True
    if tu is not None and c.function is None:
        f = tu.function(c.callee)
        if f is not None and f.kind in ("host", "host_device") and _checks_last_error(f, tu, depth, memo):
            return True
    if LAST_ERROR_HELPER_RE.search(c.callee) and not c.callee.startswith("cuda"):
        # a checking helper: it must not be checking some other runtime call passed to it
        inner = [x for a in c.args for x in a.walk() if isinstance(x, ir.Call) and x.callee.startswith("cuda")]
        if not inner or any(x.callee in LAST_ERROR_CALLS for x in inner):
            return True
    return False


def _stmt_checks(st: ir.Stmt, tu, depth: int = 0, memo: Optional[dict] = None) -> bool:
    memo = memo if memo is not None else {}
    discarded = set()
    if isinstance(st, ir.ExprStmt):
        e = strip_implicit(st.expr)
        if isinstance(e, ir.Call):
            discarded.add(id(e))
        if isinstance(e, ir.Cast) and e.type.kind == "void" and isinstance(strip_implicit(e.operand), ir.Call):
            discarded.add(id(strip_implicit(e.operand)))
    for e in st.exprs():
        for x in e.walk():
            if isinstance(x, ir.Call) and _call_is_check(x, tu, depth, memo, id(x) not in discarded):
                return True
    return False


def node_calls(n) -> list[ir.Call]:
    out = []
    for e in n.exprs():
        for x in e.walk():
            if isinstance(x, ir.Call):
                out.append(x)
    return out


def _node_has_launch(n) -> bool:
    return any(isinstance(x, ir.LaunchExpr) for e in n.exprs() for x in e.walk())


def _clears_last_error(n) -> bool:
    """``cudaGetLastError();`` as a statement: reads and discards (resets) the error state."""
    st = n.stmt
    return isinstance(st, ir.ExprStmt) and isinstance(strip_implicit(st.expr), ir.Call) and \
        strip_implicit(st.expr).callee == "cudaGetLastError"


def _unchecked_path(cfg: CFG, start, tu, memo: dict, stop_at_sync: bool = True):
    """Follow every path from ``start`` (exclusive); return the first node where a path reaches
    a synchronization (when ``stop_at_sync``), a return or the end of the function without a
    last-error check, or None."""
    seen = set()
    stack = list(cfg.graph.successors(start))
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if not stop_at_sync and n.kind == "stmt" and _clears_last_error(n):
            return n
        if n.stmt is not None and n.kind not in ("branch", "loop_cond", "switch", "loop_head") and \
                _stmt_checks(n.stmt, tu, 0, memo):
            continue
        if n.kind in ("branch", "loop_cond", "switch", "loop_step") and n.expr is not None:
            fake = ir.ExprStmt(n.expr.range, n.expr)
            if _stmt_checks(fake, tu, 0, memo):
                continue
        if n.kind == EXIT or n.kind == RETURN:
            return n
        if stop_at_sync and any(c.callee in SYNC_CALLS for c in node_calls(n)):
            return n
        # The branch taken when another call has just reported an error (`CHECK(...)`'s
        # `if (e != cudaSuccess) return 1;`) is a failure being reported, not one going unnoticed.
        failing = _error_branch_label(n.expr) if n.kind == "branch" and n.expr is not None else None
        stack.extend(m for m in cfg.graph.successors(n)
                     if failing is None or cfg.graph.edges[n, m].get("label") != failing)
    return None


_ERROR_TYPES = ("cudaError_t", "cudaError", "CUresult", "cudaError_enum")


def _is_error_value(e: ir.Expr) -> bool:
    t = getattr(strip_implicit(e), "type", None) or getattr(e, "type", None)
    return t is not None and t.spelling.replace("enum ", "").strip() in _ERROR_TYPES


def _error_branch_label(cond: ir.Expr):
    """The edge label (True/False) of a branch on a CUDA error code that is taken when the code
    reports a failure (`e != cudaSuccess`, `if (e)`, `!e` negated); None for any other
    condition."""
    c = strip_implicit(cond)
    if isinstance(c, ir.BinOp) and c.op in ("!=", "=="):
        for a, b in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            bb = strip_implicit(b)
            if _is_error_value(a) and isinstance(bb, ir.Const) and bb.value == 0:
                return c.op == "!="
        return None
    if isinstance(c, ir.UnaryOp) and c.op == "!" and _is_error_value(c.operand):
        return False
    if _is_error_value(c):
        return True
    return None


def _launch_checked_inline(n, tu, memo) -> bool:
    """``CHECK((k<<<g, b>>>(x), cudaGetLastError()))`` and the like: a check in the same statement
    after the launch."""
    return _stmt_checks(n.stmt, tu, 0, memo) if n.kind not in ("branch", "loop_cond") else False


def _calls(fn: ir.Function, memo: dict) -> tuple[bool, bool]:
    """(whether ``fn`` launches a kernel, whether it calls anything), from its expression trees:
    a cheap filter before building its control-flow graph."""
    key = ("calls", id(fn))
    if key not in memo:
        launch = call = False
        for e in fn.expressions():
            for x in e.walk():
                if isinstance(x, ir.LaunchExpr):
                    launch = True
                elif isinstance(x, ir.Call):
                    call = True
        memo[key] = (launch, call)
    return memo[key]


def _call_sites(fns: list, cfg_of, memo: dict) -> tuple[dict, dict]:
    """Every node of ``fns`` that calls something, indexed once per file (a scan per query was
    most of this rule's time): by the id of the resolved callee and by an unresolved name.
    Values are (order, caller, cfg, node) so that a merge keeps the functions' order."""
    if "call sites" not in memo:
        by_fn: dict = {}
        by_name: dict = {}
        k = 0
        for g in fns:
            if not _calls(g, memo)[1]:
                continue  # calls nothing: cannot be a caller (its graph is not built)
            cfg = cfg_of(g)
            for n in cfg.nodes:
                seen: set = set()
                for c in node_calls(n):
                    key = ("f", id(c.function)) if c.function is not None else ("n", c.callee)
                    if key in seen:
                        continue
                    seen.add(key)
                    (by_fn.setdefault(key[1], []) if key[0] == "f" else by_name.setdefault(key[1], [])).append(
                        (k, g, cfg, n))
                k += 1
        memo["call sites"] = (by_fn, by_name)
    return memo["call sites"]


def _callers_check(fn: ir.Function, fns: list, cfg_of, tu, memo: dict, depth: int,
                   site_checks: bool = True) -> bool:
    """Whether every call of ``fn`` in the file is followed by a last-error check on every path
    (or its caller's callers are, where a path returns). ``site_checks``: a call statement that
    checks counts (a helper that reads the last error itself); False where what must be
    checked is left by ``fn`` after its own checks (a discarded call's error)."""
    if depth > 3:
        return False
    by_fn, by_name = _call_sites(fns, cfg_of, memo)
    found = {k: (g, cfg, n) for k, g, cfg, n in by_fn.get(id(fn), []) + by_name.get(fn.name, []) if g is not fn}
    sites = [found[k] for k in sorted(found)]
    if not sites:
        return False
    for g, cfg, n in sites:
        if site_checks and (_stmt_checks(n.stmt, tu, 0, memo) if n.stmt is not None and n.kind == "stmt" else False):
            continue
        bad = _unchecked_path(cfg, n, tu, memo, stop_at_sync=False)
        if bad is None:
            continue
        if bad.kind in (EXIT, RETURN) and _callers_check(g, fns, cfg_of, tu, memo, depth + 1, site_checks):
            continue
        return False
    return True


def smem_optin(tu) -> set:
    """Kernels for which the file raises the dynamic shared memory limit ('*' when unclear)."""
    out = set()
    for fn in tu.functions:
        if fn.body is None:
            continue
        for e in fn.expressions():
            if isinstance(e, ir.Call) and e.callee in ("cudaFuncSetAttribute", "cuFuncSetAttribute"):
                target = None
                if e.args:
                    for x in e.args[0].walk():
                        if isinstance(x, ir.FuncRef):
                            target = x.name
                            break
                out.add(target or "*")
    return out
