"""Control-flow graph of a function (kernel, device or host) and its barrier intervals.

Nodes are the simple statements of the IR (one node per declaration, expression statement,
barrier, return, break, continue) plus one node per decision: an ``if`` condition
(``branch``), a loop condition (``loop_cond``; for ``for (;;)`` it has no expression), a
``switch``. ``entry`` and ``exit`` are explicit. Edges carry ``label`` (True/False for the two
sides of a condition, the case value for a switch) and ``back`` (True on the edge that closes a
loop: from the end of the body, or the step, to the loop condition).

A *barrier interval* is the code that runs between two consecutive block-wide barriers
(``__syncthreads()`` and friends, or a call of a device function that contains one): for every
start point -- the entry, or a barrier -- the nodes reachable from it without passing another
barrier. When that walk crosses a loop's back edge the interval *wraps* that loop: it spans the
end of iteration i and the beginning of iteration i+1 (the interval in which a tiled loop
without a trailing barrier overwrites a tile other threads are still reading).

Post-dominators and control dependence (Ferrante et al.) are computed on the same graph; the
uniformity analysis uses them to find code that only some threads of a block reach.

Nothing here depends on a launch configuration: it is a pure function of the IR.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

from . import ir
from .digraph import DiGraph, ancestors, immediate_dominators

BLOCK_BARRIER_CALLS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                       "__syncthreads_or", "__barrier_sync", "__barrier_sync_count"}
WARP_BARRIER_CALLS = {"__syncwarp"}

# Node kinds.
ENTRY, EXIT, STMT, BRANCH, LOOP_COND, LOOP_STEP, LOOP_HEAD, BARRIER, WARP_BARRIER, RETURN, \
    BREAK, CONTINUE, SWITCH, CASE = ("entry", "exit", "stmt", "branch", "loop_cond", "loop_step",
                                     "loop_head", "barrier", "warp_barrier", "return", "break",
                                     "continue", "switch", "case")


@dataclass(eq=False)
class Node:
    """One CFG node. ``stmt`` is the IR statement (the ``If``/``Loop``/``Switch`` for decision
    nodes), ``expr`` the expression evaluated there (condition, step, or the statement's own
    expressions for simple statements), ``loops`` the enclosing loops (outermost first).
    ``barrier_via`` is set for a statement that calls a device function containing a block
    barrier (the call expression)."""

    id: int
    kind: str
    stmt: Optional[ir.Stmt] = None
    expr: Optional[ir.Expr] = None
    loops: tuple = ()
    barrier_via: Optional[ir.Call] = None

    @property
    def range(self) -> ir.SourceRange:
        if self.expr is not None and self.kind in (BRANCH, LOOP_COND, LOOP_STEP, SWITCH):
            return self.expr.range
        if self.stmt is not None:
            return self.stmt.range
        return ir.SourceRange.unknown()

    @property
    def line(self) -> int:
        return self.range.line

    @property
    def is_block_barrier(self) -> bool:
        return self.kind == BARRIER

    def exprs(self) -> list[ir.Expr]:
        if self.kind in (BRANCH, LOOP_COND, LOOP_STEP, SWITCH):
            return [self.expr] if self.expr is not None else []
        if self.stmt is not None and self.kind not in (LOOP_HEAD, CASE):
            return list(self.stmt.exprs())
        return []

    def __repr__(self) -> str:
        return f"<{self.kind}#{self.id} line {self.line}>"


@dataclass
class BarrierInterval:
    """Nodes that run between the barrier (or entry) ``start`` and the next barriers ``ends``
    (the exit node when the function can end without another barrier). ``wraps`` lists the
    loops whose back edge the interval crosses; ``before_back_edge``/``after_back_edge`` split
    its nodes into the end of iteration i and the start of iteration i+1 for each of them."""

    start: Node
    nodes: set
    ends: list
    wraps: list = field(default_factory=list)
    after_back_edge: dict = field(default_factory=dict)  # loop -> set of nodes in iteration i+1

    def contains(self, n: Node) -> bool:
        return n in self.nodes

    def describe(self) -> str:
        s = "the start of the kernel" if self.start.kind == ENTRY else f"the barrier at line {self.start.line}"
        ends = sorted({e.line for e in self.ends if e.kind == BARRIER})
        tail = (" and the end of the kernel" if any(e.kind == EXIT for e in self.ends) else "")
        e = ("the barrier at line " + ", ".join(map(str, ends)) if ends else "the end of the kernel")
        if ends and tail:
            e += tail
        out = f"from {s} to {e}"
        if self.wraps:
            out += " (around the back edge of the loop at line " + \
                   ", ".join(str(l.range.line) for l in self.wraps) + ")"
        return out


class CFG:
    """The control-flow graph of one function. ``graph`` is a :class:`~.digraph.DiGraph` (networkx's
    interface, not networkx) whose nodes are :class:`Node` objects."""

    def __init__(self, fn: ir.Function, barrier_functions: Optional[set] = None):
        self.function = fn
        self.graph = DiGraph()
        self._next = 0
        self.nodes: list[Node] = []
        self._barrier_functions = barrier_functions if barrier_functions is not None else \
            functions_with_barrier(fn)
        self.entry = self._node(ENTRY)
        self.exit = self._node(EXIT)
        self._loop_stack: list = []  # (loop, breaks list, continues list)
        self._switch_stack: list = []
        self.loop_nodes: dict = {}  # loop -> (cond/head node, set of body nodes)
        self._by_stmt: dict = {}
        preds = [(self.entry, None)]
        if fn.body is not None:
            preds = self._block(fn.body, preds, ())
        self._connect(preds, self.exit)
        self._postdom: Optional[dict] = None
        self._cdeps: Optional[dict] = None
        self._intervals: Optional[list] = None

    # ------------------------------------------------------------------ construction
    def _node(self, kind: str, stmt=None, expr=None, loops=()) -> Node:
        n = Node(self._next, kind, stmt, expr, loops)
        self._next += 1
        self.nodes.append(n)
        self.graph.add_node(n)
        if stmt is not None and kind not in (LOOP_STEP,):
            self._by_stmt.setdefault(id(stmt), n)
        return n

    def _connect(self, preds, n: Node, back: bool = False) -> None:
        for p, label in preds:
            if self.graph.has_edge(p, n):
                continue
            self.graph.add_edge(p, n, label=label, back=back)

    def _block(self, b: ir.Block, preds, loops) -> list:
        for s in b.stmts:
            preds = self._stmt(s, preds, loops)
        return preds

    def _simple(self, s: ir.Stmt, preds, loops, kind: str = STMT) -> list:
        n = self._node(kind, s, None, loops)
        if kind == STMT:
            call = barrier_call(s, self._barrier_functions, constants(self.function))
            if call is not None:
                n.kind = BARRIER
                n.barrier_via = call
        self._connect(preds, n)
        return [(n, None)]

    def _stmt(self, s: ir.Stmt, preds, loops) -> list:
        if isinstance(s, ir.Block):
            return self._block(s, preds, loops)
        if isinstance(s, ir.Barrier):
            n = self._node(BARRIER if s.scope == "block" else WARP_BARRIER, s, None, loops)
            self._connect(preds, n)
            return [(n, None)]
        if isinstance(s, ir.If):
            n = self._node(BRANCH, s, s.cond, loops)
            self._connect(preds, n)
            # a condition fixed at compile time (``if (width == 32)`` in a template instantiated
            # for 32, ``if constexpr``): the side not taken is built but never entered
            taken = _constant_condition(s.cond, self.function)
            out = self._block(s.then, [(n, True)] if taken is not False else [], loops)
            if s.otherwise is not None:
                out = out + self._block(s.otherwise, [(n, False)] if taken is not True else [], loops)
            elif taken is not True:
                out = out + [(n, False)]
            return out
        if isinstance(s, ir.Loop):
            return self._loop(s, preds, loops)
        if isinstance(s, ir.Return):
            n = self._node(RETURN, s, None, loops)
            self._connect(preds, n)
            self.graph.add_edge(n, self.exit, label=None, back=False)
            return []
        if isinstance(s, ir.Break):
            n = self._node(BREAK, s, None, loops)
            self._connect(preds, n)
            target = self._break_target()
            if target is not None:
                target.append((n, None))
            return []
        if isinstance(s, ir.Continue):
            n = self._node(CONTINUE, s, None, loops)
            self._connect(preds, n)
            if self._loop_stack:
                self._loop_stack[-1][2].append((n, None))
            return []
        if isinstance(s, ir.Switch):
            return self._switch(s, preds, loops)
        if isinstance(s, ir.Case):
            n = self._node(CASE, s, None, loops)
            self._connect(preds, n)
            if self._switch_stack:
                sw, _, cases = self._switch_stack[-1]
                self.graph.add_edge(sw, n, label=("case", id(s)), back=False)
                cases.append(s)
            return [(n, None)]
        return self._simple(s, preds, loops)

    def _break_target(self) -> Optional[list]:
        # The innermost of the enclosing loops and switches (recorded by depth order).
        best = None
        depth = -1
        if self._loop_stack:
            best, depth = self._loop_stack[-1][1], self._loop_stack[-1][3]
        if self._switch_stack and self._switch_stack[-1][1][1] > depth:
            best = self._switch_stack[-1][1][0]
        return best

    def _depth(self) -> int:
        return len(self._loop_stack) + len(self._switch_stack)

    def _loop(self, s: ir.Loop, preds, loops) -> list:
        for i in s.init:
            preds = self._stmt(i, preds, loops)
        inner = loops + (s,)
        breaks: list = []
        continues: list = []
        before = len(self.nodes)
        if s.kind == "do":
            head = self._node(LOOP_HEAD, s, None, inner)
            self._connect(preds, head)
            self._loop_stack.append((s, breaks, continues, self._depth()))
            body_out = self._block(s.body, [(head, None)], inner)
            self._loop_stack.pop()
            cond = self._node(LOOP_COND, s, s.cond, inner)
            self._connect(body_out + continues, cond)
            self.graph.add_edge(cond, head, label=True, back=True)
            exits = ([(cond, False)] if s.cond is not None else []) + breaks
            entry_node = head
        else:
            cond = self._node(LOOP_COND, s, s.cond, inner)
            self._connect(preds, cond)
            self._loop_stack.append((s, breaks, continues, self._depth()))
            body_out = self._block(s.body, [(cond, True)], inner)
            self._loop_stack.pop()
            tail = body_out + continues
            if s.step is not None:
                step = self._node(LOOP_STEP, s, s.step, inner)
                self._connect(tail, step)
                tail = [(step, None)]
            self._connect(tail, cond, back=True)
            exits = ([(cond, False)] if s.cond is not None and not _always_true(s.cond) else []) + breaks
            entry_node = cond
        body = set(self.nodes[before:])
        self.loop_nodes[s] = (entry_node, body)
        return exits

    def _switch(self, s: ir.Switch, preds, loops) -> list:
        n = self._node(SWITCH, s, s.cond, loops)
        self._connect(preds, n)
        breaks: list = []
        cases: list = []
        self._switch_stack.append((n, (breaks, self._depth()), cases))
        out = self._block(s.body, [], loops)
        self._switch_stack.pop()
        has_default = any(c.value is None for c in cases)
        return out + breaks + ([] if has_default else [(n, "default")])

    # ------------------------------------------------------------------ queries
    def node_of(self, stmt: ir.Stmt) -> Optional[Node]:
        """The node of a statement (the decision node for If/Loop/Switch)."""
        return self._by_stmt.get(id(stmt))

    def node_of_expr(self, e: ir.Expr) -> Optional[Node]:
        """The node that evaluates expression ``e`` (None when ``e`` is not in this function)."""
        if not hasattr(self, "_expr_index"):
            idx = {}
            for n in self.nodes:
                for x in n.exprs():
                    for y in x.walk():
                        idx.setdefault(id(y), n)
                if n.kind == STMT and isinstance(n.stmt, ir.Loop):
                    pass
            # loop init statements are nodes of their own; conditions/steps covered above
            self._expr_index = idx
        return self._expr_index.get(id(e))

    def reachable(self) -> set:
        """The nodes reachable from the entry (not the sides of a branch decided at compile
        time that are never taken)."""
        r = getattr(self, "_reachable", None)
        if r is None:
            r = {self.entry}
            stack = [self.entry]
            while stack:
                for m in self.graph.successors(stack.pop()):
                    if m not in r:
                        r.add(m)
                        stack.append(m)
            self._reachable = r
        return r

    def barriers(self) -> list[Node]:
        return [n for n in self.nodes if n.kind == BARRIER]

    def back_edges(self) -> list[tuple[Node, Node]]:
        return [(u, v) for u, v, d in self.graph.edges(data=True) if d.get("back")]

    def loop_of_back_edge(self, u: Node, v: Node) -> Optional[ir.Loop]:
        st = v.stmt
        return st if isinstance(st, ir.Loop) else None

    def loop_has_barrier(self, loop: ir.Loop) -> bool:
        entry, body = self.loop_nodes.get(loop, (None, set()))
        return any(n.kind == BARRIER for n in body)

    # ------------------------------------------------------------------ barrier intervals
    def barrier_intervals(self) -> list[BarrierInterval]:
        """One interval per start point (entry and every block barrier)."""
        if self._intervals is not None:
            return self._intervals
        out = []
        for start in [self.entry] + self.barriers():
            nodes: set = set()
            ends: list = []
            wraps: list = []
            after: dict = {}
            # state: (node, frozenset of barrier loops whose back edge was crossed)
            seen = set()
            stack = []
            for m in self.graph.successors(start):
                stack.append((m, self._cross(start, m, frozenset())))
            while stack:
                n, crossed = stack.pop()
                if crossed is None or (n, crossed) in seen:
                    continue
                seen.add((n, crossed))
                if n.kind == BARRIER or n.kind == EXIT:
                    if n not in ends:
                        ends.append(n)
                    if n.kind == EXIT:
                        nodes.add(n)
                    continue
                nodes.add(n)
                for lp in crossed:
                    after.setdefault(lp, set()).add(n)
                for m in self.graph.successors(n):
                    stack.append((m, self._cross(n, m, crossed)))
            for lp in after:
                wraps.append(lp)
            wraps.sort(key=lambda l: l.range.line)
            out.append(BarrierInterval(start, nodes, ends, wraps, after))
        self._intervals = out
        return out

    def _cross(self, a: Node, b: Node, crossed: frozenset) -> Optional[frozenset]:
        """The crossed-loop set after edge a->b (None: the walk goes round a loop twice)."""
        if not self.graph.edges[a, b].get("back"):
            return crossed
        lp = self.loop_of_back_edge(a, b)
        if lp is None or not self.loop_has_barrier(lp):
            return crossed
        if lp in crossed:
            return None
        return crossed | {lp}

    def intervals_containing(self, n: Node) -> list[BarrierInterval]:
        return [iv for iv in self.barrier_intervals() if n in iv.nodes]

    def same_interval(self, a: Node, b: Node) -> Optional[BarrierInterval]:
        """An interval in which both nodes run (None when a barrier always separates them)."""
        for iv in self.barrier_intervals():
            if a in iv.nodes and b in iv.nodes:
                return iv
        return None

    # ------------------------------------------------------------------ dominance
    def _augmented(self) -> DiGraph:
        """The graph with every node that cannot reach the exit (an endless loop) linked to
        it, so that post-dominators exist for all nodes."""
        g = self.graph.copy()
        reach = ancestors(g, self.exit) | {self.exit}
        for n in list(g.nodes):
            if n not in reach:
                g.add_edge(n, self.exit, label=None, back=False)
        return g

    def postdominators(self) -> dict:
        """Immediate post-dominator of each node but the exit (which has none)."""
        if self._postdom is None:
            g = self._augmented().reverse()
            self._postdom = immediate_dominators(g, self.exit)
        return self._postdom

    def postdominates(self, a: Node, b: Node) -> bool:
        """Whether every path from ``b`` to the exit passes ``a`` (a node post-dominates itself)."""
        pd = self.postdominators()
        n = b
        while True:
            if n is a:
                return True
            nxt = pd.get(n)
            if nxt is None or nxt is n:
                return False
            n = nxt

    def control_dependences(self) -> dict:
        """node -> set of (decision node, edge label) it is directly control dependent on."""
        if self._cdeps is not None:
            return self._cdeps
        pd = self.postdominators()
        g = self._augmented()
        deps: dict = {n: set() for n in g.nodes}
        for a, b, d in g.edges(data=True):
            if g.out_degree(a) < 2:
                continue
            stop = pd.get(a)
            n = b
            guard = 0
            while n is not None and n is not stop and guard < 100000:
                deps.setdefault(n, set()).add((a, d.get("label")))
                nxt = pd.get(n)
                if nxt is n:
                    break
                n = nxt
                guard += 1
        self._cdeps = deps
        return deps

    def controlling_decisions(self, n: Node) -> set:
        """Decision nodes ``n`` is transitively control dependent on."""
        deps = self.control_dependences()
        out: set = set()
        stack = [d for d, _ in deps.get(n, ())]
        while stack:
            d = stack.pop()
            if d in out:
                continue
            out.add(d)
            stack.extend(x for x, _ in deps.get(d, ()))
        return out


# ---------------------------------------------------------------------- helpers

def _constant_condition(e: Optional[ir.Expr], fn: Optional[ir.Function]) -> Optional[bool]:
    """The value of a branch condition known at compile time (constants, template arguments,
    ``const`` locals, small constexpr helpers), or None."""
    if e is None:
        return None
    from . import constprop

    v = constprop.evaluate(e, constants(fn))
    if isinstance(v, (int, float)):
        return bool(v)
    return None


def _always_true(e: ir.Expr) -> bool:
    return isinstance(e, ir.Const) and bool(e.value) is True


def is_grid_sync(c: ir.Call) -> bool:
    """Block-wide barriers spelled as calls on an object: ``grid.sync()`` / ``cg::sync(grid)``
    on a cooperative-groups grid or cluster (every thread of the grid waits, so the block's
    too), and the waiting half of a ``cuda::barrier`` / ``std::barrier``
    (``bar.arrive_and_wait()``, ``bar.wait(std::move(token))``)."""
    if not c.args:
        return False
    t = c.args[0].type.spelling
    if c.callee == "sync":
        return "grid_group" in t or "cluster_group" in t
    if c.callee in ("wait", "arrive_and_wait"):
        return "barrier<" in t.replace(" <", "<") and "thread_scope_thread" not in t
    return False


def constants(fn: Optional[ir.Function]) -> dict:
    """The ``const`` scalar locals of ``fn`` whose initialiser is a compile-time number
    (``const uint32_t Z_COUNT = 256 / sizeof(fr_t);``): variable -> value. Memoised on the
    function."""
    if fn is None:
        return {}
    memo = getattr(fn, "_cudalint_constants", None)
    if memo is not None:
        return memo
    from . import constprop

    env: dict = {}
    # a template lowered from its own body with arguments bound (ir.Function.template_bindings)
    for name, v in (fn.template_bindings or {}).items():
        if isinstance(v, int) and not isinstance(v, bool):
            env[("template", name)] = v
    for st in fn.statements():
        if isinstance(st, ir.DeclStmt) and st.init is not None and st.var.storage == "auto" and \
                st.var.type.is_const and not st.var.type.is_pointer and st.var.type.kind != "array":
            v = constprop.evaluate(st.init, env)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                env[st.var] = v
    try:
        fn._cudalint_constants = env
    except AttributeError:
        pass
    return env


def live_walk(e: ir.Expr, consts: dict) -> Iterable[ir.Expr]:
    """``e.walk()`` without the arm of a ``c ? a : b`` that a compile-time condition rules out
    (``(Z_COUNT > WARP_SZ) ? __syncthreads() : __syncwarp();`` with Z_COUNT = 32 executes
    only __syncwarp)."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, ir.Ternary):
            from . import constprop

            c = constprop.evaluate(x.cond, consts)
            if isinstance(c, (int, float)):
                stack.extend([x.then if c else x.otherwise, x.cond])
                continue
        stack.extend(c for c in reversed(x.children()) if c is not None)


