"""analyzer/digraph.py against networkx (a test-only dependency now): the same dominators,
ancestors and iteration orders on random graphs and on the CFGs of the fixtures."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from cudalint.analyzer.cfg import CFG
from cudalint.analyzer.digraph import DiGraph, ancestors, has_path, immediate_dominators
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

nx = pytest.importorskip("networkx")
ROOT = Path(__file__).resolve().parents[1]


def _pair(n_nodes: int, n_edges: int, seed: int):
    rnd = random.Random(seed)
    ours, theirs = DiGraph(), nx.DiGraph()
    for n in range(n_nodes):
        ours.add_node(n)
        theirs.add_node(n)
    for _ in range(n_edges):
        u, v = rnd.randrange(n_nodes), rnd.randrange(n_nodes)
        lab = rnd.choice([True, False, None])
        ours.add_edge(u, v, label=lab)
        theirs.add_edge(u, v, label=lab)
    return ours, theirs


@pytest.mark.parametrize("seed", range(60))
def test_dominators_ancestors_and_orders_match_networkx(seed):
    n = 2 + seed % 17
    ours, theirs = _pair(n, n * (1 + seed % 3), seed)
    assert list(ours.edges(data=True)) == list(theirs.edges(data=True))
    assert list(ours.reverse().edges(data=True)) == list(theirs.reverse(copy=True).edges(data=True))
    assert list(ours.copy().edges(data=True)) == list(theirs.copy().edges(data=True))
    for s in range(n):
        # the same mapping, in the same order (start excluded, as networkx >= 3.5 does)
        mine = immediate_dominators(ours, s)
        ref = {k: v for k, v in nx.immediate_dominators(theirs, s).items() if k != s}
        assert list(mine.items()) == list(ref.items())
        assert ancestors(ours, s) == nx.ancestors(theirs, s)
        for t in range(n):
            assert has_path(ours, s, t) == nx.has_path(theirs, s, t)
        assert list(ours.successors(s)) == list(theirs.successors(s))
        assert list(ours.predecessors(s)) == list(theirs.predecessors(s))
        assert ours.out_degree(s) == theirs.out_degree(s)


def test_an_edge_added_twice_keeps_one_edge_and_updates_its_attributes():
    g = DiGraph()
    g.add_edge("a", "b", label=True, back=False)
    g.add_edge("a", "b", back=True)
    assert list(g.edges(data=True)) == [("a", "b", {"label": True, "back": True})]
    assert g.edges["a", "b"] is g.edges[("a", "b")]
    assert ("a", "b") in g.edges and ("b", "a") not in g.edges
    assert g.out_edges("a") == [("a", "b")] and list(g.predecessors("b")) == ["a"]


@pytest.mark.parametrize("fixture", ["examples/matmul.cu", "barriers/early_return_barrier.cu", "barriers/break_before_barrier.cu", "barriers/barrier_in_thread_if.cu"])
def test_postdominators_of_fixture_kernels_match_networkx(fixture):
    path = ROOT / "fixtures" / fixture
    if not path.is_file():
        pytest.skip(f"{fixture} not in this checkout")
    fa = analyze_file(str(path), AnalysisOptions(facts=frozenset()))
    assert fa.tu is not None and fa.tu.kernels
    for k in fa.tu.kernels:
        cfg = CFG(k)
        ref = nx.DiGraph()
        for n in cfg._augmented().nodes:
            ref.add_node(n)
        for u, v, d in cfg._augmented().edges(data=True):
            ref.add_edge(u, v, **d)
        want = {a: b for a, b in nx.immediate_dominators(ref.reverse(copy=True), cfg.exit).items()
                if a is not cfg.exit}
        assert cfg.postdominators() == want
        assert len(want) == len(cfg.nodes) - 1  # every node reaches the exit (augmented graph)
