"""Which values and conditions are the same for every thread of a block, and which split warps.

**Block uniformity** (static, a divergence analysis on the CFG of ``analyzer/cfg.py``):

- ``threadIdx`` is divergent; ``blockIdx``, ``blockDim``, ``gridDim``, ``warpSize``, constants,
  template arguments and kernel parameters are uniform;
- a value read from memory is uniform when its address is (``s_flag``, ``tile[0][k]``,
  ``params[blockIdx.x]``), divergent otherwise (``in[i]`` with ``i`` per thread); per-thread
  arrays are divergent once anything divergent is stored in them;
- atomics, shuffles, votes, ``clock()`` and random numbers are divergent; ``__syncthreads_or/
  _and/_count`` return the same value to every thread; so does a full-warp vote
  (``__all_sync(0xffffffff, v)``, ``__any_sync``, ``__ballot_sync``, ``__reduce_*_sync``) of a
  value that is the same at each lane of every warp (see *per lane* below);
- a variable is divergent if a definition assigns it a divergent value, or if a definition made
  under a divergent condition meets other threads' values at a join: it is used somewhere that
  divergent condition does not control. A definition after an early ``return`` of some threads
  (``if (i >= n) return; int s = blockDim.x / 2;``) stays uniform: the threads that left never
  read it. A loop counter is uniform when the loop's start, step and exits are (``for (s =
  blockDim.x/2; s > 0; s >>= 1)``), divergent once some threads can leave early.

**Per lane**: a value can differ between the lanes of a warp and yet be the same at lane l of
every warp: the lane index (``threadIdx.x % 32`` where the block's rows are whole warps or
divide one), a shared element it indexes (``buf[tid % 32]``, read by every warp alike), shuffles
of such values. The block-wide all-reduce ``if (lane == 0) buf[warp] = v; __syncthreads();
v = __all_sync(FULL, buf[lane]);`` gives every warp the same answer, so a ``break`` on it keeps
the whole block together (ggml's ``flash_attn_mask_to_KV_max``). A twin analysis decides it:
the same fixed point with the lane index taken as uniform (``_per_lane``).

A barrier is *divergent* when it is control dependent (transitively) on a divergent decision:
inside a thread-dependent ``if``, in a loop with a per-thread trip count, or after a
thread-dependent ``return``/``break``.

**Warp uniformity** is decided concretely for the launch (``warp_divergence``): the kernel is
run for the launch's blocks by the per-thread interpreter of ``analyzer/simt.py`` and every
``if`` records, per execution, how many warps had active threads on both sides.
``threadIdx.x / 32 == 0`` splits none, ``threadIdx.x % 2`` splits every warp, and a boundary
check ``i < n`` splits exactly the warps that straddle ``n`` (2,000 elements in 512-thread
blocks: one warp, threads 1984..2015).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import constprop, ir
from .coop_groups import group_kind
from .cfg import BLOCK_BARRIER_CALLS, BRANCH, CFG, LOOP_COND, SWITCH, Node, is_grid_sync
from .digraph import dfs_postorder_nodes
from .simt import branch_divergence
from .simt_log import sample_blocks

# Calls whose result differs between the threads of a block.
DIVERGENT_CALLS_PREFIX = ("atomic", "__atomic", "__shfl", "__ballot", "__any", "__all", "__match",
                          "__reduce_", "curand", "__activemask", "__lanemask", "clock",
                          "__nv_atomic")
DIVERGENT_CALLS = {"clock", "clock64", "__clock", "globaltimer", "__lane_id", "laneid",
                   "thread_rank", "thread_index", "rand", "random", "__nanosleep", "atomicCAS",
                   "atomicExch", "lane_id", "__shfl_sync", "__vote_sync", "__isGlobal",
                   "__isShared", "cuda::atomic_ref"}
# Full-warp votes and reductions: one answer for every lane of the warp, so the same for every
# warp when each lane's argument is the same in every warp.
WARP_VOTES = {"__all_sync", "__any_sync", "__ballot_sync", "__uni_sync", "__reduce_add_sync",
              "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",
              "__reduce_xor_sync"}
# Shuffles: lane l reads another lane of its own warp, chosen alike in every warp.
WARP_SHUFFLES = {"__shfl_sync", "__shfl_xor_sync", "__shfl_down_sync", "__shfl_up_sync"}
FULL_MASKS = {0xFFFFFFFF, -1}
# ... and those that return the same value to every thread of the block.
BLOCK_UNIFORM_CALLS = {"__syncthreads_or", "__syncthreads_and", "__syncthreads_count",
                       "group_index", "dim_threads", "num_threads", "size", "dim_blocks",
                       "block_index", "block_rank", "num_blocks"}


@dataclass(eq=False)
class _Def:
    var: object  # ir.Variable
    node: Node
    value: Optional[ir.Expr]  # None: the value is not modelled (treated as divergent)
    extra: tuple = ()  # other expressions the definition depends on (an array store's index)
    #: A whole-variable assignment (``x = ...``, ``x += ...``, ``x++``, a declaration): it
    #: replaces every earlier definition. Element/member stores and writes through ``&x``
    #: only add to them.
    strong: bool = False
    bit: int = 0
    #: ``p.y = ...``: the members written (("y",)), so that reading ``p.x`` does not depend
    #: on it; None for a whole-variable or element write
    member: Optional[tuple] = None


class Uniformity:
    """Block-uniformity of the values and decisions of one function."""

    def __init__(self, fn: ir.Function, cfg: Optional[CFG] = None, _callees: Optional[dict] = None,
                 divergent_params: frozenset = frozenset(), block_params: Optional[dict] = None,
                 block: Optional[tuple] = None, lane_params: frozenset = frozenset(),
                 _per_lane: bool = False, known_block: Optional[tuple] = None,
                 known_params: Optional[dict] = None):
        self.fn = fn
        #: the block and the integer parameter values (name -> int) that every launch of the
        #: kernel has (or the command line gives): ``i < n`` with ``i = threadIdx.x + k *
        #: blockDim.x`` is the same for the whole block when n is a multiple of blockDim.x
        self._known_block = tuple(known_block) if known_block is not None else None
        self._known_params = dict(known_params or {})
        #: the launch's block, if known: whether ``threadIdx.x % 32`` is the lane index
        self._block = tuple(block) if block is not None else None
        #: this instance judges "the same at each lane of every warp" (the lane index uniform)
        self._per_lane = _per_lane
        #: parameters (among ``divergent_params``) whose values the caller passes are the same
        #: at each lane of every warp: divergent here, uniform in the per-lane twin
        self._lane_params = frozenset(lane_params)
        self._twin: Optional["Uniformity"] = None
        #: kernel parameters that every launch passes the block's size in (parameter name ->
        #: component: ``k<<<g, n>>>(..., n)``): ``threadIdx.x >= n`` is then false for every thread
        self._block_params = dict(block_params or {})
        self.cfg = cfg or CFG(fn)
        self._callee_cache = _callees if _callees is not None else {}
        if _per_lane:
            divergent_params = frozenset(divergent_params) - self._lane_params
        #: parameters (by position) that the caller passes thread-dependent values in (a device
        #: function analysed for one call); a kernel's parameters are the same for every thread
        self._seeded = {fn.params[i] for i in divergent_params if i < len(fn.params)}
        self.divergent_vars: set = set()
        self.divergent_decisions: set = set()
        self.reasons: dict = {}  # var or node -> why divergent (text)
        self._defs: list[_Def] = []
        self._index_memo: dict = {}  # _thread_index / _block_dim answers
        self._uses: dict = {}  # var -> set of nodes
        #: references bound to memory (``int& next = l_mem[0];``): the variable *is* that
        #: memory, so reading it is a load at the bound address, and writing it a store
        self._refs: dict = {}
        self._ctrl: dict = {}  # node -> the decisions controlling it
        self._ahead: Optional[set] = None  # nodes from which a block barrier is reachable
        self._collect()
        self._solve()

    # ------------------------------------------------------------------ collection
    def _collect(self) -> None:
        for p in self._seeded:  # set on entry to what the caller passes
            self._defs.append(_Def(p, self.cfg.entry, None, strong=True))
        for n in self.cfg.nodes:
            st = n.stmt
            if n.kind == "stmt" and isinstance(st, ir.DeclStmt) and st.init is not None and \
                    st.var.storage in ("auto", "param"):
                if _is_memory_reference(st.var, st.init):
                    self._refs[st.var] = st.init
                    for e in n.exprs():
                        self._scan(e, n)
                    continue
                self._defs.append(_Def(st.var, n, st.init, strong=True))
            for e in n.exprs():
                self._scan(e, n)

    def _scan(self, e: ir.Expr, n: Node) -> None:
        targets = set()
        for x in e.walk():
            if isinstance(x, ir.Assign):
                root, idx = _root(x.target)
                if root is not None and root in self._refs:
                    root = None  # a store through a reference to memory
                if root is not None:
                    val = x.value if x.op == "=" else ir.BinOp(x.range, x.type, x.op[:-1], x.target, x.value)
                    whole = isinstance(_strip(x.target), ir.VarRef)
                    self._defs.append(_Def(root, n, val, tuple(idx), strong=whole,
                                           member=_member_path(x.target)))
                    if isinstance(x.target, ir.VarRef) and x.op == "=":
                        targets.add(id(x.target))
            elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--"):
                root, idx = _root(x.operand)
                if root is not None:
                    self._defs.append(_Def(root, n, x.operand, tuple(idx),
                                           strong=isinstance(_strip(x.operand), ir.VarRef),
                                           member=_member_path(x.operand)))
            elif isinstance(x, ir.Call):
                for a in x.args:
                    if isinstance(a, ir.UnaryOp) and a.op == "&":
                        root, idx = _root(a.operand)
                        if root is not None and not _is_memory(root):
                            # written through the pointer by the callee: as divergent as the call
                            self._defs.append(_Def(root, n, x, tuple(idx)))
                    elif isinstance(a, ir.VarRef) and a.var.type.kind == "array" and not _is_memory(a.var):
                        self._defs.append(_Def(a.var, n, x, ()))
            elif isinstance(x, ir.VarRef) and id(x) not in targets:
                self._uses.setdefault(x.var, set()).add(n)

    # ------------------------------------------------------------------ reaching definitions
    def _reaching(self) -> None:
        """Which definitions reach each node (bit sets over ``self._defs``): a variable reused
        for two loops (``for (j = tid; ...)`` then ``for (j = 16; j > 0; j /= 2)``) is judged
        by the definitions that can reach each use, not by every assignment in the function."""
        by_var: dict = {}
        for i, d in enumerate(self._defs):
            d.bit = 1 << i
            by_var[d.var] = by_var.get(d.var, 0) | d.bit
        self._var_bits = by_var
        gen: dict = {}
        kill: dict = {}
        for d in self._defs:
            gen[d.node] = gen.get(d.node, 0) | d.bit
            if d.strong:
                kill[d.node] = kill.get(d.node, 0) | by_var[d.var]
        g = self.cfg.graph
        reach_in = {n: 0 for n in g.nodes}
        out = {n: gen.get(n, 0) for n in g.nodes}
        # The least fixed point does not depend on the order nodes are visited in; visiting
        # them in reverse postorder from the entry (the stack pops them in that order) lets a
        # definition flow down a whole loop body in one sweep instead of one node per sweep,
        # and the predecessor lists are read once (not through the graph at every visit).
        preds = {n: list(g.predecessors(n)) for n in g.nodes}
        succs = {n: list(g.successors(n)) for n in g.nodes}
        entry = getattr(self.cfg, "entry", None)
        rpo = list(reversed(list(dfs_postorder_nodes(g, entry)))) if entry in g else []
        seen = set(rpo)
        work = [n for n in g.nodes if n not in seen][::-1] + rpo[::-1]
        queued = set(work)
        while work:
            n = work.pop()
            queued.discard(n)
            i = 0
            for p in preds[n]:
                i |= out[p]
            reach_in[n] = i
            o = gen.get(n, 0) | (i & ~kill.get(n, 0))
            if o != out[n]:
                out[n] = o
                for m in succs[n]:
                    if m not in queued:
                        queued.add(m)
                        work.append(m)
        # a use inside the defining node (``j /= 2``, ``x = x + 1``) sees the older values and,
        # conservatively, the node's own definitions
        self._reach = {n: reach_in[n] | gen.get(n, 0) for n in g.nodes}

    # ------------------------------------------------------------------ fixed point
    def _solve(self) -> None:
        self._reaching()
        self._div_bits = 0
        self._def_reason: dict = {}  # def bit -> why
        decisions = [n for n in self.cfg.nodes if n.kind in (BRANCH, LOOP_COND, SWITCH) and n.expr is not None]
        controlling = {}
        for d in self._defs:
            if d.node not in controlling:
                controlling[d.node] = self.cfg.controlling_decisions(d.node)
        use_ctrl: dict = {}
        changed = True
        guard = 0
        while changed and guard < 200:
            guard += 1
            changed = False
            for dn in decisions:
                if dn in self.divergent_decisions:
                    continue
                why = self.why_divergent(dn.expr, dn)
                if why is not None:
                    self.divergent_decisions.add(dn)
                    self.reasons[dn] = why
                    changed = True
            for d in self._defs:
                if self._div_bits & d.bit:
                    continue
                v = d.var
                why = None
                if d.value is None:
                    why = ("is passed a thread-dependent value" if d.node is self.cfg.entry and v in self._seeded
                           else "is assigned a value the analysis does not model")
                else:
                    w = self._why(d.value, 0, d.node)
                    if w is None:
                        for x in d.extra:
                            w = self._why(x, 0, d.node)
                            if w is not None:
                                break
                    if w is not None:
                        why = w[1]
                if why is None:
                    divs = controlling[d.node] & self.divergent_decisions
                    for dec in divs:
                        for u in self._uses.get(v, ()):
                            if not self._reach.get(u, 0) & d.bit:
                                continue  # this definition never gets there
                            if u not in use_ctrl:
                                use_ctrl[u] = self.cfg.controlling_decisions(u)
                            if (dec not in use_ctrl[u] and u is not dec) or u is dec:
                                why = f"is assigned under the thread-dependent condition at line {dec.line}"
                                break
                        if why:
                            break
                if why is not None:
                    self._div_bits |= d.bit
                    self._def_reason[d.bit] = why
                    if v not in self.divergent_vars:
                        self.divergent_vars.add(v)
                        self.reasons[v] = why
                    changed = True

    def _var_divergence(self, v, at: Optional[Node]) -> Optional[str]:
        """Why ``v`` differs between threads where it is read at node ``at`` (any node when
        ``at`` is None), or None."""
        bits = self._reaching_bits(v, at) & self._div_bits
        if not bits:
            return None
        low = bits & -bits
        return self._def_reason.get(low) or self.reasons.get(v, "differs between threads")

    def _member_divergence(self, v, path: tuple, at: Optional[Node]) -> Optional[str]:
        """As :meth:`_var_divergence` for the member ``v.path``: the definitions that write
        other members (``p.x = threadIdx.x`` for a read of ``p.y``) do not count."""
        bits = self._reaching_bits(v, at) & self._div_bits
        while bits:
            low = bits & -bits
            bits ^= low
            d = self._def_of_bit(low)
            if d.member is None or d.member[:len(path)] == path[:len(d.member)]:
                return self._def_reason.get(low) or self.reasons.get(v, "differs between threads")
        return None

    def _def_of_bit(self, bit: int) -> _Def:
        return self._defs[bit.bit_length() - 1]

    # ------------------------------------------------------------------ queries
    def is_uniform(self, e: Optional[ir.Expr], at: Optional[Node] = None) -> bool:
        return e is None or self.why_divergent(e, at) is None

    def why_divergent(self, e: ir.Expr, at: Optional[Node] = None) -> Optional[str]:
        """None when ``e`` is block-uniform; else why not, as a phrase completing "it ...":
        "depends on threadIdx.x", "depends on `i`, which depends on threadIdx.x". ``at`` is the
        node that evaluates ``e`` (found from the CFG when not given): the variables are judged
        by the definitions that reach it."""
        if at is None:
            at = self.cfg.node_of_expr(e)
        r = self._why(e, 0, at)
        if r is None:
            return None
        via, root = r
        return f"depends on `{via}`, which {root}" if via else root

    def _why(self, e: ir.Expr, depth: int, at: Optional[Node] = None) -> Optional[tuple]:
        """(the divergent variable it goes through or None, the root cause) or None."""
        if depth > 60:
            return (None, "is too complex to analyse")
        d = depth + 1
        if isinstance(e, ir.Builtin):
            if e.name == "threadIdx":
                return (None, f"depends on threadIdx.{e.component}")
            return None
        if isinstance(e, (ir.Const, ir.SizeOf, ir.TemplateParam, ir.FuncRef)):
            return None
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.storage == "builtin":
                return None
            if v in self._refs:
                r = self._why(self._refs[v], d, at)
                if r is None:
                    return None
                root = r[1]
                if root.startswith("depends on "):
                    root = "is read from memory at an address that " + root
                return (v.name, root)
            why = self._var_divergence(v, at) if v in self.divergent_vars else None
            return (v.name, why) if why is not None else None
        if isinstance(e, ir.Index):
            r = self._why(e.index, d, at)
            if r is not None:
                root = r[1]
                if root.startswith("depends on "):
                    root = "is read from memory at an address that " + root
                return (r[0], root)
            return self._why(e.base, d, at)
        if isinstance(e, ir.Member):
            path = _member_path(e)
            base = _strip(e.base)
            while isinstance(base, ir.Member):
                base = _strip(base.base)
            if path and isinstance(base, ir.VarRef) and base.var in self.divergent_vars and \
                    base.var not in self._refs:
                why = self._member_divergence(base.var, path, at)
                return (f"{base.var.name}.{'.'.join(path)}", why) if why is not None else None
            return self._why(e.base, d, at)
        if isinstance(e, ir.Call):
            return self._why_call(e, d, at)
        if isinstance(e, ir.Unknown):
            if "threadIdx" in e.text or "laneid" in e.text:
                return (None, "depends on threadIdx")
        if isinstance(e, ir.Assign):
            return self._why(e.value, d, at)
        if self._per_lane and isinstance(e, ir.BinOp) and self._is_lane(e, at):
            return None
        if isinstance(e, ir.BinOp) and e.op == "/" and self._block_quotient(e, at):
            return None
        if isinstance(e, ir.BinOp) and self._thread_vs_block(e, at):
            return None
        if isinstance(e, ir.BinOp) and self._strided_vs_multiple(e, at):
            return None
        for c in e.children():
            if c is None:
                continue
            r = self._why(c, d, at)
            if r is not None:
                return r
        return None

    # -------------------------------------------------- threads striding by the block size
    # ``i / blockDim.x`` is the same for every thread of a block when ``i = threadIdx.x +
    # k*blockDim.x`` with k >= 0 the same for all of them (``i = blockIdx.x*blockDim.x +
    # threadIdx.x``; ``for (i = threadIdx.x; ...; i += blockDim.x)``): 0 <= threadIdx.x <
    # blockDim.x, so the quotient is k. Loops written ``((i / blockDim.x) * blockDim.x < n)``
    # keep every thread for the same trip count precisely so that a barrier inside is safe.

    def _block_quotient(self, e: ir.BinOp, at: Optional[Node]) -> bool:
        comp = self._block_dim(e.rhs, at, 0)
        return comp is not None and self._strided(e.lhs, comp, at, 0, None)

    def _reaching_bits(self, v, at: Optional[Node]) -> int:
        """The definitions of ``v`` that reach node ``at`` (all of them when ``at`` is None)."""
        bits = self._var_bits.get(v, 0)
        return bits & self._reach.get(at, 0) if at is not None else bits

    def _reaching_defs(self, v, at: Optional[Node]) -> list:
        bits = self._reaching_bits(v, at)
        out = []
        while bits:  # in the order of self._defs, reading only the bits that are set
            low = bits & -bits
            bits ^= low
            out.append(self._def_of_bit(low))
        return out

    def _plain_defs(self, v, at: Optional[Node]) -> Optional[list]:
        """The whole-variable definitions of local ``v`` that reach ``at``, or None when some
        write is partial, not modelled, or ``v`` is not a plain local."""
        if v.storage not in ("auto",) or v in self._refs:
            return None
        defs = self._reaching_defs(v, at)
        if not defs or any(not d.strong or d.value is None or d.extra for d in defs):
            return None
        for d in defs:  # made by only some threads (under a divergent condition): k differs
            ctrl = self._ctrl.get(d.node)
            if ctrl is None:
                ctrl = self._ctrl[d.node] = self.cfg.controlling_decisions(d.node)
            if ctrl & self.divergent_decisions:
                return None
        return defs

    def _block_dim(self, e: ir.Expr, at: Optional[Node], depth: int) -> Optional[str]:
        """The component c when ``e`` is ``blockDim.c`` (or a local every reaching definition
        of which sets it to ``blockDim.c``)."""
        key = ("b", id(e), at, depth, len(self.divergent_decisions))  # as in _thread_index
        hit = self._index_memo.get(key)
        if hit is None:  # the expression is kept with its answer, so that its id stays its own
            hit = self._index_memo[key] = (e, self._block_dim_of(e, at, depth))
        return hit[1]

    def _block_dim_of(self, e: ir.Expr, at: Optional[Node], depth: int) -> Optional[str]:
        e = _strip(e)
        if isinstance(e, ir.Builtin):
            return e.component if e.name == "blockDim" and e.component in ("x", "y", "z") else None
        if isinstance(e, ir.Member) and _block_group_call(e.base) in ("group_dim", "dim_threads") \
                and e.member in "xyz":
            return e.member
        if _block_group_call(e) in ("size", "num_threads") and self._one_d_block():
            return "x"  # the block's thread count, blockDim.x when every launch is 1-D
        if isinstance(e, ir.Const) and self._known_block is not None:
            # the size every launch gives one component (`const int nTPB = 256` with blocks of
            # 256): blockDim of that component for the whole run
            hits = [c for c, n in zip("xyz", self._known_block)
                    if n and n > 1 and e.value == n and not isinstance(e.value, bool)]
            if len(hits) == 1:
                return hits[0]
        if isinstance(e, ir.VarRef) and e.var.storage == "param" and e.var.name in self._block_params \
                and e.var in self.fn.params and not self._var_bits.get(e.var, 0):
            return self._block_params[e.var.name]  # never written in the kernel
        if isinstance(e, ir.VarRef) and depth < 8:
            defs = self._plain_defs(e.var, at)
            if defs:
                comps = {self._block_dim(d.value, d.node, depth + 1) for d in defs}
                if len(comps) == 1:
                    return comps.pop()
        return None

    def _thread_index(self, e: ir.Expr, at: Optional[Node], depth: int = 0) -> Optional[str]:
        """The component c when ``e`` is ``threadIdx.c`` (or a local every reaching definition
        of which sets it to ``threadIdx.c``)."""
        # Memoised: chains of locals each defined on several paths (SHOC QTC's twelve
        # prefetched candidates, set in macro-expanded do/while(0) blocks) are otherwise
        # followed once per path combination, exponentially in the depth.
        # The answer rests on the divergent decisions found so far (a set the solver only
        # grows), so their number is part of the key.
        key = ("t", id(e), at, depth, len(self.divergent_decisions))
        hit = self._index_memo.get(key)
        if hit is None:  # the expression is kept with its answer, so that its id stays its own
            hit = self._index_memo[key] = (e, self._thread_index_of(e, at, depth))
        return hit[1]

    def _thread_index_of(self, e: ir.Expr, at: Optional[Node], depth: int) -> Optional[str]:
        e = _strip(e)
        if isinstance(e, ir.Builtin):
            return e.component if e.name == "threadIdx" and e.component in ("x", "y", "z") else None
        # cooperative groups on the thread block: `block.thread_index().c` is threadIdx.c, and
        # `block.thread_rank()` threadIdx.x where every launch has a 1-D block
        if isinstance(e, ir.Member) and _block_group_call(e.base) == "thread_index" and e.member in "xyz":
            return e.member
        if _block_group_call(e) == "thread_rank" and self._one_d_block():
            return "x"
        if isinstance(e, ir.VarRef) and depth < 8:
            defs = self._plain_defs(e.var, at)
            if defs:
                comps = {self._thread_index(d.value, d.node, depth + 1) for d in defs}
                if len(comps) == 1:
                    return comps.pop()
        return None

    def _thread_vs_block(self, e: ir.BinOp, at: Optional[Node]) -> bool:
        """``threadIdx.c < blockDim.c`` (or ``>=``, either way round): the same answer for every
        thread, since 0 <= threadIdx.c < blockDim.c (``if (col >= ncols) return;`` with the
        block launched ``ncols`` wide: argsort's bitonic sort)."""
        flip = {"<": ">", ">=": "<=", ">": "<", "<=": ">="}
        if e.op not in flip:
            return False
        for op, t, b in ((e.op, e.lhs, e.rhs), (flip[e.op], e.rhs, e.lhs)):
            if op in ("<", ">="):
                c = self._thread_index(t, at)
                if c is not None and self._block_dim(b, at, 0) == c:
                    return True
        return False

    def _strided_vs_multiple(self, e: ir.BinOp, at: Optional[Node]) -> bool:
        """``i < n`` (or ``>=``, either way round) with ``i = threadIdx.c + k*blockDim.c`` (k >= 0
        the same for the block) and n a multiple of blockDim.c for the launch: the block's
        threads hold the values k*B .. k*B + B-1, all below n or none, since n = m*B (the
        guarded tiled matrix product ``if (row < n && col < n) { ... __syncthreads(); ... }``
        launched n/B blocks of B wide). Only where every launch has the same block and n."""
        flip = {"<": ">", ">=": "<=", ">": "<", "<=": ">="}
        if e.op not in flip or self._known_block is None:
            return False
        for op, t, b in ((e.op, e.lhs, e.rhs), (flip[e.op], e.rhs, e.lhs)):
            if op not in ("<", ">="):
                continue
            n = self._known_int(b)
            if n is None or n < 0:
                continue
            for comp, size in zip("xyz", self._known_block):
                if size and size > 0 and n % size == 0 and self._strided(t, comp, at, 0, None):
                    return True
        return False

    def _known_int(self, e: ir.Expr) -> Optional[int]:
        """``e``'s value from constants and the kernel parameters every launch
        passes the same known value in (parameters the kernel never writes)."""
        env: dict = {}
        for x in e.walk():
            if isinstance(x, ir.VarRef):
                v = x.var
                if v.storage != "param" or v not in self.fn.params or v.name not in self._known_params \
                        or self._var_bits.get(v, 0):
                    return None
                env[v] = self._known_params[v.name]
            elif isinstance(x, (ir.Builtin, ir.Call)):
                return None
        v = constprop.evaluate(e, env)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    def _nonneg_uniform(self, e: ir.Expr, at: Optional[Node], depth: int) -> bool:
        """A block-uniform value that cannot be negative: constants >= 0, blockIdx, blockDim,
        gridDim, and sums and products of them (or locals set only to such values)."""
        e = _strip(e)
        if isinstance(e, ir.Const):
            return isinstance(e.value, int) and not isinstance(e.value, bool) and e.value >= 0
        if isinstance(e, ir.Builtin):
            return e.name in ("blockIdx", "blockDim", "gridDim")
        if isinstance(e, ir.Member) and _block_group_call(e.base) in ("group_index", "block_index"):
            return True  # blockIdx
        if isinstance(e, ir.BinOp) and e.op in ("+", "*"):
            return self._nonneg_uniform(e.lhs, at, depth + 1) and self._nonneg_uniform(e.rhs, at, depth + 1)
        if isinstance(e, ir.VarRef) and depth < 8:
            defs = self._plain_defs(e.var, at)
            return bool(defs) and all(self._nonneg_uniform(d.value, d.node, depth + 1) for d in defs)
        return False

    def _block_multiple(self, e: ir.Expr, comp: str, at: Optional[Node], depth: int) -> bool:
        """``e`` is ``u * blockDim.comp`` with u >= 0 the same for the whole block."""
        e = _strip(e)
        if self._block_dim(e, at, depth) == comp:
            return True
        if isinstance(e, ir.BinOp) and e.op == "*":
            for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                if self._block_multiple(a, comp, at, depth + 1) and self._nonneg_uniform(b, at, depth + 1):
                    return True
        if isinstance(e, ir.VarRef) and depth < 8:
            # a local set only to such products (`gridSize = g.size() * gridDim.x`)
            defs = self._plain_defs(e.var, at)
            return bool(defs) and all(self._block_multiple(d.value, comp, d.node, depth + 1) for d in defs)
        return False

    def _one_d_block(self) -> bool:
        """Every launch has the same block, and it is 1-D."""
        b = self._known_block
        return b is not None and len(b) == 3 and b[1] == 1 and b[2] == 1

    def _strided(self, e: ir.Expr, comp: str, at: Optional[Node], depth: int, var) -> bool:
        """``e`` is ``threadIdx.comp + k*blockDim.comp`` with k >= 0 the same for the whole
        block. ``var``: the local whose definition ``e`` is; its own earlier value (``i +=
        blockDim.x``) has the form by induction, given a definition that starts it."""
        e = _strip(e)
        if depth > 12:
            return False
        if isinstance(e, ir.Builtin):
            return e.name == "threadIdx" and e.component == comp
        if isinstance(e, (ir.Call, ir.Member)):
            return self._thread_index(e, at, depth) == comp  # block.thread_rank(), ...
        if isinstance(e, ir.BinOp) and e.op == "+":
            return any(self._strided(a, comp, at, depth + 1, var) and self._block_multiple(b, comp, at, depth + 1)
                       for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)))
        if isinstance(e, ir.VarRef):
            v = e.var
            if v is var:
                return True
            # the definitions reaching here, and those reaching each definition that reads v's
            # earlier value (``i += blockDim.x``): all of the form, one of them starting it
            defs = self._plain_defs(v, at)
            seen: dict = {}
            while defs:
                d = defs.pop()
                if d.bit in seen:
                    continue
                if not self._strided(d.value, comp, d.node, depth + 1, v):
                    return False
                seen[d.bit] = any(isinstance(x, ir.VarRef) and x.var is v for x in d.value.walk())
                if seen[d.bit]:
                    more = self._plain_defs(v, d.node)
                    if more is None:
                        return False
                    defs += more
            return bool(seen) and not all(seen.values())
        return False

    def _why_call(self, e: ir.Call, d: int, at: Optional[Node] = None) -> Optional[tuple]:
        name = e.callee
        short = name.split("::")[-1]
        if name in BLOCK_UNIFORM_CALLS or short in BLOCK_UNIFORM_CALLS:
            return None
        if short in WARP_VOTES and len(e.args) >= 2 and _full_mask(e.args[0]) and \
                self._lane_same(e.args[1], d, at):
            return None  # every warp votes on the same values
        if self._per_lane and short in WARP_SHUFFLES and e.args and _full_mask(e.args[0]) and \
                all(self._why(a, d, at) is None for a in e.args[1:]):
            return None  # lane l reads the same lane of its own warp in every warp
        if self._per_lane and short in ("__lane_id", "laneid") and self._lane_aligned():
            return None
        if name in DIVERGENT_CALLS or short in DIVERGENT_CALLS or name.startswith(DIVERGENT_CALLS_PREFIX):
            return (None, f"is the result of `{name}()`, which differs between threads")
        fn = e.function
        args = [(i, self._why(a, d, at)) for i, a in enumerate(e.args)]
        div = [(i, r) for i, r in args if r is not None]
        if fn is not None and fn.body is not None:
            r = self._callee_divergent(fn)
            # A thread-dependent argument makes the result thread-dependent only if the callee's
            # result depends on it: closest_point_reduction(my_dist, ...) returns
            # s_index[0] after a barrier, the same for the block. Only for arguments passed
            # by value: what a callee writes through &x or a reference is judged elsewhere.
            # Arguments the same at each lane of every warp may still give one answer for the
            # block (a warp vote on them).
            if r is not None:
                return div[0][1] if div else (None, f"is returned by `{fn.name}()`, which {r}")
            if div and _by_value_call(e, fn):
                ds = frozenset(i for i, _ in div)
                lane = frozenset(i for i in ds if self._lane_same(e.args[i], d, at))
                if self._callee_divergent(fn, ds, lane) is None:
                    return None
        return div[0][1] if div else None

    def _lane_same(self, e: ir.Expr, d: int, at: Optional[Node]) -> bool:
        """Whether ``e`` is the same at each lane of every warp (block-uniform values are)."""
        if self._per_lane:
            return self._why(e, d, at) is None
        if not self._lane_aligned():
            return False
        if self._twin is None:
            seeded = frozenset(i for i, p in enumerate(self.fn.params) if p in self._seeded)
            self._twin = Uniformity(self.fn, self.cfg, self._callee_cache, seeded, self._block_params,
                                    self._block, self._lane_params, _per_lane=True,
                                    known_block=self._known_block, known_params=self._known_params)
        if at is None:
            at = self.cfg.node_of_expr(e)
        return self._twin._why(e, d, at) is None

    def _lane_aligned(self) -> bool:
        """Whether warps are alike: ``threadIdx.x % 32`` is the lane index, or a fixed
        function of it, in every warp (1-D blocks, or rows of a multiple or divisor of 32
        threads). Unknown blocks are not assumed to be."""
        b = self._block
        if b is None or not b or not b[0]:
            return False
        return all(c == 1 for c in b[1:]) or b[0] % 32 == 0 or 32 % b[0] == 0

    def _is_lane(self, e: ir.BinOp, at: Optional[Node]) -> bool:
        """``threadIdx.x % 32`` / ``& 31`` (or a local set to threadIdx.x) in aligned warps."""
        if e.op == "%":
            rhs = _strip(e.rhs)
            ok = _const_int(rhs) == 32 or (isinstance(rhs, ir.Builtin) and rhs.name == "warpSize")
        elif e.op == "&":
            ok = _const_int(e.rhs) == 31
        else:
            return False
        return ok and self._thread_index(e.lhs, at) == "x" and self._lane_aligned()

    def _callee_divergent(self, fn: ir.Function, divergent_params: frozenset = frozenset(),
                          lane_params: frozenset = frozenset()) -> Optional[str]:
        key = (id(fn), divergent_params, lane_params, self._per_lane, self._lane_aligned()) \
            if (divergent_params or lane_params or self._per_lane) else id(fn)
        if key in self._callee_cache:
            return self._callee_cache[key]
        self._callee_cache[key] = None  # recursion guard: assume uniform
        res = None
        try:
            u = Uniformity(fn, None, self._callee_cache, divergent_params, block=self._block,
                           lane_params=lane_params, _per_lane=self._per_lane)
            live = u.cfg.reachable()
            for n in u.cfg.nodes:
                if n.kind == "return" and isinstance(n.stmt, ir.Return) and n.stmt.value is not None \
                        and n in live:
                    r = u.why_divergent(n.stmt.value)
                    if r is not None:
                        res = f"returns a value that {r}"
                        break
                    if u.cfg.controlling_decisions(n) & u.divergent_decisions:
                        res = "returns early under a thread-dependent condition"
                        break
        except RecursionError:
            res = "could not be analysed"
        self._callee_cache[key] = res
        return res

    def decision_divergent(self, n: Node) -> bool:
        return n in self.divergent_decisions

    def divergent_controls(self, n: Node) -> list[Node]:
        """The divergent decisions ``n`` is (transitively) control dependent on, innermost
        (highest line) first."""
        ds = self.cfg.controlling_decisions(n) & self.divergent_decisions
        return sorted(ds, key=lambda x: (x.line, x.id), reverse=True)

    def divergent_barriers(self) -> list[tuple[Node, Node]]:
        """(barrier node, the divergent decision that controls it) for every block barrier
        (or call of a function containing one) that only some threads may reach. The decision
        named is the innermost one that is not :meth:`leaving_only`, if any."""
        out = []
        for n in self.cfg.barriers():
            ds = self.divergent_controls(n)
            if ds:
                out.append((n, next((d for d in ds if not self.leaving_only(d)), ds[0])))
        return out

    def leaving_only(self, d: Node) -> bool:
        """Whether the threads that decision ``d`` turns away from a barrier only leave: every
        side of ``d`` but one reaches no block barrier (nor call of a function with one) before
        the kernel ends (``if (i >= n) return;``, a loop with a per-thread trip count after
        which no barrier follows). An exited thread no longer counts at a barrier (PTX
        ``exit``: a barrier that only exiting threads were holding up is released), so such a
        split cannot leave a barrier waiting. Kernels only: a device function's end is not the
        thread's."""
        if not self.fn.is_kernel:
            return False
        ahead = self._barrier_ahead()
        return sum(1 for s in self.cfg.graph.successors(d) if s in ahead) <= 1

    def leaving_to_kernel_ends(self, d: Node, functions: list, cfg_of=CFG) -> bool:
        """:meth:`leaving_only` for a device function, given every function of the translation
        unit: the threads turned away reach the function's end without another barrier, and
        every call of the function is made by a kernel after which that kernel reaches no block
        barrier either (cuda-samples' big_bitonicsort_kernel: `if (threadIdx.x >= len2)
        return;` before its barriers, called last by its kernel). Then they leave the kernel.
        ``cfg_of(g)``: a caller's control-flow graph (the kernels' own, already built)."""
        if self.fn.is_kernel:
            return self.leaving_only(d)
        ahead = self._barrier_ahead()
        if sum(1 for s in self.cfg.graph.successors(d) if s in ahead) > 1:
            return False
        called = False
        for g in functions:
            if g is self.fn or g.body is None:
                continue
            calls = [x for x in g.expressions() if isinstance(x, ir.Call) and x.function is self.fn]
            if not calls:
                continue
            if not g.is_kernel:
                return False  # a device caller: what follows its own call is not followed here
            called = True
            cfg = cfg_of(g)
            g_ahead = _barrier_ahead(cfg)
            for n in cfg.nodes:
                if any(isinstance(x, ir.Call) and x.function is self.fn for e in n.exprs() for x in e.walk()):
                    if any(s in g_ahead for s in cfg.graph.successors(n)):
                        return False
        return called

    def _barrier_ahead(self) -> set:
        """The nodes from which a block barrier is reachable (the barriers included)."""
        if self._ahead is None:
            self._ahead = _barrier_ahead(self.cfg)
        return self._ahead


