"""The facts stage's import graph: no cycle inside ``analyzer/`` and no fact module importing
the layers above it (``rules/``, ``reporters/``, ``commands/``, the CLI and the engine).

Imports are read with ``ast`` from every ``.py`` file of the package, including the ones inside
functions (a cycle through a function-level import is still a cycle: it only moves the failure
from import time to the first call).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "cudalint"
SKIP = {"tests", "fixtures", "bench", "build", "dist"}
UPPER_LAYERS = ("rules", "reporters", "commands", "cli", "engine")


def package_modules(root: Path) -> dict[str, Path]:
    """Dotted module name (relative to the package root, "" for the root) -> file."""
    mods: dict[str, Path] = {}
    for p in root.rglob("*.py"):
        rel = p.relative_to(root)
        if any(part in SKIP or part.startswith(".") for part in rel.parts[:-1]):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


def import_graph(root: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its body."""
    mods = package_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        here = name.split(".") if name else []
        base = here if is_pkg else here[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    up = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                    mod = ".".join(up + ([node.module] if node.module else []))
                elif node.module == package or (node.module or "").startswith(package + "."):
                    mod = node.module[len(package) + 1:]
                else:
                    continue
                # `from . import ir` names a module; `from .ir import Kernel` names an attribute
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}".strip(".") in mods else mod
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name[len(package) + 1:] for a in node.names if a.name.startswith(package + ".")]
            for t in targets:
                t = t.strip(".")
                if t in mods and t != name:
                    deps.add(t)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]], within: str) -> list[list[str]]:
    """Strongly connected components of more than one module among those under ``within``."""
    nodes = [n for n in graph if n == within or n.startswith(within + ".")]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in nodes:
        if n not in index:
            visit(n)
    return out


def test_no_import_cycle_inside_analyzer():
    graph = import_graph(ROOT)
    assert "analyzer.pipeline" in graph and "analyzer.accesses" in graph["analyzer.pipeline"]
    assert cycles(graph, "analyzer") == []


def test_fact_modules_do_not_import_rules_reporters_or_commands():
    graph = import_graph(ROOT)
    bad = sorted((m, d) for m, deps in graph.items() if m.startswith("analyzer.")
                 for d in deps if d.split(".")[0] in UPPER_LAYERS)
    assert bad == []


def test_the_graph_sees_function_level_and_relative_imports(tmp_path):
    # a cycle closed only by an import inside a function, and an upward import two levels up
    pkg = tmp_path / "pkg"
    (pkg / "analyzer").mkdir(parents=True)
    (pkg / "rules").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "analyzer" / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("")
    (pkg / "rules" / "r.py").write_text("X = 1\n")
    (pkg / "analyzer" / "a.py").write_text("from . import b\n")
    (pkg / "analyzer" / "b.py").write_text("def f():\n    from .a import g\n    from ..rules.r import X\n")
    (pkg / "analyzer" / "c.py").write_text("import pkg.analyzer.a\n")
    graph = import_graph(pkg, "pkg")
    assert graph["analyzer.b"] == {"analyzer.a", "rules.r"}
    assert graph["analyzer.c"] == {"analyzer.a"}
    assert cycles(graph, "analyzer") == [["analyzer.a", "analyzer.b"]]
