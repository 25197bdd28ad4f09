"""analyzer/digraph.py against networkx: the control-flow graphs' own small graph class and its
three algorithms (ancestors, depth-first postorder, immediate dominators) give what networkx
gives, orders included, on every function of every fixture and on random graphs. (The class
replaced networkx in the analyses: importing networkx cost 0.1 to 0.2 s of every one-file run.)"""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from cudalint.analyzer.cfg import CFG
from cudalint.analyzer.digraph import DiGraph, ancestors, dfs_postorder_nodes, immediate_dominators
from cudalint.analyzer.lowering import lower_file, read_source
from cudalint.analyzer.options import AnalysisOptions

ROOT = Path(__file__).resolve().parents[1]


class Twin(DiGraph):
    """A DiGraph that makes every change to a networkx graph too (``nx``): both built by the
    same calls, so each order of one is the other's."""

    def __init__(self):
        super().__init__()
        self.nx = nx.DiGraph()

    def add_node(self, n):
        super().add_node(n)
        self.nx.add_node(n)

    def add_edge(self, u, v, **attrs):
        super().add_edge(u, v, **attrs)
        self.nx.add_edge(u, v, **attrs)


def same_as_networkx(g: DiGraph, start, h: nx.DiGraph) -> None:
    assert list(g.nodes) == list(h.nodes)
    assert g.edges(data=True) == list(h.edges(data=True))
    for n in g.nodes:
        assert list(g.successors(n)) == list(h.successors(n))
        assert list(g.predecessors(n)) == list(h.predecessors(n))
        assert g.out_degree(n) == h.out_degree(n)
    for mine, theirs in ((g.reverse(), h.reverse(copy=True)), (g.copy(), h.copy())):
        assert list(mine.nodes) == list(theirs.nodes)
        assert mine.edges(data=True) == list(theirs.edges(data=True))
        assert all(list(mine.successors(n)) == list(theirs.successors(n)) for n in mine.nodes)
        assert all(list(mine.predecessors(n)) == list(theirs.predecessors(n)) for n in mine.nodes)
    assert ancestors(g, start) == nx.ancestors(h, start)
    assert dfs_postorder_nodes(g, start) == list(nx.dfs_postorder_nodes(h, start))
    mine, theirs = immediate_dominators(g, start), nx.immediate_dominators(h, start)
    assert list(mine.items()) == list(theirs.items())  # the same dict, in the same order


def test_a_hand_worked_graph():
    # 0 -> 1 -> 2 -> 4, 1 -> 3 -> 4, 4 -> 1 (a loop), 5 -> 4 (unreachable from 0)
    g = Twin()
    for u, v in [(0, 1), (1, 2), (2, 4), (1, 3), (3, 4), (4, 1), (5, 4)]:
        g.add_edge(u, v, label=(u, v))
    assert immediate_dominators(g, 0) == {1: 0, 2: 1, 3: 1, 4: 1}
    assert ancestors(g, 4) == {0, 1, 2, 3, 4, 5} - {4}
    assert ancestors(g, 0) == set()
    assert dfs_postorder_nodes(g, 0) == [4, 2, 3, 1, 0]
    assert g.edges[4, 1] == {"label": (4, 1)} and g.has_edge(5, 4) and not g.has_edge(4, 5)
    assert immediate_dominators(g.reverse(), 4) == {2: 4, 3: 4, 5: 4, 1: 4, 0: 1}
    same_as_networkx(g, 0, g.nx)


@pytest.mark.parametrize("seed", range(300))
def test_random_graphs(seed):
    rnd = random.Random(seed)
    n = rnd.randint(1, 30)
    g = Twin()
    order = list(range(n))
    rnd.shuffle(order)
    for v in order:
        g.add_node(v)
    for _ in range(rnd.randint(0, 3 * n)):
        u, v = rnd.randrange(n), rnd.randrange(n)
        g.add_edge(u, v, w=rnd.random())
        if rnd.random() < 0.1:
            g.add_edge(u, v, back=True)  # a second add updates the same attributes
    start = rnd.randrange(n)
    same_as_networkx(g, start, g.nx)
    same_as_networkx(g.reverse(), start, g.nx.reverse(copy=True))


def _fixture_cfgs():
    opts = AnalysisOptions()
    for p in sorted((ROOT / "fixtures").rglob("*.cu")):
        source, _ = read_source(str(p))
        if not source:
            continue
        low = lower_file(str(p), source, opts)
        if low.tu is None:
            continue
        for f in low.tu.functions:
            if f.body is not None:
                yield p.relative_to(ROOT), f


def test_every_fixture_cfg_matches_networkx(monkeypatch):
    from cudalint.analyzer import cfg as cfg_module

    monkeypatch.setattr(cfg_module, "DiGraph", Twin)
    seen = 0
    for path, f in _fixture_cfgs():
        cfg = CFG(f)
        h = cfg.graph.nx
        same_as_networkx(cfg.graph, cfg.entry, h)
        # the post-dominators' graph, built as the old code built it with networkx
        aug = h.copy()
        reach = nx.ancestors(aug, cfg.exit) | {cfg.exit}
        for n in list(aug.nodes):
            if n not in reach:
                aug.add_edge(n, cfg.exit, label=None, back=False)
        rev = aug.reverse(copy=True)
        same_as_networkx(cfg._augmented().reverse(), cfg.exit, rev)
        assert list(cfg.postdominators().items()) == list(nx.immediate_dominators(rev, cfg.exit).items()), \
            (path, f.name)
        seen += 1
    assert seen >= 250  # every function with a body (280), host code included


def test_loading_the_analyses_does_not_import_networkx():
    probe = ("import sys; from cudalint.engine import load_analyses; assert load_analyses() is None; "
             "print('networkx' in sys.modules, 'sympy' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "True"]