def _barrier_ahead(cfg: CFG) -> set:
    """The nodes of ``cfg`` from which a block barrier is reachable (the barriers included)."""
    g = cfg.graph
    stack = list(cfg.barriers())
    seen = set(stack)
    while stack:
        for p in g.predecessors(stack.pop()):
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def released_by_exit(n: Node) -> bool:
    """Whether barrier node ``n`` is one that exited threads no longer hold up (PTX ``exit``):
    ``__syncthreads`` and its ``_count/_and/_or`` forms, ``__barrier_sync(id)``, a block's
    cooperative-groups ``sync()``, or a call of device functions whose barriers are all such.
    Not a grid sync (every thread of the grid must arrive), a ``cuda::barrier`` (it expects a
    fixed number of arrivals) nor a barrier given a thread count."""
    if n.barrier_via is None:
        st = n.stmt
        return isinstance(st, ir.Barrier) and st.scope == "block" and not st.grid and \
            st.name != "__barrier_sync_count"
    return _exit_released_call(n.barrier_via, 0, set())


def _exit_released_call(c: ir.Call, depth: int, seen: set) -> bool:
    if is_grid_sync(c) or c.callee == "__barrier_sync_count":
        return False
    if c.callee in BLOCK_BARRIER_CALLS:
        return True
    f = c.function
    if f is None or f.body is None or depth > 16:
        return False
    if id(f) in seen:
        return True
    seen.add(id(f))
    for st in f.statements():
        if isinstance(st, ir.Barrier) and st.scope == "block" and (st.grid or st.name == "__barrier_sync_count"):
            return False
        for e in st.exprs():
            for x in e.walk():
                if isinstance(x, ir.Call) and (is_grid_sync(x) or x.callee == "__barrier_sync_count" or (
                        x.function is not None and x.function is not f and
                        not _exit_released_call(x, depth + 1, seen))):
                    return False
    return True


