"""Memory space, scope, lifetime and size of every variable a kernel uses (seed Table 5.1).

- automatic scalar (also vectors and small structs) -> register, thread scope, kernel lifetime
- automatic array -> local, unless every access index is a compile-time constant once
  constant-trip loops are fully unrolled (then register)
- ``__shared__`` (static or ``extern``) -> shared, block scope, kernel lifetime
- ``__device__`` / ``__managed__`` -> global, grid scope, application lifetime
- ``__constant__`` -> constant, grid scope, application lifetime
- pointer parameter -> the data it points to is global (grid, application)
- scalar parameter -> constant: kernel parameters are passed in the constant bank
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

from . import ir, loops
from .launch import LaunchConfig
from .texture_calls import texture_space, uses_textures

# An automatic array bigger than this cannot stay in registers even with constant indices:
# a thread has at most 255 registers and the compiler leaves room for everything else.
MAX_REGISTER_ARRAY_WORDS = 64


@dataclass
class VariableFact:
    name: str
    line: int
    memory: str  # register | local | shared | global | constant | texture | surface
    scope: str  # thread | block | grid
    lifetime: str  # kernel | application
    bytes: Optional[int]
    storage: str
    function: str
    range: ir.SourceRange
    reason: str = ""
    assumptions: list[str] = field(default_factory=list)
    # For a local-memory array: the access whose run-time index forces it there.
    forcing_access: Optional[ir.Index] = None
    forcing_index: Optional[ir.Expr] = None
    variable: Optional[ir.Variable] = None

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "line": self.line,
            "memory": self.memory,
            "scope": self.scope,
            "lifetime": self.lifetime,
            "bytes": self.bytes,
            "storage": self.storage,
            "function": self.function,
            "reason": self.reason,
            "assumptions": list(self.assumptions),
        }


# ---------------------------------------------------------------------- walking helpers

def walk_with_loops(block: ir.Block) -> Iterator[tuple[ir.Stmt, tuple[ir.Loop, ...]]]:
    """Every statement with the loops that enclose it (outermost first)."""

    def rec(s: ir.Stmt, stack: tuple):
        yield s, stack
        if isinstance(s, ir.Block):
            for c in s.stmts:
                yield from rec(c, stack)
        elif isinstance(s, ir.Loop):
            inner = stack + (s,)
            for i in s.init:
                yield from rec(i, stack)
            yield from rec(s.body, inner)
        else:
            for b in s.child_blocks():
                yield from rec(b, stack)

    yield from rec(block, ())


def array_accesses(fn: ir.Function, var: ir.Variable) -> list[tuple[ir.Index, list[ir.Expr], tuple]]:
    """(outermost Index node, [index per dimension], enclosing loops) for each access to ``var``."""
    out = []
    if fn.body is None:
        return out
    for st, stack in walk_with_loops(fn.body):
        extra = []
        if isinstance(st, ir.Loop):  # cond/step are evaluated inside the loop
            extra = [e for e in (st.cond, st.step) if e is not None]
            stack = stack + (st,)
        for e in (st.exprs() if not isinstance(st, ir.Loop) else extra):
            inner_ids = set()
            for x in e.walk():
                if not isinstance(x, ir.Index) or id(x) in inner_ids:
                    continue
                idxs = []
                node = x
                while isinstance(node, ir.Index):
                    idxs.append(node.index)
                    inner_ids.add(id(node))
                    node = node.base
                while isinstance(node, ir.Cast):
                    node = node.operand
                if isinstance(node, ir.VarRef) and node.var is var:
                    out.append((x, list(reversed(idxs)), stack))
    return out


def address_escapes(fn: ir.Function, var: ir.Variable, _depth: int = 0,
                    constness: Optional["_Constness"] = None) -> Optional[ir.Expr]:
    """An expression that uses the array as a pointer (passed to a call, pointer arithmetic,
    address taken): the compiler must then give it an address, i.e. local memory, unless it
    can inline and resolve everything. A reference to the whole array handed to a device
    function (``fill(T (&R)[M][N])``) does not count when that function indexes it only with
    constants after unrolling and lets it go nowhere else: nvcc inlines device functions, and
    the accesses become constant-indexed accesses to the array itself (LeetCUDA's flash-attn
    fill_2D_regs on its register tiles). Nor does the address of one element read or written
    at once through a pointer of another type (see :class:`_ElementPuns`)."""
    puns = None
    for e in fn.expressions():
        if isinstance(e, ir.Call):
            for i, a in enumerate(e.args):
                base = a
                while isinstance(base, ir.Cast):
                    base = base.operand
                if isinstance(base, ir.VarRef) and base.var is var:
                    if not _resolved_by_reference(e, i, _depth):
                        return e
        if isinstance(e, ir.UnaryOp) and e.op == "&":
            base = e.operand
            while isinstance(base, (ir.Index, ir.Member)):
                base = base.base
            if isinstance(base, ir.VarRef) and base.var is var:
                if puns is None:
                    puns = _ElementPuns(fn, constness)
                if not puns.resolved(e):
                    return e
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            for side in (e.lhs, e.rhs):
                if isinstance(side, ir.VarRef) and side.var is var:
                    return e
    return None


def _resolved_by_reference(call: ir.Call, i: int, depth: int) -> bool:
    """Argument ``i`` of ``call`` binds a reference parameter of a device function in the IR
    that indexes it only with compile-time constants (after unrolling) and does not use it as a
    pointer: inlined, its accesses are constant-indexed accesses to the caller's array."""
    callee = call.function
    if callee is None or callee.body is None or depth > 4 or i >= len(callee.params):
        return False
    p = callee.params[i]
    if not p.is_reference or p.type.kind != "array":
        return False
    c = _Constness(callee)
    if any(c.why_not(ie, stack) is not None for _, idxs, stack in array_accesses(callee, p) for ie in idxs):
        return False
    return address_escapes(callee, p, depth + 1) is None


