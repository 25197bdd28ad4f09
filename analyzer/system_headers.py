"""What system headers (``<cooperative_groups.h>``, ``<cuda_fp16.h>``...) name, for batching.

In a batch of several files' device code (analyzer/ptxas_batch) a system header is read where
the first file including it includes it; a later file's code before its own ``#include``
already sees it, and the header does not see that file's macros. Whether that can change
anything depends on the names involved, so this module lists, for a set of includes, the
headers they add to what cuda_runtime.h (included first in every compile) already read
(``nvcc -M``) and, over those headers' text: every identifier, the ``#define``d names and the
names declared at global scope (outside namespaces and braces).

The lists are kept on disk next to ptxas' reports, checked against the headers' modification
times (building them costs about 1 s for cooperative_groups.h: two ``nvcc -M`` and a scan of
3.5 MB of headers).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = ["HeaderNames", "header_names", "global_names"]


@dataclass(frozen=True)
class HeaderNames:
    identifiers: frozenset  # every identifier in the headers' text
    macros: frozenset  # the names they #define (but not as cuda_runtime.h's headers already do)
    globals: frozenset  # identifiers declared at global scope (a superset)


_lock = threading.Lock()
_memo: dict = {}


def header_names(tool: str, version: Optional[str], sm: str, includes: tuple) -> Optional[HeaderNames]:
    """The names of the headers that ``#include <X>`` for each X of ``includes`` adds after
    cuda_runtime.h, or None where nvcc cannot list them."""
    key = (os.path.realpath(tool), version, sm, tuple(sorted(set(includes))))
    with _lock:
        if key in _memo:
            return _memo[key]
    out = _load(key)
    if out is None:
        out = _build(tool, sm, key)
    with _lock:
        _memo[key] = out
    return out


def _cache_file(key: tuple) -> Path:
    from .registers import cache_dir

    return cache_dir() / "system-headers" / (hashlib.sha256(json.dumps(key).encode()).hexdigest()[:32] + ".json")


def _load(key: tuple) -> Optional[HeaderNames]:
    try:
        d = json.loads(_cache_file(key).read_text(encoding="utf-8"))
        if all(os.stat(f).st_mtime_ns == m for f, m in d["files"]):
            return HeaderNames(frozenset(d["identifiers"]), frozenset(d["macros"]), frozenset(d["globals"]))
    except (OSError, ValueError, TypeError, KeyError):
        pass
    return None


def _read_stamped(path: str, stamps: list) -> Optional[str]:
    """The text of a header, with its (path, mtime) added to ``stamps``; None if unreadable."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        stamps.append((path, os.stat(path).st_mtime_ns))
    except OSError:
        return None
    return text

def _build(tool: str, sm: str, key: tuple) -> Optional[HeaderNames]:
    # the two `nvcc -M` side by side (what cuda_runtime.h reads: once a process)
    box: list = []
    th = threading.Thread(target=lambda: box.append(_base_dependencies(tool, sm)), daemon=True)
    th.start()
    files = _dependencies(tool, sm, key[3])
    th.join()
    base = box[0] if box else None
    if files is None or base is None:
        return None
    ids: set = set()
    defs: dict = {}  # macro -> its definitions in the added headers
    glob: set = set()
    stamps = []
    for f in sorted(set(files) - set(base)):
        text = _read_stamped(f, stamps)
        if text is None:
            return None
        ids.update(_IDENT.findall(text))
        for name, body in _DEFINE_BODY.findall(text):
            defs.setdefault(name, set()).add(" ".join(body.split()))
        glob |= global_names(text)
    # A macro that cuda_runtime.h's headers already define, and that the added ones only define
    # again the same way (stddef.h's NULL), has that value before the include too.
    before: dict = {}
    for f in base:
        text = _read_stamped(f, stamps)
        if text is None:
            return None
        for name, body in _DEFINE_BODY.findall(text):
            if name in defs:
                before.setdefault(name, set()).add(" ".join(body.split()))
    macros = {m for m, d in defs.items() if not d <= before.get(m, set())}
    out = HeaderNames(frozenset(ids), frozenset(macros), frozenset(glob))
    cfile = _cache_file(key)
    try:
        cfile.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=str(cfile.parent), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"files": stamps, "identifiers": sorted(ids), "macros": sorted(macros),
                       "globals": sorted(glob)}, fh)
        os.replace(tmp, cfile)
    except OSError:
        pass
    return out


_base_memo: dict = {}


def _base_dependencies(tool: str, sm: str) -> Optional[list[str]]:
    """The files cuda_runtime.h alone makes a compile read (the same for every include set)."""
    key = (os.path.realpath(tool), sm)
    if key not in _base_memo:
        _base_memo[key] = _dependencies(tool, sm, ())
    return _base_memo[key]


