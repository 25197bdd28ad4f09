"""Every fixture under fixtures/ states its own expectations inline:

- `// expect: CL101` (several codes comma-separated) at the end of the line a diagnostic must
  point at; no other diagnostic may fire in the file.
- `// expect-fact: KEY(ARGS)=VALUE` (several separated by `;`) — a fact of the kernel whose
  definition spans that line; prefix `@name<args>:` to pick one template instantiation, e.g.
  `// expect-fact: @scale<float,256>:bytes(buf)=1024`.
- A first-line comment `// cudalint-args: --arch sm_70 --block 32,8` passes options.
- A fixture that another fixture `#include`s is checked through it, as `cudalint check DIR`
  does: the includer's run must produce exactly the expectations of both files.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.includers import direct_includes, plan
from cudalint.rules.runner import CheckOptions, check_file

from fixture_facts import RESOLVERS, kernel_at  # tests/ is on sys.path (no __init__.py)

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
ALL_FIXTURES = sorted(p for p in ROOT.rglob("*") if p.suffix in (".cu", ".cuh"))
_roots, _covered = plan([str(p) for p in ALL_FIXTURES], [[]] * len(ALL_FIXTURES))
FIXTURES = [ALL_FIXTURES[i] for i in _roots]  # the others are checked through their includer


def included_fixtures(path: Path) -> list[Path]:
    """The fixtures ``path`` includes, directly or through another one."""
    out, todo = [], [str(path)]
    while todo:
        for inc in direct_includes(todo.pop()):
            p = Path(inc)
            if p in ALL_FIXTURES and p not in out and p != path:
                out.append(p)
                todo.append(inc)
    return out

EXPECT_RE = re.compile(r"//.*?\bexpect:\s*([A-Z0-9, ]+)")
FACT_RE = re.compile(r"expect-fact:\s*(.+?)\s*$")
ITEM_RE = re.compile(r"^(?:@(?P<kernel>[^:]+):)?(?P<key>[\w.]+)(?:\((?P<args>[^)]*)\))?\s*=\s*(?P<value>.+)$")


def options_for(text: str) -> AnalysisOptions:
    # The source-level model only, so results are the same with or without a CUDA compiler
    # (ptxas-backed facts are tested separately, skipped without nvcc); `--ptxas` opts in.
    opts = AnalysisOptions(use_ptxas=False)
    first = text.splitlines()[0] if text else ""
    m = re.search(r"cudalint-args:\s*(.*)", first)
    if not m:
        return opts
    args = shlex.split(m.group(1))
    i = 0
    while i < len(args):
        a, v = args[i], args[i + 1] if i + 1 < len(args) else ""
        if a == "--arch":
            opts.arch = v
        elif a == "--block":
            opts.block = tuple((list(map(int, v.split(","))) + [1, 1])[:3])
        elif a == "--grid":
            opts.grid = tuple((list(map(int, v.split(","))) + [1, 1])[:3])
        elif a == "--param":
            k, val = v.split("=")
            opts.params[k] = int(val)
        elif a == "--dynamic-smem":
            opts.dynamic_smem = int(v)
        elif a == "--frontend":
            opts.frontend = v
        elif a == "--ptxas":
            opts.use_ptxas = True
            i += 1
            continue
        else:
            raise ValueError(f"unknown fixture arg {a}")
        i += 2
    return opts


def expectations(text: str):
    diags, facts = set(), []
    for n, line in enumerate(text.splitlines(), 1):
        m = EXPECT_RE.search(line)
        if m:
            for code in m.group(1).split(","):
                if code.strip():
                    diags.add((n, code.strip()))
        m = FACT_RE.search(line)
        if m:
            for item in m.group(1).split(";"):
                item = item.strip()
                if item:
                    facts.append((n, item))
    return diags, facts


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture(path: Path):
    text = path.read_text()
    opts = options_for(text)
    result, fa = check_file(str(path), opts, CheckOptions())
    want, facts = expectations(text)
    want = {(path.name, line, code) for line, code in want}
    for inc in included_fixtures(path):
        want |= {(inc.name, line, code) for line, code in expectations(inc.read_text())[0]}
    got = {(Path(d.path).name, d.location.line, d.code) for d in result.diagnostics}
    detail = "\n".join(f"  {Path(d.path).name}:{d.location.line}:{d.location.column} {d.code} {d.message}"
                       for d in result.diagnostics)
    assert got == want, f"diagnostics differ for {path.name}\nmissing: {sorted(want - got)}\nunexpected: {sorted(got - want)}\n{detail}"
    for line, item in facts:
        m = ITEM_RE.match(item)
        assert m, f"{path.name}:{line}: malformed expect-fact {item!r}"
        key, value = m.group("key"), m.group("value").strip()
        args = [a.strip() for a in (m.group("args") or "").split(",") if a.strip()]
        assert key in RESOLVERS, f"{path.name}:{line}: unknown fact key {key!r}"
        ks = kernel_at(fa, line, m.group("kernel"))
        kernel = ks[0] if ks else None
        got_v = RESOLVERS[key](fa, kernel, line, args)
        assert got_v == value, f"{path.name}:{line}: {item}: got {got_v!r}"


def test_fixtures_exist():
    # The suite must not pass vacuously.
    assert len(FIXTURES) >= 8