class _ElementPuns:
    """Addresses of single elements used only to read or write that place as another type:
    ``reinterpret_cast<half2 *>(&R[i][j])[0]`` (LeetCUDA's HALF2/LDST128BITS macros) or
    ``half *h = reinterpret_cast<half *>(&R[0][j][0]); ... h[1]``, with indices that are
    compile-time constants after unrolling. After inlining and unrolling every such access is
    at a constant byte offset of the array, which the compiler's scalar replacement turns into
    registers (nvcc 13, sm_90: 0 bytes stack frame for both forms; tests/test_reference_arrays).
    The array's own indices are checked by :func:`classify_variable` before this is asked."""

    def __init__(self, fn: ir.Function, constness: Optional["_Constness"] = None):
        self.fn = fn
        self.c = constness or _Constness(fn)  # the caller's, where it has one
        self.parent: dict = {}
        for x in fn.expressions():
            for ch in x.children():
                if ch is not None:
                    self.parent[id(ch)] = x
        self.decl_of: dict = {}  # id(init expression) -> the pointer variable it initialises
        for st in fn.statements():
            if isinstance(st, ir.DeclStmt) and st.init is not None:
                self.decl_of[id(st.init)] = st.var

    def _constant(self, e: ir.Expr) -> bool:
        return self.c.why_not(e, ()) is None

    def _deref(self, node: ir.Expr) -> bool:
        """``node`` (a pointer) is dereferenced at once: ``node[const]`` or ``*node``."""
        p = self.parent.get(id(node))
        if isinstance(p, ir.Index) and p.base is node:
            return self._constant(p.index)
        return isinstance(p, ir.UnaryOp) and p.op == "*"

    def resolved(self, amp: ir.UnaryOp) -> bool:
        if isinstance(amp.operand, ir.VarRef):
            return False  # the whole array's address: a pointer to it
        top = amp
        while isinstance(self.parent.get(id(top)), ir.Cast):
            top = self.parent[id(top)]
        if self._deref(top):
            return True
        q = self.decl_of.get(id(top))
        if q is None or q.type.kind != "pointer" or q.file_scope:
            return False
        uses = [x for x in self.fn.expressions() if isinstance(x, ir.VarRef) and x.var is q]
        return bool(uses) and len(self.c.defs.get(q, [])) == 1 and all(self._deref(u) for u in uses)


_IN_PROGRESS = object()