def barrier_call(s: ir.Stmt, barrier_functions: set, consts: Optional[dict] = None) -> Optional[ir.Call]:
    """The call in ``s`` that executes a block-wide barrier: ``__syncthreads_or(x)`` used as a
    value, or a call of a device function that contains a barrier (not in the arm of a
    conditional expression that a compile-time condition rules out)."""
    if isinstance(s, (ir.If, ir.Loop, ir.Switch, ir.Block)):
        return None
    for e in s.exprs():
        for x in live_walk(e, consts or {}):
            if isinstance(x, ir.Call):
                if x.callee in BLOCK_BARRIER_CALLS or is_grid_sync(x):
                    return x
                if x.function is not None and id(x.function) in barrier_functions:
                    return x
    return None


def functions_with_barrier(fn: ir.Function) -> set:
    """ids of the device functions reachable from ``fn`` that execute a block barrier."""
    memo: dict = {}

    def has(f: ir.Function, depth: int) -> bool:
        if id(f) in memo:
            return memo[id(f)]
        memo[id(f)] = False
        if depth > 16 or f.body is None:
            return False
        res = False
        consts = constants(f)
        for st in f.statements():
            if isinstance(st, ir.Barrier) and st.scope == "block":
                res = True
                break
            for e in st.exprs():
                for x in live_walk(e, consts):
                    if isinstance(x, ir.Call):
                        if x.callee in BLOCK_BARRIER_CALLS or is_grid_sync(x):
                            res = True
                        elif x.function is not None and x.function is not f and has(x.function, depth + 1):
                            res = True
            if res:
                break
        memo[id(f)] = res
        return res

    out = set()
    for st in fn.statements():
        for e in st.exprs():
            for x in e.walk():
                if isinstance(x, ir.Call) and x.function is not None and has(x.function, 1):
                    out.add(id(x.function))
    return out


def build_cfg(fn: ir.Function) -> CFG:
    return CFG(fn)


def calls_in(n: Node) -> Iterable[ir.Call]:
    for e in n.exprs():
        for x in e.walk():
            if isinstance(x, ir.Call):
                yield x
