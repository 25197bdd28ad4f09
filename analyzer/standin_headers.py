"""cudalint's declaration stand-ins for LibTorch and pybind11, lent to nvcc.

A PyTorch C++/CUDA extension (``#include <torch/extension.h>``) cannot be compiled by nvcc
on a machine without LibTorch, so ptxas gave no register count for it, and the device-only
split (analyzer/device_code) misses what such files take from their own headers (LeetCUDA's
``utils.h``). The frontend parses them with declaration stand-ins
(``frontend/include/{torch,ATen,c10,pybind11}``); nvcc can use the same ones: ``-cubin``
compiles device code only, and the host code needs only to be declared.

They go last on nvcc's search path (``-idirafter``, through ``-Xcompiler`` to the host
preprocessor nvcc runs first), so a real LibTorch on the include path or in the system's
directories wins. The directory handed to nvcc holds links to those four stand-ins only (the
others, cuda_runtime.h and co., must not shadow the toolkit's); its name carries a digest of
their content, so that a changed stand-in changes the compile's arguments, hence its cache key.
"""
from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

__all__ = ["LIBRARIES", "needs_standins", "nvcc_flags"]

LIBRARIES = ("torch", "ATen", "c10", "pybind11")
_HEADERS = Path(__file__).resolve().parent / "frontend" / "include"
_WANTS = re.compile(r'^\s*#\s*include\s*[<"](?:' + "|".join(LIBRARIES) + r')/', re.M)


def needs_standins(text: str) -> bool:
    """The source includes a LibTorch or pybind11 header."""
    return _WANTS.search(text) is not None


@lru_cache(maxsize=1)
def _digest() -> str:
    h = hashlib.sha256()
    for lib in LIBRARIES:
        for root, dirs, files in sorted(os.walk(_HEADERS / lib)):
            dirs.sort()
            for f in sorted(files):
                p = Path(root) / f
                h.update(str(p.relative_to(_HEADERS)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=4)
def _directory(cache_root: str) -> Optional[str]:
    """A directory of links to the stand-ins, made once under ``cache_root``; None where it
    cannot be made (a read-only cache)."""
    try:
        d = Path(cache_root) / f"standin-include-{_digest()}"
        if not all((d / lib).exists() for lib in LIBRARIES):
            tmp = Path(cache_root) / f".standin-{os.getpid()}"
            tmp.mkdir(parents=True, exist_ok=True)
            for lib in LIBRARIES:
                link = tmp / lib
                if not link.is_symlink():
                    link.symlink_to(_HEADERS / lib, target_is_directory=True)
            try:
                os.replace(tmp, d)  # atomic: another process may be making the same one
            except OSError:
                if not all((d / lib).exists() for lib in LIBRARIES):
                    raise
                for lib in LIBRARIES:
                    (tmp / lib).unlink(missing_ok=True)
                tmp.rmdir()
        return str(d)
    except OSError:
        return None


def nvcc_flags(text: str, cache_root: os.PathLike | str) -> list[str]:
    """nvcc options that put the stand-ins last on the search path, when ``text`` includes one
    of their libraries; [] otherwise."""
    if not needs_standins(text):
        return []
    d = _directory(str(cache_root))
    return ["-Xcompiler", f"-idirafter,{d}"] if d else []