class _Constness:
    """Decides whether an index is a compile-time constant after full unrolling."""

    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.defs: dict = {}
        for st in fn.statements():
            if isinstance(st, ir.DeclStmt):
                self.defs.setdefault(st.var, []).append(st.init)
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, ir.Assign) and isinstance(x.target, ir.VarRef):
                        self.defs.setdefault(x.target.var, []).append(
                            x.value if x.op == "=" else None)
                    elif isinstance(x, ir.UnaryOp) and x.op.endswith(("++", "--")) and \
                            isinstance(x.operand, ir.VarRef):
                        self.defs.setdefault(x.operand.var, []).append(None)
        self.declared = {st.var for st in fn.statements() if isinstance(st, ir.DeclStmt)}
        self.unseen: set = set()  # index variables declared where the IR does not reach
        self.inductions: dict = {}
        for st in fn.statements():
            if isinstance(st, ir.Loop):
                ind = loops.induction(st)
                if ind is not None:
                    self.inductions[ind.var] = (st, ind)
        self._memo: dict = {}

    def why_not(self, e: ir.Expr, loops_in_scope: tuple, depth: int = 0) -> Optional[tuple[str, ir.Expr]]:
        """None when ``e`` is constant after unrolling; else (reason, offending sub-expression)."""
        if depth > 20:
            return ("is too complex to resolve", e)
        for x in e.walk():
            if isinstance(x, ir.Builtin):
                if x.name == "warpSize":
                    continue
                return (f"depends on {x.name}.{x.component}", x)
            if isinstance(x, ir.Index):
                return ("is a value read from memory", x)
            if isinstance(x, ir.Call) and not _pure_math(x.callee):
                return (f"is the result of a call to {x.callee}()", x)
            if isinstance(x, ir.VarRef):
                v = x.var
                if v.storage == "param":
                    return (f"depends on the kernel parameter `{v.name}`", x)
                if v.file_scope:
                    if v.type.is_const and v.storage in ("static", "host"):
                        continue
                    return (f"depends on the variable `{v.name}` in {v.storage} memory", x)
                if v not in self.declared and v.storage == "auto":
                    # declared in code the IR does not model (a lambda's body): its loop is not
                    # visible, so it proves nothing; said in the array's assumptions
                    self.unseen.add(v)
                    continue
                if v in self.inductions:
                    loop, ind = self.inductions[v]
                    if loops.fully_unrolled(loop, ind):
                        continue
                    if ind.trip_count is None and loop.unroll != 1 and \
                            _compile_time(ind.start_expr) and _compile_time(ind.bound_expr):
                        continue  # bounds are template parameters: constant per instantiation
                    if ind.trip_count is None:
                        return (f"depends on the loop counter `{v.name}`, whose trip count is not "
                                "a compile-time constant", x)
                    return (f"depends on the loop counter `{v.name}` of a loop that is not fully "
                            "unrolled (#pragma unroll 1 or a partial count)", x)
                r = self._variable(v, loops_in_scope, depth)
                if r is not None:
                    return (f"depends on `{v.name}`, which {r[0]}", r[1] if depth else x)
        return None

    def _variable(self, v: ir.Variable, loops_in_scope: tuple, depth: int):
        """Memoised: why a local variable is not a compile-time constant (None if it is).
        A variable defined in terms of itself is loop-carried, i.e. a run-time value."""
        if v in self._memo:
            r = self._memo[v]
            return ("is updated from its own previous value", None) if r is _IN_PROGRESS else r
        self._memo[v] = _IN_PROGRESS
        defs = self.defs.get(v, [])
        result = None
        if not defs or any(d is None for d in defs):
            result = ("changes at run time", None)
        else:
            for d in defs:
                r = self.why_not(d, loops_in_scope, depth + 1)
                if r is not None:
                    result = r
                    break
        self._memo[v] = result
        return result


def _compile_time(e: Optional[ir.Expr]) -> bool:
    """Built only from literals, sizeof and template parameters (fixed per instantiation)."""
    if e is None:
        return False
    return all(isinstance(x, (ir.Const, ir.TemplateParam, ir.SizeOf, ir.BinOp, ir.UnaryOp, ir.Cast))
               for x in e.walk())


def _pure_math(name: str) -> bool:
    return name in ("min", "max", "abs", "std::min", "std::max")


def _unroll_notes(fn: ir.Function, idx_exprs: list[ir.Expr], c: _Constness) -> list[str]:
    notes = []
    for e in idx_exprs:
        for x in e.walk():
            if isinstance(x, ir.VarRef) and x.var in c.inductions:
                loop, ind = c.inductions[x.var]
                note = (f"assumes the compiler fully unrolls the loop at line {loop.range.line} "
                        f"({ind.trip_count} iterations)")
                if loop.unroll is None:
                    note += "; add `#pragma unroll` to guarantee it"
                if note not in notes:
                    notes.append(note)
    return notes


# ---------------------------------------------------------------------- classification