def _dependencies(tool: str, sm: str, includes: tuple) -> Optional[list[str]]:
    """The files a compile of just these includes reads (``nvcc -M``: host and device passes)."""
    from .registers import _run

    with tempfile.TemporaryDirectory(prefix="cudalint-deps-") as tmp:
        src = Path(tmp) / "h.cu"
        src.write_text("".join(f"#include <{h}>\n" for h in includes), encoding="utf-8")
        dep = Path(tmp) / "h.d"
        rc, _, _ = _run([tool, "-M", "-x", "cu", f"-arch={sm}", str(src), "-o", str(dep)], 60)
        try:
            text = dep.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    if rc != 0:
        return None
    return sorted({os.path.normpath(w) for w in text.replace("\\\n", " ").split()[1:]
                   if os.path.isabs(w) and os.path.isfile(w)})


_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEFINE_BODY = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)([^\n]*(?:\\\n[^\n]*)*)", re.M)
_SCAN = re.compile(r'//[^\n]*|/\*.*?\*/|extern\s*"C(?:\+\+)?"\s*\{|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                   r'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*|[{};=()]|[A-Za-z_]\w*', re.S | re.M)
# libcu++, CUB, Thrust and cooperative groups open their namespaces with macros
_NS_OPEN = re.compile(r"BEGIN_NAMESPACE|NAMESPACE_BEGIN")
_NS_CLOSE = re.compile(r"END_NAMESPACE|NAMESPACE_END")


def global_names(text: str) -> set:
    """Identifiers that header text declares at global scope: outside namespaces (anonymous
    and extern "C" blocks count as global), braces and parentheses. A superset: it keeps types
    and qualifiers of those declarations too, and both branches of conditionals."""
    out: set = set()
    stack: list = []  # "g" (transparent: extern "C", anonymous namespace), "ns", "x" (other braces)
    ns: Optional[str] = None  # after `namespace`: "" until its name
    paren = 0
    for m in _SCAN.finditer(text):
        t = m.group(0)
        if t[0] in "/\"'" or t.lstrip().startswith("#"):
            continue
        if t.startswith("extern"):
            stack.append("g")
        elif t == "(":
            paren += 1
        elif t == ")":
            paren = max(0, paren - 1)
        elif t == "{":
            stack.append(("g" if ns == "" else "ns") if ns is not None else "x")
            ns, paren = None, 0
        elif t == "}":
            if stack:
                stack.pop()
            paren = 0
        elif t in ";=":
            ns = None
        elif t == "namespace":
            ns = ""
        elif ns == "":
            if t != "inline":
                ns = t
        elif _NS_OPEN.search(t):
            stack.append("ns")
        elif _NS_CLOSE.search(t):
            if stack and stack[-1] == "ns":
                stack.pop()
        elif paren == 0 and all(s == "g" for s in stack):
            out.add(t)
    return out


def baseline(tool: str, version: Optional[str], sm: str, flags: tuple, includes: tuple) -> Optional[dict]:
    """ptxas' report for a compile of nothing but ``includes`` (and an empty kernel), as
    ``{"gmem": bytes, "functions": {name: resources}}``: what these headers put in every compile
    whether used or not (libcu++'s customization point objects, 40 bytes of gmem with
    cub/cub.cuh and nvcc 13; CUB's EmptyKernel). On disk like the header names; None where the
    compile fails."""
    from .registers import KernelResources, _nvcc_run

    key = json.dumps(["baseline", os.path.realpath(tool), version, sm, list(flags), list(includes)])
    with _lock:
        if key in _memo:
            return _memo[key]
    cfile = _cache_file((key,))
    out: Optional[dict] = None
    try:
        d = json.loads(cfile.read_text(encoding="utf-8"))
        out = {"gmem": d["gmem"], "functions": {k: KernelResources.from_json(v) for k, v in d["functions"].items()}}
    except (OSError, ValueError, TypeError, KeyError):
        with tempfile.TemporaryDirectory(prefix="cudalint-baseline-") as tmp:
            src = Path(tmp) / "g.cu"
            src.write_text("".join(f"#include <{h}>\n" for h in includes)
                           + "__global__ void __cudalint_baseline() {}\n", encoding="utf-8")
            cmd = [tool, "-cubin", f"-arch={sm}", "-Xptxas", "-v", "-o", os.devnull, *flags, "-x", "cu", str(src)]
            rep = _nvcc_run(cmd, sm, tool, version, 120.0)
        if rep.ok and rep.gmem_bytes is not None:
            funcs = {k: f for k, f in rep.functions.items() if f.plain_name != "__cudalint_baseline"}
            out = {"gmem": rep.gmem_bytes, "functions": funcs}
            try:
                cfile.parent.mkdir(parents=True, exist_ok=True)
                cfile.write_text(json.dumps({"gmem": out["gmem"],
                                             "functions": {k: f.to_json() for k, f in funcs.items()}}),
                                 encoding="utf-8")
            except OSError:
                pass
    with _lock:
        _memo[key] = out
    return out
