"""NVRTC through ctypes: ptxas' resource report without a CUDA toolkit.

``pip install 'cudalint[ptxas]'`` brings the ``nvidia-cuda-nvrtc`` wheel (CUDA 13 puts the
library in ``nvidia/cu13/lib``, CUDA 12's ``nvidia-cuda-nvrtc-cu12`` in
``nvidia/cuda_nvrtc/lib``). NVRTC compiles device code to a CUBIN with the same ptxas as nvcc,
and ``-Xptxas=-v`` puts ptxas' report (``Used N registers, ...``) in the program log, in
nvcc's format.

The compile runs in C with the GIL released (ctypes), so a worker thread compiles while the
analysis goes on. Nothing here raises: :func:`compile_log` returns ``(ok, log)``.
"""
from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import threading
from functools import lru_cache
from typing import Iterable, Optional, Sequence

__all__ = ["find_nvrtc", "nvrtc_version", "compile_log", "supported_archs"]

_LOCK = threading.Lock()  # one compile at a time per process: keeps memory bounded


def _wheel_dirs() -> list[str]:
    spec = importlib.util.find_spec("nvidia")
    out = []
    for base in (spec.submodule_search_locations or []) if spec else []:
        out += [os.path.join(base, "cu13", "lib"), os.path.join(base, "cuda_nvrtc", "lib"),
                os.path.join(base, "cu12", "lib")]
    return out


def _candidates() -> list[str]:
    env = os.environ.get("CUDALINT_NVRTC")
    if env:
        return [env]
    dirs = _wheel_dirs()
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            dirs.append(os.path.join(root, "lib64"))
    out = []
    for d in dirs:
        out += sorted(glob.glob(os.path.join(d, "libnvrtc.so*")), key=len)
    return [p for p in out if ".alt." not in p and "builtins" not in p]


@lru_cache(maxsize=1)
def _load() -> tuple[Optional[ctypes.CDLL], Optional[str], str]:
    """(library, its path, why not)."""
    why = "NVRTC not found (pip install 'cudalint[ptxas]', or set CUDALINT_NVRTC)"
    for path in _candidates():
        d = os.path.dirname(path)
        try:
            # libnvrtc dlopen()s its builtins by soname: load them first from the same folder
            for b in sorted(glob.glob(os.path.join(d, "libnvrtc-builtins.so*")), key=len):
                if ".alt." not in b:
                    ctypes.CDLL(b, mode=ctypes.RTLD_GLOBAL)
                    break
            lib = ctypes.CDLL(path)
        except OSError as e:
            why = f"cannot load {path}: {e}"
            continue
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        return lib, path, ""
    return None, None, why


def find_nvrtc() -> Optional[str]:
    """Path of the NVRTC library that would be used, or None."""
    return _load()[1]


def nvrtc_version() -> Optional[str]:
    lib = _load()[0]
    if lib is None:
        return None
    major, minor = ctypes.c_int(), ctypes.c_int()
    if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) != 0:
        return None
    return f"{major.value}.{minor.value}"


def supported_archs() -> Optional[list[str]]:
    lib = _load()[0]
    if lib is None:
        return None
    n = ctypes.c_int()
    if lib.nvrtcGetNumSupportedArchs(ctypes.byref(n)) != 0 or n.value <= 0:
        return None
    arr = (ctypes.c_int * n.value)()
    if lib.nvrtcGetSupportedArchs(arr) != 0:
        return None
    return [f"sm_{v}" for v in arr]


def _include_dirs(lib_path: str) -> list[str]:
    """Headers for device code (cuda_fp16.h, cooperative_groups.h and the libcu++ they use):
    next to the library (CUDA 13 wheels: ``nvidia/cu13/include`` from nvidia-cuda-runtime and
    nvidia-cuda-cccl), the CUDA 12 wheels' ``nvidia/cuda_runtime`` and ``nvidia/cuda_cccl``, or
    a toolkit's."""
    nv = os.path.dirname(os.path.dirname(os.path.dirname(lib_path)))
    cands = [os.path.join(os.path.dirname(os.path.dirname(lib_path)), "include"),
             os.path.join(nv, "cuda_runtime", "include"), os.path.join(nv, "cuda_cccl", "include")]
    cands += [os.path.join(r, "include") for r in
              (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda") if r]
    out: list[str] = []
    for inc in cands:
        for d in (inc, os.path.join(inc, "cccl")):
            if os.path.isdir(d) and d not in out:
                out.append(d)
        if any(os.path.isfile(os.path.join(d, "cuda_fp16.h")) for d in out):
            break  # one complete set: mixing headers of two CUDA versions breaks
    return out


def compile_log(code: str, name: str, options: Sequence[str],
                name_expressions: Iterable[str] = ()) -> tuple[bool, str]:
    """Compile ``code`` with NVRTC; (success, program log). Options are NVRTC's
    (``-arch=sm_90``, ``-I...``, ``-D...``, ``-Xptxas=-v``)."""
    lib, path, why = _load()
    if lib is None:
        return False, why
    opts = list(options)
    opts += [f"-I{d}" for d in _include_dirs(path or "")]
    prog = ctypes.c_void_p()
    with _LOCK:
        rc = lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode("utf-8", "surrogateescape"),
                                    name.encode(), 0, None, None)
        if rc != 0:
            return False, f"nvrtcCreateProgram: {lib.nvrtcGetErrorString(rc).decode()}"
        try:
            for e in name_expressions:
                lib.nvrtcAddNameExpression(prog, e.encode())
            arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
            rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
            size = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(max(1, size.value))
            lib.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode("utf-8", "replace")
            if rc != 0:
                return False, log or lib.nvrtcGetErrorString(rc).decode()
            return True, log
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))
