"""Header analysis across a run: which checked files are analysed through a file that includes
them, and one report per header kernel however many checked files include its header.

* **Planning** (:func:`plan`): a checked file that another checked file ``#include``\\ s (a
  Rodinia ``kernel.cu`` included by ``main.cu``, a project ``.cuh`` found by ``check DIR``) is
  analysed through its includer instead of alone: alone it lacks the types and macros the
  includer defines first. The include graph is read from the ``#include`` lines (quoted names
  relative to the including file, then the ``-I`` directories); :func:`confirmed` then checks it
  against what clang really included, so an include inside ``#if 0`` does not hide a file.
* **Merging** (:func:`merge`): each includer reports the findings of the user's headers (the
  frontend analyses them, ``analyzer/frontend/project_files.py``). A header kernel's findings are
  kept from the includers whose launch configuration is the best known (a launch site, else
  ``__launch_bounds__``, else the default block), every finding once, and each finding is filed
  under the file it is located in (a header gets a result of its own).
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Optional, Sequence

from .rules.diagnostic import FileResult

_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
#: Bound on the files read while following includes (a run over a huge tree stays cheap).
MAX_SCANNED = 5000
#: How good a launch configuration is (lower is better).
_RANK = {"command-line": 0, "launch-site": 0, "launch-bounds": 1, "default": 2}


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(2_000_000).decode("utf-8", "replace")
    except OSError:
        return ""


def direct_includes(path: str, include_dirs: Sequence[str] = ()) -> list[str]:
    """The existing files named by ``path``'s ``#include`` lines (absolute paths)."""
    here = os.path.dirname(os.path.abspath(path))
    out = []
    for quote, name in _INCLUDE_RE.findall(_read(path)):
        dirs = ([here] if quote == '"' else []) + [os.path.abspath(d) for d in include_dirs]
        for d in dirs:
            cand = os.path.normpath(os.path.join(d, name.strip()))
            if os.path.isfile(cand):
                out.append(cand)
                break
    return out


def plan(paths: Sequence[str], include_dirs: Sequence[Sequence[str]]) -> tuple[list[int], dict[int, list[int]]]:
    """Split the checked files into those analysed on their own (indices, in order) and those
    reached through one of them: ``{covered index: [includer indices]}``. ``include_dirs[i]``
    are the ``-I`` directories of file ``i``."""
    index = {}
    for i, p in enumerate(paths):
        index.setdefault(os.path.abspath(p), i)
    graph: dict[str, list[str]] = {}
    scanned = 0

    def reach(i: int) -> set[int]:
        nonlocal scanned
        seen, stack, hit = {os.path.abspath(paths[i])}, [os.path.abspath(paths[i])], set()
        while stack:
            f = stack.pop()
            if f not in graph:
                if scanned >= MAX_SCANNED:
                    continue
                scanned += 1
                graph[f] = direct_includes(f, include_dirs[i])
            for g in graph[f]:
                if g not in seen:
                    seen.add(g)
                    stack.append(g)
                    if g in index and index[g] != i:
                        hit.add(index[g])
        return hit

    reached = {i: reach(i) for i in range(len(paths)) if index.get(os.path.abspath(paths[i])) == i}
    includers: dict[int, list[int]] = {}
    for i, r in reached.items():
        for j in r:
            includers.setdefault(j, []).append(i)
    # Files nothing includes first; a cycle of files including each other gets its first file.
    order = sorted(reached, key=lambda i: (i in includers, i))
    roots, covered = [], set()
    for i in order:
        if i not in covered:
            roots.append(i)
            covered |= reached[i]
    cover = {j: [i for i in includers[j] if i in roots] or includers[j] for j in sorted(covered)}
    return sorted(roots), cover


def confirmed(covered: dict[int, list[int]], paths: Sequence[str],
              dependencies: dict[int, Iterable[str]]) -> tuple[list[int], list[int]]:
    """(covered files an includer really included, or whose includer could not be parsed;
    covered files none included: they are analysed alone after all). ``dependencies[i]`` are
    the files clang included for file ``i``."""
    deps = {i: {os.path.abspath(p) for p in d} for i, d in dependencies.items() if d}
    ok, alone = [], []
    for j, incl in covered.items():
        target = os.path.abspath(paths[j])
        # An includer that could not be parsed (no dependencies known) still stands for the
        # file: its CL000 says why; alone the fragment would only add a misleading one.
        unknown = any(i not in deps for i in incl)
        (ok if unknown or any(target in deps[i] for i in incl if i in deps) else alone).append(j)
    return ok, alone


def unique_kernels(analyses: list) -> list:
    """``explain`` over several files: each kernel of a header once, from the analysis whose
    launch configuration is the best known (``analyses`` are FileAnalysis objects)."""
    def key(k):
        return (os.path.abspath(k.function.range.file or ""), k.function.range.line, k.name)

    best: dict[tuple, tuple[int, int]] = {}
    for n, fa in enumerate(analyses):
        for k in fa.kernels:
            r = (_RANK.get(k.launch.source, 2), n)
            best[key(k)] = min(best.get(key(k), r), r)
    for n, fa in enumerate(analyses):
        fa.kernels = [k for k in fa.kernels if best[key(k)][1] == n]
    return analyses


def merge(results: Sequence[FileResult], through: Optional[dict[str, str]] = None) -> list[FileResult]:
    """One report per finding of the user's headers. ``results`` are in checking order;
    ``through`` maps a checked file analysed through an includer to that includer (it gets a
    result of its own holding the findings located in it)."""
    named = {os.path.abspath(k): k for k in (through or {})}
    through = {os.path.abspath(k): v for k, v in (through or {}).items()}
    best: dict[str, int] = {}
    for r in results:
        for _path, _line, name, source in r.header_kernels:
            best[name] = min(best.get(name, 9), _RANK.get(source, 2))
    own = {os.path.abspath(r.path): r for r in results}
    extra: dict[str, FileResult] = {}
    for p, via in through.items():
        if p not in own:
            extra[p] = FileResult(path=named[p], notes=[f"analysed through {via}, which #includes it"])
    seen: set[tuple] = set()
    out: list[FileResult] = []
    for r in results:
        worse = {name for _p, _l, name, source in r.header_kernels if _RANK.get(source, 2) > best[name]}
        main = os.path.abspath(r.path)
        kept = []
        for d in r.diagnostics:
            if d.kernel in worse and d.code != "CL000":
                continue
            where = os.path.abspath(d.path)
            if where != main:
                key = (where, d.location.line, d.location.column, d.code, d.message)
                if key in seen:
                    continue
                seen.add(key)
                if where not in own:  # filed under the file it is located in
                    if where not in extra:
                        named.setdefault(where, d.path)
                        extra[where] = FileResult(path=named[where], notes=[f"analysed through {r.path}"])
                    extra[where].diagnostics.append(d)
                    continue
            kept.append(d)
        r.diagnostics = kept
        out.append(r)
    return out + list(extra.values())