def _is_memory_reference(v, init: ir.Expr) -> bool:
    """``T& r = <shared/global lvalue>``: a reference whose target is memory, not a register."""
    if not getattr(v, "is_reference", False):
        return False
    e = _strip(init)
    while isinstance(e, (ir.Index, ir.Member)):
        e = _strip(e.base)
    return isinstance(e, ir.VarRef) and _is_memory(e.var)


def _by_value_call(call: ir.Call, fn: ir.Function) -> bool:
    """Every argument passed by value to ``fn``: no reference parameter, no ``&x`` or array
    argument (which the callee could write through)."""
    if len(call.args) > len(fn.params) or any(getattr(p, "is_reference", False) for p in fn.params):
        return False
    for a in call.args:
        a = _strip(a)
        if isinstance(a, ir.UnaryOp) and a.op == "&":
            return False
        if isinstance(a, ir.VarRef) and a.var.type.kind == "array":
            return False
    return True


def _member_path(e: ir.Expr) -> Optional[tuple]:
    """``("y",)`` for ``p.y``, ``("a", "x")`` for ``p.a.x`` on a variable; None for anything
    else (the variable itself, an element, a member reached through a pointer)."""
    path = []
    e = _strip(e)
    while isinstance(e, ir.Member) and not e.arrow:
        path.append(e.member)
        e = _strip(e.base)
    return tuple(reversed(path)) if path and isinstance(e, ir.VarRef) else None


