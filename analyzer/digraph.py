"""The directed graph of a control-flow graph, and the three graph algorithms the analyses use
(ancestors, a depth-first postorder, immediate dominators).

The subset of ``networkx.DiGraph``'s interface that ``cfg``, ``uniformity`` and ``host_api``
read, with the same orders (nodes in insertion order, each node's successors and predecessors
in the order their edges were added; ``copy`` and ``reverse`` as networkx builds them), and the
algorithms as networkx 3 writes them, so that every order an analysis sees is the one it saw
with networkx. Why not networkx itself: importing it costs 0.1 to 0.2 s (its backend dispatch
reads every installed package's entry points), paid on every one-file check, where the
analysing process' imports are the run's critical path; the graphs here are a few hundred
nodes. The tests compare these algorithms with networkx's on every fixture's CFG and on random
graphs (networkx stays a test dependency).
"""
from __future__ import annotations

from functools import reduce
from typing import Any, Hashable, Iterator


class _Edges:
    """``g.edges``: ``g.edges[u, v]`` is the edge's attribute dict; ``g.edges()`` the (u, v)
    pairs and ``g.edges(data=True)`` the (u, v, attributes) triples, in networkx's order."""

    __slots__ = ("_succ",)

    def __init__(self, succ: dict):
        self._succ = succ

    def __getitem__(self, e) -> dict:
        u, v = e
        return self._succ[u][v]

    def __call__(self, data: bool = False):
        if data:
            return [(u, v, d) for u, nbrs in self._succ.items() for v, d in nbrs.items()]
        return [(u, v) for u, nbrs in self._succ.items() for v in nbrs]

    def __iter__(self) -> Iterator:
        return iter(self())

    def __len__(self) -> int:
        return sum(len(nbrs) for nbrs in self._succ.values())


class DiGraph:
    """A directed graph without parallel edges; each edge has an attribute dict."""

    def __init__(self) -> None:
        self._succ: dict = {}  # node -> {successor: attributes}; the node order
        self._pred: dict = {}  # node -> {predecessor: the same attributes}

    # nodes
    def add_node(self, n: Hashable) -> None:
        if n not in self._succ:
            self._succ[n] = {}
            self._pred[n] = {}

    @property
    def nodes(self):
        """The nodes, in the order they were added (a view: iterate, ``len``, ``in``)."""
        return self._succ.keys()

    def __iter__(self) -> Iterator:
        return iter(self._succ)

    def __contains__(self, n) -> bool:
        try:
            return n in self._succ
        except TypeError:
            return False

    def __len__(self) -> int:
        return len(self._succ)

    # edges
    def add_edge(self, u: Hashable, v: Hashable, **attrs: Any) -> None:
        self.add_node(u)
        self.add_node(v)
        d = self._succ[u].get(v, {})
        d.update(attrs)
        self._succ[u][v] = d
        self._pred[v][u] = d

    def has_edge(self, u, v) -> bool:
        return u in self._succ and v in self._succ[u]

    @property
    def edges(self) -> _Edges:
        return _Edges(self._succ)

    def out_edges(self, n) -> list:
        return [(n, v) for v in self._succ[n]]

    def successors(self, n) -> Iterator:
        return iter(self._succ[n])

    def predecessors(self, n) -> Iterator:
        return iter(self._pred[n])

    def out_degree(self, n) -> int:
        return len(self._succ[n])

    # whole graphs
    def copy(self) -> "DiGraph":
        """The same nodes and edges (attribute dicts copied one level) in the same orders."""
        return self._rebuilt(False)

    def reverse(self) -> "DiGraph":
        """Every edge turned round (a copy), built as networkx's ``reverse(copy=True)``."""
        return self._rebuilt(True)

    def _rebuilt(self, flip: bool) -> "DiGraph":
        g = DiGraph()
        for n in self._succ:
            g.add_node(n)
        for u, nbrs in self._succ.items():
            for v, d in nbrs.items():
                g.add_edge(*((v, u) if flip else (u, v)), **d)
        return g


def ancestors(g: DiGraph, source) -> set:
    """The nodes with a path to ``source``, never ``source`` itself (as networkx's, even when
    it lies on a cycle)."""
    seen = {source}
    stack = [source]
    pred = g._pred
    while stack:
        for p in pred[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    seen.discard(source)
    return seen


def dfs_postorder_nodes(g: DiGraph, source) -> list:
    """The nodes reachable from ``source`` in depth-first postorder, successors visited in
    their order (networkx's ``dfs_postorder_nodes``)."""
    succ = g._succ
    visited = {source}
    out = []
    stack = [(source, iter(succ[source]))]
    while stack:
        parent, children = stack[-1]
        for child in children:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(succ[child])))
                break
        else:
            stack.pop()
            out.append(parent)
    return out


def immediate_dominators(g: DiGraph, start) -> dict:
    """The immediate dominator of every node reachable from ``start`` except ``start`` itself
    (networkx 3's ``immediate_dominators``: Cooper, Harvey and Kennedy, "A simple, fast
    dominance algorithm", 2001)."""
    if start not in g:
        raise KeyError("start is not in the graph")
    idom: dict = {start: None}
    order = dfs_postorder_nodes(g, start)
    dfn = {u: i for i, u in enumerate(order)}
    order.pop()
    order.reverse()
    pred = g._pred

    def intersect(u, v):
        while u != v:
            while dfn[u] < dfn[v]:
                u = idom[u]
            while dfn[u] > dfn[v]:
                v = idom[v]
        return u

    changed = True
    while changed:
        changed = False
        for u in order:
            new_idom = reduce(intersect, (v for v in pred[u] if v in idom))
            if u not in idom or idom[u] != new_idom:
                idom[u] = new_idom
                changed = True
    del idom[start]
    return idom