def classify_variable(v: ir.Variable, fn: ir.Function, launch: Optional[LaunchConfig],
                      constness: Optional[_Constness] = None) -> VariableFact:
    t = v.type
    line = v.range.line
    base = dict(name=v.name, line=line, storage=v.storage, function=fn.display_name, range=v.range,
                variable=v)
    tex = texture_space(t.spelling)
    if tex and not t.is_pointer and not t.is_array and (v.storage == "param" or v.file_scope):
        # The handle is 8 bytes in the constant bank (a parameter) or a file-scope reference;
        # what it names is read through the texture cache (written, for a surface, by sust).
        return VariableFact(memory=tex, scope="grid", lifetime="application", bytes=t.size,
                            reason=f"{tex} {'reference' if v.file_scope else 'object'}: the {tex} "
                                   f"memory it names is off-chip, cached in the texture cache",
                            **base)
    if v.storage == "param":
        if t.is_pointer:
            return VariableFact(memory="global", scope="grid", lifetime="application", bytes=None,
                                reason="pointer parameter: the data it points to is in global memory",
                                **base)
        return VariableFact(memory="constant", scope="grid", lifetime="kernel", bytes=t.size,
                            reason="kernel parameters are passed in the constant bank", **base)
    if v.storage in ("shared", "extern_shared"):
        facts = VariableFact(memory="shared", scope="block", lifetime="kernel", bytes=t.size,
                             reason="__shared__ variable", **base)
        if v.storage == "extern_shared":
            facts.reason = "extern __shared__ array, sized by the launch's dynamic shared memory"
            facts.bytes = launch.dynamic_smem if launch is not None else None
            if launch is None or launch.dynamic_smem is None:
                facts.assumptions.append("size is the launch's dynamic shared memory, unknown here")
        return facts
    if v.storage == "constant":
        return VariableFact(memory="constant", scope="grid", lifetime="application", bytes=t.size,
                            reason="__constant__ variable", **base)
    if v.storage in ("device", "managed"):
        return VariableFact(memory="global", scope="grid", lifetime="application", bytes=t.size,
                            reason=f"__{v.storage}__ variable", **base)
    if v.storage in ("static", "host"):
        return VariableFact(memory="global", scope="grid", lifetime="application", bytes=t.size,
                            reason="static variable", **base)
    # automatic variables
    if v.is_reference:
        return VariableFact(memory="register", scope="thread", lifetime="kernel", bytes=8,
                            reason="reference (an address held in a register)", **base)
    if not t.is_array:
        return VariableFact(memory="register", scope="thread", lifetime="kernel", bytes=t.size,
                            reason="automatic scalar variable", **base)
    c = constness or _Constness(fn)
    accesses = array_accesses(fn, v)
    words = (t.size or 0) // 4
    for node, idxs, stack in accesses:
        for ie in idxs:
            r = c.why_not(ie, stack)
            if r is not None:
                small = ["nvcc keeps arrays of up to 32 words in registers even when indexed at run "
                         "time (select chains; measured with nvcc 13 on sm_90): ptxas decides"] \
                    if t.size is not None and t.size <= 128 else []
                return VariableFact(memory="local", scope="thread", lifetime="kernel", bytes=t.size,
                                    reason=f"automatic array indexed at run time: the index {r[0]}",
                                    assumptions=small, forcing_access=node, forcing_index=ie, **base)
    esc = address_escapes(fn, v, constness=c)
    if esc is not None:
        return VariableFact(memory="local", scope="thread", lifetime="kernel", bytes=t.size,
                            reason="automatic array whose address is used as a pointer",
                            assumptions=["the compiler may still keep it in registers if it inlines "
                                         "and resolves every access"],
                            forcing_access=None, forcing_index=None, **base)
    notes = _unroll_notes(fn, [ie for _, idxs, _ in accesses for ie in idxs], c)
    hidden = sorted({x.var.name for _, idxs, _ in accesses for ie in idxs for x in ie.walk()
                     if isinstance(x, ir.VarRef) and x.var in c.unseen})
    if hidden:
        notes.append("indexed by " + ", ".join(f"`{n}`" for n in hidden) + ", declared in code "
                     "cudalint does not model (a lambda): assumed to be a counter of a loop the "
                     "compiler unrolls")
    if words > MAX_REGISTER_ARRAY_WORDS:
        # ptxas keeps even 120-word arrays in registers when it can (ground truth
        # occ_regs_heavy); only register pressure pushes them out, which we cannot know.
        notes.append(f"a {words}-word array: ptxas may move it to local memory under register "
                     "pressure (a thread has at most 255 registers)")
    return VariableFact(memory="register", scope="thread", lifetime="kernel", bytes=t.size,
                        reason="automatic array with only compile-time-constant indices "
                               "(after unrolling)", assumptions=notes, **base)


def kernel_variables(kernel: ir.Function, launch: Optional[LaunchConfig]) -> list[VariableFact]:
    """Every variable the kernel uses: parameters, locals, locals of called device functions,
    and file-scope variables touched by any of them."""
    out: list[VariableFact] = []
    seen_globals: set = set()
    seen_fns: set = set()

    def visit(fn: ir.Function, top: bool):
        if id(fn) in seen_fns:
            return
        seen_fns.add(id(fn))
        c = _Constness(fn)
        if top:
            for p in fn.params:
                out.append(classify_variable(p, fn, launch, c))
        for v in fn.locals:
            out.append(classify_variable(v, fn, launch, c))
        for g in fn.globals_used:
            if g not in seen_globals:
                seen_globals.add(g)
                out.append(classify_variable(g, fn, launch, c))
        for callee in fn.callees:
            visit(callee, False)

    visit(kernel, True)
    # Legacy texture/surface references are host variables to clang: listed from their fetches.
    for tc in uses_textures(kernel):
        v = tc.object_var
        if tc.legacy and v is not None and v.file_scope and v not in seen_globals:
            seen_globals.add(v)
            out.append(classify_variable(v, kernel, launch))
    return out
