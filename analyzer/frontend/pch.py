"""A precompiled CUDA prelude: parsed once per libclang version and options, then loaded.

Every file cudalint parses starts with ``-include cuda_prelude.h``, which pulls in the bundled
CUDA headers and a few C/C++ library headers: a large part of each parse. clang can load that
work from a precompiled header instead (``-include-pch``). The PCH is built with libclang itself
(``TranslationUnit.save``) from the same arguments minus the file's own include dirs, and kept
in ``$CUDALINT_CACHE_DIR/pch/`` (or ``~/.cache/cudalint/pch/``) under a key made of the libclang
version, those arguments and the prelude's text. clang validates the headers inside a PCH
(size and mtime) when it loads it; cudalint also records them and rebuilds when one changed.

C++20 and later are parsed without a PCH (libclang crashes loading one with some standard
headers). Set ``CUDALINT_NO_PCH=1`` to parse the prelude every time. Any failure to build or load a PCH
falls back to ``-include`` silently: the PCH is only an optimisation.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Optional, Sequence

import clang.cindex as ci

__all__ = ["pch_args", "pch_dependencies", "cache_dir"]

FORMAT = 1
_lock = threading.Lock()
_memo: dict[str, Optional[str]] = {}  # key -> PCH path (None: cannot be built here)
_PARSE_INCOMPLETE = 0x02  # CXTranslationUnit_Incomplete: a header, not a whole program
_FOR_SERIALIZATION = 0x10


def cache_dir() -> Path:
    env = os.environ.get("CUDALINT_CACHE_DIR")
    base = Path(env) if env else Path(os.path.expanduser("~")) / ".cache" / "cudalint"
    return base / "pch"


def _clang_version_str() -> str:
    try:
        f = ci.conf.lib.clang_getClangVersion
        f.restype = ci._CXString
        f.errcheck = ci._CXString.from_result
        return str(f())
    except Exception:  # noqa: BLE001
        return ci.__file__


def _split(args: Sequence[str], prelude: str) -> Optional[tuple[list[str], list[str]]]:
    """(arguments the PCH depends on, the file's own include/define arguments), or None when
    ``args`` do not ``-include`` the prelude."""
    common: list[str] = []
    own: list[str] = []
    found = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-include" and i + 1 < len(args) and args[i + 1] == prelude:
            found = True
            i += 2
            continue
        if a in ("-I", "-iquote") and i + 1 < len(args):
            own += [a, args[i + 1]]
            i += 2
            continue
        if a.startswith(("-I", "-iquote")) and len(a) > 2:
            own.append(a)
            i += 1
            continue
        common.append(a)
        i += 1
    return (common, own) if found else None


def _stamp(paths: Sequence[str]) -> list[list]:
    out = []
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        out.append([p, st.st_size, st.st_mtime_ns])
    return out


def _fresh(meta_file: Path) -> bool:
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("format") == FORMAT and _stamp([d[0] for d in meta["deps"]]) == meta["deps"]


def _build(prelude: str, common: list[str], target: Path, meta_file: Path) -> bool:
    """Build the PCH in a child process: saving a PCH makes LLVM install process-wide signal
    handlers (to delete its temporary file on a crash), and a crash while building must not
    end cudalint either."""
    import subprocess
    import sys

    try:
        p = subprocess.run([sys.executable, "-m", __name__, json.dumps([prelude, common, str(target), str(meta_file)])],
                           capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and target.is_file()


def _build_here(prelude: str, common: list[str], target: Path, meta_file: Path) -> bool:
    index = ci.Index.create()
    tu = index.parse(prelude, args=common, options=_PARSE_INCOMPLETE | _FOR_SERIALIZATION)
    if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
        return False  # the prelude does not parse alone with these options: use -include
    deps = sorted({prelude} | {i.include.name for i in tu.get_includes()})
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=str(target.parent), suffix=".pch.tmp")
    os.close(fd)
    try:
        tu.save(tmp)
        os.replace(tmp, target)
    except Exception:  # noqa: BLE001 - TranslationUnitSaveError, OSError
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    fd, tmp = tempfile.mkstemp(dir=str(target.parent), suffix=".json.tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"format": FORMAT, "deps": _stamp(deps)}, f)
    os.replace(tmp, meta_file)
    return True


def pch_dependencies(pch: str) -> list[str]:
    """The headers a PCH was built from (recorded when it was built)."""
    try:
        meta = json.loads(Path(pch).with_suffix(".json").read_text(encoding="utf-8"))
        return [d[0] for d in meta["deps"]]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return []


def _std_year(std: str) -> int:
    tail = std.replace("gnu++", "").replace("c++", "")
    return {"2a": 20, "2b": 23, "2c": 26, "1z": 17, "1y": 14, "0x": 11}.get(tail, int(tail) if tail.isdigit() else 0)


def pch_args(args: Sequence[str], prelude: str) -> list[str]:
    """``args`` with ``-include PRELUDE`` replaced by ``-include-pch PCH`` when a PCH can be
    had (built now if missing or stale); ``args`` unchanged otherwise."""
    if os.environ.get("CUDALINT_NO_PCH"):
        return list(args)
    split = _split(args, prelude)
    if split is None or any(a.startswith("-std=") and _std_year(a[5:]) >= 20 for a in args):
        # libclang 18-20 crashes loading a C++20 PCH with <thread>/<chrono> and misreads
        # <vector>: C++20 files parse the prelude as text
        return list(args)
    common, _ = split
    try:
        text = Path(prelude).read_bytes()
    except OSError:
        return list(args)
    key = hashlib.sha256(json.dumps([FORMAT, _clang_version_str(), common, prelude,
                                     hashlib.sha256(text).hexdigest()]).encode()).hexdigest()[:32]
    with _lock:
        if key in _memo:
            path = _memo[key]
        else:
            target = cache_dir() / f"prelude-{key}.pch"
            meta = target.with_suffix(".json")
            ok = target.is_file() and _fresh(meta)
            if not ok:
                try:
                    ok = _build(prelude, common, target, meta)
                except Exception:  # noqa: BLE001 - no PCH, no harm
                    ok = False
            path = _memo[key] = str(target) if ok else None
    if path is None:
        return list(args)
    out = []
    i = 0
    while i < len(args):
        if args[i] == "-include" and i + 1 < len(args) and args[i + 1] == prelude:
            out += ["-include-pch", path]
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out


if __name__ == "__main__":  # the child of _build
    import sys

    _p, _c, _t, _m = json.loads(sys.argv[1])
    raise SystemExit(0 if _build_here(_p, _c, Path(_t), Path(_m)) else 1)