def _const_int(e: ir.Expr) -> Optional[int]:
    v = constprop.evaluate(e, {})
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _full_mask(e: ir.Expr) -> bool:
    """A warp mask of all 32 lanes (``0xffffffff``, ``-1``, ``~0``)."""
    v = _const_int(e)
    return v is not None and v & 0xFFFFFFFF == 0xFFFFFFFF


def _block_group_call(e: ir.Expr) -> Optional[str]:
    """The method a call makes on a cooperative-groups ``thread_block`` (``g.thread_rank()``
    with ``auto g = this_thread_block()``), or None."""
    e = _strip(e)
    if isinstance(e, ir.Call) and e.method and e.args and e.args[0].type is not None and \
            group_kind(e.args[0].type.spelling)[0] == "block":
        return e.callee.rsplit("::", 1)[-1]
    return None


def _strip(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def _root(e: ir.Expr):
    """The local variable an lvalue writes (``x``, ``arr[i]``, ``v.x``) and the indices used."""
    idx = []
    while True:
        if isinstance(e, ir.Cast):
            e = e.operand
        elif isinstance(e, ir.Index):
            idx.append(e.index)
            e = e.base
        elif isinstance(e, ir.Member) and not e.arrow:
            e = e.base
        else:
            break
    if isinstance(e, ir.VarRef) and e.var.storage in ("auto", "param") and \
            (not idx or e.var.type.kind == "array"):
        return e.var, idx
    return None, idx


def _is_memory(v) -> bool:
    return v.storage in ("shared", "extern_shared", "device", "constant", "managed") or v.file_scope


# ---------------------------------------------------------------------- warp divergence

@dataclass
class WarpSplit:
    """How an ``if`` splits warps for the analysed launch.

    ``warps_executing``/``warps_divergent`` are summed over every execution of the branch (a
    branch in a loop counts once per iteration) and over the launch's blocks (``scope`` =
    "launch"), or over one block when the grid is unknown (``scope`` = "block").
    ``interleaved``: in some divergent warp the threads that take the branch are not one
    contiguous run of lanes (``tid % 2``), as opposed to a single cut (``i < n``).
    """

    stmt: ir.If
    block_uniform: bool
    warps_executing: int
    warps_divergent: int
    interleaved: bool
    scope: str
    exact: bool
    executions: int
    unknown_executions: int
    example_block: Optional[tuple] = None
    example_warp: Optional[int] = None
    example_lanes: Optional[tuple] = None
    minority: float = 0.0  # mean share of a divergent warp's lanes on the smaller side

    @property
    def fraction(self) -> float:
        return self.warps_divergent / self.warps_executing if self.warps_executing else 0.0


@dataclass
class DivergenceFacts:
    branches: dict = field(default_factory=dict)  # id(ir.If) -> WarpSplit
    complete: bool = True
    whole_grid: bool = False
    blocks: int = 0

    def at_line(self, line: int) -> list[WarpSplit]:
        return [b for b in self.branches.values() if b.stmt.range.line == line]


def warp_divergence(kernel: ir.Function, block: tuple, grid: Optional[tuple], params: dict,
                    uni: Optional[Uniformity] = None) -> DivergenceFacts:
    """Run the kernel over the launch and measure every ``if`` (see :class:`WarpSplit`).
    A kernel without an ``if`` (its inlined device functions included) has nothing to measure:
    no run (it cost a tiled matrix product 0.12 s), no branches, nothing left unmeasured."""
    if not has_if(kernel):
        blocks, whole = sample_blocks(tuple(grid) if grid else None, tuple(block))
        return DivergenceFacts(complete=True, whole_grid=whole, blocks=len(blocks))
    uni = uni or Uniformity(kernel)
    sim, whole = branch_divergence(kernel, block, grid, params, uniform=_uniform_fn(uni))
    out = DivergenceFacts(complete=sim.complete, whole_grid=whole, blocks=len(sim.ts.blocks))
    for st in sim.branches.values():
        node = uni.cfg.node_of(st.stmt)
        bu = node is not None and not uni.decision_divergent(node)
        out.branches[id(st.stmt)] = WarpSplit(
            st.stmt, bu, st.warps_executing, st.warps_divergent, st.interleaved,
            "launch" if grid else "block", whole and sim.complete and st.unknown == 0,
            st.executions, st.unknown, st.example_block, st.example_warp, st.example_lanes,
            st.minority)
    return out


def has_if(fn: ir.Function) -> bool:
    """Whether ``fn`` or a function it calls (what the interpreter inlines) has an ``if``."""
    todo, seen = [fn], set()
    while todo:
        f = todo.pop()
        if id(f) in seen or f.body is None:
            continue
        seen.add(id(f))
        for st in f.statements():
            if isinstance(st, ir.If):
                return True
        todo.extend(x.function for x in f.expressions()
                    if isinstance(x, ir.Call) and x.function is not None)
    return False


def _uniform_fn(uni: Uniformity):
    """A predicate for the interpreter: is this condition (of the kernel, or of an inlined
    device function) block-uniform? One per ``uni`` (the race runs and the divergence run of a
    kernel share it), each expression judged once: the answer depends on the IR alone."""
    f = getattr(uni, "_uniform_pred", None)
    if f is None:
        f = uni._uniform_pred = _make_uniform_fn(uni)
    return f


def _make_uniform_fn(uni: Uniformity):
    own: set = set()
    for n in uni.cfg.nodes:
        for e in n.exprs():
            for x in e.walk():  # sub-expressions too (`buf_s[1]` of `tid == buf_s[1]`)
                own.add(id(x))
    memo: dict = {}  # id(e) -> (e, answer)

    def judge(e: ir.Expr) -> bool:
        if id(e) in own:
            return uni.is_uniform(e)
        # an expression of an inlined callee: uniform only if it is built from constants,
        # launch dimensions and block indices alone
        for x in e.walk():
            if isinstance(x, ir.Builtin) and x.name == "threadIdx":
                return False
            if isinstance(x, (ir.VarRef, ir.Index, ir.Call, ir.Unknown)):
                return False
        return True

    def f(e: ir.Expr) -> bool:
        hit = memo.get(id(e))
        if hit is None or hit[0] is not e:
            hit = memo[id(e)] = (e, judge(e))
        return hit[1]

    return f
