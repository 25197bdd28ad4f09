"""Exact per-kernel resources from ``ptxas``.

When a CUDA compiler is available cudalint compiles the file for the target architecture and
reads ptxas' resource report (``nvcc -cubin -arch=sm_XX -Xptxas -v``)::

    ptxas info    : Compiling entry function '_Z12occ_smem_40kPKfPfi' for 'sm_80'
    ptxas info    : Function properties for _Z12occ_smem_40kPKfPfi
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 25 registers, used 1 barriers, 40960 bytes smem

Per function: registers, barriers, stack frame, spill stores/loads, static shared memory,
constant banks, local memory and cumulative stack; names are demangled with ``cu++filt`` or
``c++filt`` when one is installed (otherwise a small built-in decoder recovers the plain
kernel name). Results are cached on disk by a SHA-256 of the file's content (and of the
quoted ``#include`` files it pulls in), the arguments and the compiler's version, in
``$CUDALINT_CACHE_DIR`` or ``~/.cache/cudalint/ptxas/``.

Nothing here raises: a missing compiler, an architecture the compiler does not support
(nvcc 13 dropped everything below sm_75), a compile error or a timeout give a
:class:`PtxasReport` with ``ok=False`` and a ``reason``.

TODO(estimate): without a compiler cudalint has no register count; an IR-based estimate
(live-value count of the hot loop) is not implemented yet, callers must say the count is
unknown rather than guess.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from . import standin_headers
from .target import DEFAULT_ARCH

__all__ = [
    "KernelResources",
    "PtxasReport",
    "find_nvcc",
    "nvcc_version",
    "supported_archs",
    "parse_ptxas_output",
    "demangle",
    "base_name",
    "ptxas_resources",
    "cache_dir",
    "nvcc_plan",
    "NvccPlan",
]

CACHE_FORMAT = 2


@dataclass(frozen=True)
class KernelResources:
    """ptxas' resource report for one function."""

    name: str  # as ptxas prints it (mangled for C++ linkage)
    demangled: Optional[str] = None
    arch: Optional[str] = None
    is_entry: bool = True  # __global__ (an "entry function"), else a device function
    registers: Optional[int] = None
    barriers: Optional[int] = None
    stack_frame_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    static_smem_bytes: int = 0
    param_smem_bytes: int = 0  # sm_1x: the "+N" of "N+M bytes smem"
    local_bytes: int = 0  # "bytes lmem" (older ptxas)
    cumulative_stack_bytes: Optional[int] = None
    constant_bytes: dict[int, int] = field(default_factory=dict)  # bank -> bytes

    @property
    def spill_bytes(self) -> int:
        return self.spill_store_bytes + self.spill_load_bytes

    @property
    def plain_name(self) -> str:
        """The unqualified function name (``occ_smem_40k``)."""
        return base_name(self.demangled or self.name)

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["constant_bytes"] = {str(k): v for k, v in self.constant_bytes.items()}
        d["spill_bytes"] = self.spill_bytes
        d["plain_name"] = self.plain_name
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "KernelResources":
        d = dict(d)
        d.pop("spill_bytes", None)
        d.pop("plain_name", None)
        d["constant_bytes"] = {int(k): v for k, v in (d.get("constant_bytes") or {}).items()}
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


@dataclass
class PtxasReport:
    """All functions of one compilation, or why there are none."""

    ok: bool
    reason: Optional[str] = None
    arch: Optional[str] = None
    nvcc: Optional[str] = None
    nvcc_version: Optional[str] = None
    command: list[str] = field(default_factory=list)
    functions: dict[str, KernelResources] = field(default_factory=dict)  # by mangled name
    gmem_bytes: Optional[int] = None
    cached: bool = False
    log: str = ""
    mode: str = ""  # "device code only" | "whole file": what the compiler was given
    host_error: Optional[str] = None  # why the whole file did not compile, when it was tried
    batch: list[str] = field(default_factory=list)  # the other files compiled in the same nvcc call
    # A failure caused by a header nvcc could not find: {"header": name, "dirs": where nvcc
    # looked}. Such a failure is cached until the header appears in one of those directories.
    missing: Optional[dict] = None

    @property
    def kernels(self) -> dict[str, KernelResources]:
        """Entry functions (``__global__``) only, by mangled name."""
        return {k: v for k, v in self.functions.items() if v.is_entry}

    def find(self, name: str) -> Optional[KernelResources]:
        """Look a function up by mangled name, demangled signature, qualified name
        (``ns::kern``) or plain name (``kern``); entry functions win over device functions,
        and a plain name that matches several instantiations returns the first."""
        if name in self.functions:
            return self.functions[name]
        matches = []
        for f in self.functions.values():
            dem = f.demangled or ""
            if name == dem or name == _qualified_name(dem) or name == f.plain_name:
                matches.append(f)
        if not matches:
            return None
        matches.sort(key=lambda f: (not f.is_entry,))
        return matches[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "reason": self.reason, "arch": self.arch, "nvcc": self.nvcc,
            "nvcc_version": self.nvcc_version, "command": list(self.command),
            "functions": {k: v.to_json() for k, v in self.functions.items()},
            "gmem_bytes": self.gmem_bytes, "log": self.log, "mode": self.mode, "host_error": self.host_error,
            "batch": list(self.batch), "missing": self.missing,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "PtxasReport":
        return cls(
            ok=d["ok"], reason=d.get("reason"), arch=d.get("arch"), nvcc=d.get("nvcc"),
            nvcc_version=d.get("nvcc_version"), command=list(d.get("command") or []),
            functions={k: KernelResources.from_json(v) for k, v in (d.get("functions") or {}).items()},
            gmem_bytes=d.get("gmem_bytes"), log=d.get("log", ""), mode=d.get("mode", ""), host_error=d.get("host_error"),
            batch=list(d.get("batch") or []), missing=d.get("missing"))


# --------------------------------------------------------------------------- tools
def find_nvcc(nvcc: Optional[str] = None) -> Optional[str]:
    """Path of nvcc: the argument, ``$CUDALINT_NVCC``, ``PATH``, ``$CUDA_HOME/bin``,
    ``/usr/local/cuda/bin``, or the ``nvidia-cuda-nvcc`` wheel."""
    cands: list[Optional[str]] = [nvcc, os.environ.get("CUDALINT_NVCC")]
    for cand in cands:
        if cand:
            p = shutil.which(cand) or (cand if os.path.isfile(cand) and os.access(cand, os.X_OK) else None)
            if p:
                return p
    p = shutil.which("nvcc")
    if p:
        return p
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            q = os.path.join(root, "bin", "nvcc")
            if os.path.isfile(q) and os.access(q, os.X_OK):
                return q
    try:  # pip install nvidia-cuda-nvcc(-cu12)
        import nvidia.cuda_nvcc as _w  # type: ignore

        for base in getattr(_w, "__path__", []):
            q = os.path.join(base, "bin", "nvcc")
            if os.path.isfile(q) and os.access(q, os.X_OK):
                return q
    except Exception:
        pass
    return None


def _run(cmd: Sequence[str], timeout: float, stdin: Optional[str] = None) -> tuple[int, str, str]:
    try:
        p = subprocess.run(list(cmd), input=stdin, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return 124, out, err + f"\ntimed out after {timeout:g} s"
    except OSError as e:
        return 127, "", f"cannot run {cmd[0]}: {e}"


def _tool_identity(path: str) -> Optional[list]:
    """What identifies this compiler on disk, so that what it prints about itself (its version,
    its architectures) can be kept across runs: the resolved file's path, size, mtime and inode,
    and for a shell-script wrapper (``exec /usr/local/cuda-13.0/bin/nvcc "$@"``) the same of
    every absolute path it names. None when that cannot tell an update (a wrapper that finds
    nvcc through PATH, an unreadable file): then nvcc is asked in every process."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
        ident: list = [[real, st.st_size, st.st_mtime_ns, st.st_ino]]
        if st.st_size > 65536:
            return ident  # a binary, not a wrapper
        with open(real, "rb") as f:
            text = f.read()
        if not text.startswith(b"#!"):
            return ident
        body = text.split(b"\n", 1)[1] if b"\n" in text else b""
        named = [os.fsdecode(m) for m in re.findall(rb"(?<![\w.])(/[\w.+/-]+)", body)]
        targets = sorted({os.path.realpath(t) for t in named if os.path.isfile(t) and os.access(t, os.X_OK)})
        if not targets:
            return None
        for t in targets:
            tst = os.stat(t)
            ident.append([t, tst.st_size, tst.st_mtime_ns, tst.st_ino])
        return ident
    except OSError:
        return None


_tool_memo_lock = threading.Lock()


@lru_cache(maxsize=16)
def _tool_fact(nvcc: str, what: str, ident_json: Optional[str]):
    """``nvcc --version`` or ``--list-gpu-arch``, parsed; kept on disk (next to ptxas' reports)
    under the compiler's identity (``_tool_identity``), since every process of a run needs them
    before it can read a cached report, and each call costs 20 to 50 ms."""
    cfile = None
    if ident_json is not None:
        key = hashlib.sha256(json.dumps([what, ident_json]).encode()).hexdigest()[:32]
        cfile = cache_dir() / "tools" / f"{key}.json"
        try:
            return _from_disk(what, json.loads(cfile.read_text(encoding="utf-8"))["value"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    rc, out, _ = _run([nvcc, "--version" if what == "version" else "--list-gpu-arch"], 30)
    value = _parse_tool_output(what, out) if rc == 0 else None
    if cfile is not None and value is not None:
        try:
            with _tool_memo_lock:
                cfile.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=str(cfile.parent), suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump({"value": list(value) if isinstance(value, tuple) else value}, fh)
                os.replace(tmp, cfile)
        except OSError:
            pass
    return value


def _parse_tool_output(what: str, out: str):
    if what == "version":
        m = re.search(r"release\s+([\d.]+),\s*V([\d.]+)", out)
        return m.group(2) if m else out.strip().splitlines()[-1] if out.strip() else None
    archs = tuple(sorted({"sm_" + m for m in re.findall(r"compute_(\d+)", out)}, key=lambda s: int(s[3:])))
    return archs or None


def _from_disk(what: str, value):
    if what == "version":
        if not isinstance(value, str):
            raise TypeError(value)
        return value
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise TypeError(value)
    return tuple(value) or None


def _tool_ident_json(path: str) -> Optional[str]:
    ident = _tool_identity(path)
    return json.dumps(ident) if ident is not None else None


def nvcc_version(nvcc: Optional[str] = None) -> Optional[str]:
    """``13.0.88`` for ``Cuda compilation tools, release 13.0, V13.0.88``; None without nvcc."""
    path = find_nvcc(nvcc)
    if not path:
        return None
    ident = _tool_ident_json(path)
    return _tool_fact(path, "version", ident)


def supported_archs(nvcc: Optional[str] = None) -> Optional[list[str]]:
    """``sm_XX`` names the compiler can target (``nvcc --list-gpu-arch``), or None if unknown."""
    path = find_nvcc(nvcc)
    if not path:
        return None
    ident = _tool_ident_json(path)
    r = _tool_fact(path, "archs", ident)
    return list(r) if r else None


# --------------------------------------------------------------------------- names
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")


def _strip_templates(s: str) -> str:
    prev = None
    while prev != s:
        prev, s = s, _TEMPLATE_ARGS.sub("", s)
    return s


def without_parameters(demangled: str) -> str:
    """A demangled signature up to its parameter list (the first '(' at template depth 0):
    ``void ns::kern<4>(float*)`` -> ``void ns::kern<4>``."""
    s = demangled.strip()
    depth = 0
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return s[:i]
    return s


def _qualified_name(demangled: str) -> str:
    """``void ns::kern<4>(float*)`` -> ``ns::kern``."""
    s = demangled.strip()
    if not s:
        return s
    head = _strip_templates(without_parameters(s)).strip()
    # drop a return type ("void ns::kern") : the last space-separated token at depth 0
    return head.split(" ")[-1] if head else head


def base_name(name: str) -> str:
    """Unqualified function name from a demangled signature or a mangled name."""
    if name.startswith("_Z"):
        dm = _builtin_demangle_name(name)
        if dm:
            return dm.split("::")[-1]
        return name
    return _qualified_name(name).split("::")[-1]


def _builtin_demangle_name(mangled: str) -> Optional[str]:
    """Qualified name of an Itanium-mangled function (no parameter types): enough to match a
    kernel by name when no demangler is installed."""
    s = mangled
    if not s.startswith("_Z"):
        return None
    i = 2
    parts: list[str] = []

    def read_source_name(j: int) -> tuple[Optional[str], int]:
        m = re.match(r"\d+", s[j:])
        if not m:
            return None, j
        n = int(m.group(0))
        j += len(m.group(0))
        return s[j:j + n], j + n

    if i < len(s) and s[i] == "N":
        i += 1
        while i < len(s) and s[i] in "rVK":  # cv-qualifiers of member functions
            i += 1
        while i < len(s) and s[i] != "E":
            if s[i] == "I":  # template args inside the nested name: skip balanced I...E
                depth = 0
                while i < len(s):
                    if s[i] == "I":
                        depth += 1
                    elif s[i] == "E":
                        depth -= 1
                        if depth == 0:
                            i += 1
                            break
                    i += 1
                continue
            if s[i] == "S" or s[i] == "L":  # substitutions / local names: give up gracefully
                i += 1
                continue
            name, j = read_source_name(i)
            if name is None:
                break
            parts.append(name)
            i = j
    else:
        if s[i:i + 1] == "L":
            i += 1
        name, _ = read_source_name(i)
        if name:
            parts.append(name)
    return "::".join(parts) if parts else None


def _demangler() -> Optional[str]:
    for tool in ("cu++filt", "c++filt", "llvm-cxxfilt"):
        p = shutil.which(tool)
        if p:
            return p
    nv = find_nvcc()
    if nv:
        q = os.path.join(os.path.dirname(nv), "cu++filt")
        if os.path.isfile(q):
            return q
    return None


def demangle(names: Iterable[str]) -> dict[str, Optional[str]]:
    """Demangle many names at once; a name that cannot be demangled maps to None (C linkage
    names map to themselves)."""
    names = list(dict.fromkeys(names))
    out: dict[str, Optional[str]] = {}
    mangled = [n for n in names if n.startswith("_Z")]
    for n in names:
        if not n.startswith("_Z"):
            out[n] = n
    if not mangled:
        return out
    tool = _demangler()
    if tool:
        rc, stdout, _ = _run([tool], 30, stdin="\n".join(mangled) + "\n")
        lines = stdout.splitlines()
        if rc == 0 and len(lines) == len(mangled):
            for n, d in zip(mangled, lines):
                out[n] = d.strip() if d.strip() and d.strip() != n else None
    for n in mangled:
        out.setdefault(n, None)  # unknown signature; base_name() still decodes the plain name
    return out


# --------------------------------------------------------------------------- parsing
_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame(?:, (\d+) bytes spill stores, (\d+) bytes spill loads)?")
_USED = re.compile(r"Used (\d+) registers(.*)")
_GMEM = re.compile(r"ptxas info\s*:\s*(\d+) bytes gmem")


def parse_ptxas_output(text: str, demangle_names: bool = True) -> dict[str, KernelResources]:
    """Parse ``ptxas -v`` / ``nvcc --resource-usage`` output into per-function resources,
    keyed by the name ptxas prints. Accepts the formats of CUDA 2.x through 13.x."""
    funcs: dict[str, dict[str, Any]] = {}
    current: Optional[str] = None
    props_for: Optional[str] = None

    def rec(name: str) -> dict[str, Any]:
        if name not in funcs:
            funcs[name] = {"name": name, "is_entry": False}
        return funcs[name]

    for raw in text.splitlines():
        line = raw.strip()
        m = _ENTRY.search(line)
        if m:
            current = m.group(1)
            r = rec(current)
            r["is_entry"] = True
            r["arch"] = m.group(2)
            props_for = None
            continue
        m = _PROPS.search(line)
        if m:
            props_for = m.group(1)
            rec(props_for)
            continue
        m = _FRAME.search(line)
        if m and props_for is not None:
            r = rec(props_for)
            r["stack_frame_bytes"] = int(m.group(1))
            if m.group(2) is not None:
                r["spill_store_bytes"] = int(m.group(2))
                r["spill_load_bytes"] = int(m.group(3))
            continue
        m = _USED.search(line)
        if m:
            # the "Used" line follows the function's own properties (entry or, with -rdc on
            # older ptxas, device function); CUDA <= 4 printed no properties line at all
            target = props_for if props_for is not None else current
            if target is None:
                continue
            r = rec(target)
            r["registers"] = int(m.group(1))
            rest = m.group(2)
            for item in rest.split(","):
                item = item.strip()
                if not item:
                    continue
                mm = re.match(r"used (\d+) barriers?", item)
                if mm:
                    r["barriers"] = int(mm.group(1))
                    continue
                mm = re.match(r"(\d+)(?:\+(\d+))? bytes smem", item)
                if mm:
                    r["static_smem_bytes"] = int(mm.group(1))
                    if mm.group(2):
                        r["param_smem_bytes"] = int(mm.group(2))
                    continue
                mm = re.match(r"(\d+) bytes cmem\[(\d+)\]", item)
                if mm:
                    r.setdefault("constant_bytes", {})[int(mm.group(2))] = int(mm.group(1))
                    continue
                mm = re.match(r"(\d+)(?:\+(\d+))? bytes lmem", item)
                if mm:
                    r["local_bytes"] = int(mm.group(1))
                    continue
                mm = re.match(r"(\d+) bytes cumulative stack size", item)
                if mm:
                    r["cumulative_stack_bytes"] = int(mm.group(1))
                    continue
            continue
    dem = demangle(funcs) if demangle_names else {}
    out: dict[str, KernelResources] = {}
    for name, r in funcs.items():
        d = dem.get(name)
        r["demangled"] = d if (d and d != name) else None
        out[name] = KernelResources(**r)
    return out


def _parse_gmem(text: str) -> Optional[int]:
    m = _GMEM.search(text)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------- caching
def cache_dir() -> Path:
    env = os.environ.get("CUDALINT_CACHE_DIR")
    base = Path(env) if env else Path(os.path.expanduser("~")) / ".cache" / "cudalint"
    return base / "ptxas"


_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def _source_digest(path: Path, include_dirs: Sequence[str]) -> str:
    """SHA-256 over the file and, recursively, the quoted includes found next to it or in
    the include dirs (system ``<...>`` headers are covered by the compiler version)."""
    h = hashlib.sha256()
    for n, (_, text) in enumerate(_quoted_closure(path, include_dirs), 1):
        h.update(str(n).encode() + b"\0" + text + b"\0")
    return h.hexdigest()


def _quoted_closure(path: Path, include_dirs: Sequence[str]) -> list[tuple[Path, bytes]]:
    """The file and, recursively, the quoted includes found next to it or in the include
    dirs, with their content, in a fixed order."""
    out = []
    seen: set[Path] = set()
    stack = [path]
    while stack:
        p = stack.pop()
        try:
            rp = p.resolve()
        except OSError:
            continue
        if rp in seen:
            continue
        seen.add(rp)
        try:
            data = rp.read_bytes()
        except OSError:
            continue
        out.append((rp, data))
        for inc in _INCLUDE.findall(data.decode("utf-8", "replace")):
            for d in [rp.parent, *map(Path, include_dirs)]:
                q = d / inc
                if q.is_file():
                    stack.append(q)
                    break
    return out


# --------------------------------------------------------------------------- main entry
def ptxas_resources(
    path: os.PathLike[str] | str,
    arch: str = DEFAULT_ARCH,
    include_dirs: Sequence[str | os.PathLike[str]] = (),
    defines: Sequence[str] = (),
    extra_args: Sequence[str] = (),
    *,
    nvcc: Optional[str] = None,
    timeout: float = 120.0,
    use_cache: bool = True,
    cache_root: Optional[os.PathLike[str] | str] = None,
    instantiations: Sequence[str] = (),
) -> PtxasReport:
    """Compile ``path`` for ``arch`` with ptxas' verbose report and return every function's
    resources. Never raises; ``report.ok`` is False with a ``reason`` when nothing could be
    compiled."""
    try:
        return _ptxas_resources(path, arch, include_dirs, defines, extra_args, nvcc, timeout,
                                use_cache, cache_root, list(instantiations))
    except Exception as e:  # pragma: no cover - defensive: the contract is "never raise"
        return PtxasReport(ok=False, reason=f"internal error: {type(e).__name__}: {e}", arch=str(arch))


def _normalize_arch(arch: str) -> str:
    try:
        from .target import parse_arch

        cc, suffix = parse_arch(arch)
        major, minor = cc.split(".")
        return f"sm_{major}{minor}{suffix}"
    except Exception:
        return str(arch)


def _ptxas_resources(path, arch, include_dirs, defines, extra_args, nvcc, timeout, use_cache,
                     cache_root, insts: list[str]) -> PtxasReport:
    plan = _prepare(path, arch, include_dirs, defines, extra_args, nvcc, timeout, insts)
    if isinstance(plan, PtxasReport):
        return plan
    if plan is None:
        # NVRTC only without nvcc (or when asked for): it runs the same ptxas, but its front end
        # addresses shared memory with 64-bit pointers where nvcc's uses 32-bit ones, so kernels
        # indexing shared arrays can get a few registers more than the user's nvcc build
        # (the ground-truth kernel smem_col_f32: 14 against 11 with 13.0).
        from . import nvrtc

        sm, src = _normalize_arch(arch), Path(path)
        inc = [str(d) for d in include_dirs]
        defs = [d if d.startswith("-D") else f"-D{d}" for d in defines]
        return _with_cache(lambda: _nvrtc_report(src, sm, inc, defs, extra_args, insts), src, inc, sm,
                           ["nvrtc", nvrtc.find_nvrtc(), nvrtc.nvrtc_version()] + defs + list(extra_args)
                           + insts, use_cache, cache_root, device_only=True)
    if not use_cache:
        return plan.compile()
    return _locked_compile(plan.compile, plan.cache_file(cache_root))


def nvcc_plan(path, arch: str = DEFAULT_ARCH, include_dirs: Sequence[str] = (), defines: Sequence[str] = (),
              extra_args: Sequence[str] = (), *, nvcc: Optional[str] = None,
              timeout: float = 120.0) -> Optional["NvccPlan"]:
    """The nvcc compile :func:`ptxas_resources` would run for these arguments (no template
    instantiations requested), or None where it would run none (the file cannot be read, no
    compiler, NVRTC, an architecture nvcc does not support)."""
    try:
        plan = _prepare(path, arch, include_dirs, defines, extra_args, nvcc, timeout, [])
    except Exception:  # noqa: BLE001 - the single compile reports it
        return None
    return plan if isinstance(plan, NvccPlan) else None


def _prepare(path, arch, include_dirs, defines, extra_args, nvcc, timeout, insts: list[str]):
    """An :class:`NvccPlan`, a failed report, or None for NVRTC."""
    sm = _normalize_arch(arch)
    src = Path(path)
    if not src.is_file():
        return PtxasReport(ok=False, reason=f"cannot read {src}", arch=sm)
    inc = [str(d) for d in include_dirs]
    defs = [d if d.startswith("-D") else f"-D{d}" for d in defines]
    backend = os.environ.get("CUDALINT_PTXAS_BACKEND", "").lower()  # nvcc | nvrtc: force one
    tool = None if backend == "nvrtc" else find_nvcc(nvcc)
    from . import nvrtc

    if tool is None and backend != "nvcc" and nvrtc.find_nvrtc():
        return None
    if not tool:
        return PtxasReport(ok=False, reason="nvcc not found (set CUDALINT_NVCC, CUDA_HOME or PATH, "
                                            "or install nvidia-cuda-nvcc), and no NVRTC "
                                            "(pip install 'cudalint[ptxas]'); register counts unavailable",
                           arch=sm)
    version = nvcc_version(tool)
    supported = supported_archs(tool)
    base = re.sub(r"[af]$", "", sm)
    if supported is not None and base not in supported:
        return PtxasReport(
            ok=False, arch=sm, nvcc=tool, nvcc_version=version,
            reason=(f"nvcc {version or ''} cannot compile for {sm} (it supports {supported[0]}..{supported[-1]}"
                    + ("; CUDA 13 dropped architectures below sm_75" if (version or "").startswith("13") else "")
                    + "): register counts unavailable for this target"))
    # LibTorch/pybind11 declarations lent when the file or its own headers include them
    text = "\n".join(t.decode("utf-8", "replace") for _, t in _quoted_closure(src, inc))
    lent = standin_headers.nvcc_flags(text, cache_dir().parent)
    return NvccPlan(src, sm, inc, tool, version, timeout, insts,
                    [tool, "-cubin", f"-arch={sm}", "-Xptxas", "-v", "-o", os.devnull]
                    + [f"-I{d}" for d in inc] + defs + list(extra_args) + lent)


@dataclass
class NvccPlan:
    """One file's compile with nvcc: its command, cache file and device code, so that a batch
    (analyzer/ptxas_batch) can compile it with others and store its report where this compile
    would, or compile it exactly so."""

    src: Path
    sm: str
    inc: list
    tool: str
    version: Optional[str]
    timeout: float
    insts: list
    cmd: list  # without the source

    def __post_init__(self):
        self.dc = _device_code(self.src, self.inc, self.insts)

    @property
    def flags(self) -> list:
        """The defines and other options (the command after its -I options)."""
        return self.cmd[7 + len(self.inc):]

    @property
    def ident(self) -> list:
        return self.cmd[1:] + [self.version or "", os.path.realpath(self.tool)] + self.insts

    def cache_file(self, cache_root=None) -> Path:
        # the key's device code is the one without the requested instantiations (`ident` has them)
        dc = self.dc if not self.insts else _device_code(self.src, self.inc)
        return _cache_file(dc, self.src, self.inc, self.ident, cache_root)

    def compile(self) -> PtxasReport:
        """The device code alone first: host code that this nvcc rejects (an API removed in
        CUDA 13) must not cost the register count. The whole file only if that fails (the
        lexical split missed something the kernels need). A template kernel that no
        instantiation request names (it is instantiated inside host templates, which the
        device-only split cannot follow) sends the whole file first."""
        src, dc, cmd, sm, tool, version, timeout = (self.src, self.dc, self.cmd, self.sm, self.tool,
                                                    self.version, self.timeout)
        whole_first = dc is None or bool(dc.uninstantiated and not self.insts)
        first = None
        if not whole_first:
            first = _nvcc_device_only(src, dc, cmd, sm, tool, version, timeout)
            if first.ok:
                return first
            line = _includes_missing_header(src, first)
            if line:  # the whole file includes it too: it cannot compile either
                first.reason = (f"nvcc failed for {sm}: {src}:{line[0]}: {line[1]}: No such file or "
                                f"directory (so the whole file was not compiled); the device code "
                                f"alone: {first.reason}")
                return self._missing(first, line[1])
        absent = _absent_include(src, _nvcc_search_dirs(tool, src, cmd))
        # a header checked alone (.cuh, .h) is CUDA to nvcc only when told so
        full = cmd + ([] if src.suffix == ".cu" or "-x" in cmd else ["-x", "cu"]) + [str(src)]
        whole = _not_found(absent, str(src), full, sm, tool, version) if absent else \
            _nvcc_run(full, sm, tool, version, timeout)
        if whole.ok or dc is None:
            if not whole.ok and first is not None:
                whole.reason = f"{first.reason}; the whole file: {whole.reason}"
            return whole
        if first is None:
            first = _nvcc_device_only(src, dc, cmd, sm, tool, version, timeout)
            if first.ok:
                first.host_error = whole.reason
                return first
        line = _includes_missing_header(src, first)
        first.reason = f"{whole.reason}; the device code alone: {first.reason}"
        return self._missing(first, line[1]) if line else first

    def _missing(self, rep: PtxasReport, header: str) -> PtxasReport:
        """``rep``, a failure on ``header``, marked so that it is cached until the header
        exists where nvcc looks for it (``_read_cached``)."""
        dirs = _header_search_dirs(self.tool, [str(self.src.parent)] + list(self.inc))
        if dirs:
            rep.missing = {"header": header, "dirs": dirs}
        return rep


def _device_code(src: Path, inc: list[str], insts: Sequence[str] = ()):
    """The file's device code; ``insts`` are template instantiations to request besides those
    found in its host code (name expressions such as ``k<float, 256>``)."""
    from .device_code import device_code

    try:
        dc = device_code(str(src), [str(src.parent)] + inc)
    except (ValueError, OSError, RecursionError):
        return None
    dc.instantiations = list(dict.fromkeys(dc.instantiations + list(insts)))
    return dc


def _with_cache(compile_, src: Path, inc: list[str], sm: str, ident: list, use_cache: bool,
                cache_root, device_only: bool) -> PtxasReport:
    """Run ``compile_`` unless a report for the same device code, options and compiler is on
    disk."""
    if not use_cache:
        return compile_()
    dc = _device_code(src, inc) if device_only else None
    return _locked_compile(compile_, _cache_file(dc, src, inc, ident, cache_root))


def _cache_file(dc, src: Path, inc: list[str], ident: list, cache_root) -> Path:
    """Where a report is cached. The key hashes the device-only code (so an edit of host code
    does not recompile) and, since the whole file is the fallback, the file and its quoted
    includes."""
    kh = hashlib.sha256(json.dumps({
        "format": CACHE_FORMAT, "device": dc.digest if dc else None,
        "src": _source_digest(src, inc), "args": ident}, sort_keys=True).encode()).hexdigest()
    root = Path(cache_root) if cache_root else cache_dir()
    return root / kh[:2] / f"{kh}.json"


def _locked_compile(compile_, cfile: Path) -> PtxasReport:
    rep = _read_cached(cfile)
    if rep is not None:
        return rep
    # Another process (the parent of a worker pool, another cudalint) may be compiling the
    # same code: wait for it and read its report rather than compiling it a second time.
    with _compile_lock(cfile):
        rep = _read_cached(cfile)
        if rep is not None:
            return rep
        rep = compile_()
        _store(cfile, rep)
    return rep


def _read_cached(cfile: Path) -> Optional[PtxasReport]:
    if not cfile.is_file():
        return None
    try:
        rep = PtxasReport.from_json(json.loads(cfile.read_text(encoding="utf-8")))
    except Exception:
        return None
    if not rep.ok and _header_found_since(rep.missing):
        return None  # the header is installed now: compile again
    rep.cached = True
    return rep


def _header_found_since(missing: Optional[dict]) -> bool:
    """Whether the header a cached failure missed exists now where nvcc looked (or the record
    cannot say: then it is treated as found, and the file compiled again)."""
    try:
        header, dirs = missing["header"], missing["dirs"]
        return any(os.path.exists(os.path.join(d, header)) for d in dirs)
    except (TypeError, KeyError):
        return True


@lru_cache(maxsize=8)
def _compiler_search_dirs(tool: str) -> tuple[str, ...]:
    """The directories nvcc adds for ``#include``: the toolkit's (``nvcc --dryrun``: INCLUDES,
    SYSTEM_INCLUDES) and then the host compiler's own (``gcc -xc++ -E -v``); empty when either
    cannot be read."""
    rc, out, err = _run([tool, "--dryrun", "-cubin", "-x", "cu", os.devnull, "-o", os.devnull], 30)
    dirs = [m.group(1) for m in re.finditer(r'(?:-I|-isystem" ")"?([^"\s]+)', out + err)
            if m.group(1) and os.path.isabs(m.group(1))]
    host = shutil.which("gcc") or shutil.which("c++")
    if rc != 0 or not dirs or not host:
        return ()
    rc, out, err = _run([host, "-xc++", "-E", "-v", os.devnull], 30)
    text = out + err
    start, end = text.find("#include <...> search starts here:"), text.find("End of search list.")
    if rc != 0 or start < 0 or end < start:
        return ()
    dirs += [ln.strip() for ln in text[start:end].splitlines()[1:] if ln.strip()]
    return tuple(dict.fromkeys(os.path.normpath(d) for d in dirs))


def _header_search_dirs(tool: str, own: list[str]) -> list[str]:
    """Every directory nvcc searches for a header of a file compiled with ``own`` (the file's
    directory and its -I directories) first; [] when the compiler's own are unknown."""
    base = _compiler_search_dirs(tool)
    return list(dict.fromkeys([os.path.abspath(d) for d in own] + list(base))) if base else []


class _compile_lock:
    """An exclusive lock on ``CACHEFILE.lock`` for one compile (POSIX ``flock``; none elsewhere
    or where the cache folder is not writable). The lock file stays: removing it would race."""

    def __init__(self, cfile: Path, wait: bool = True):
        self.path = cfile.with_suffix(".lock")
        self.fd: Optional[int] = None
        self.wait = wait
        self.busy = False  # wait=False and another holder has it: nothing was locked

    def __enter__(self):
        try:
            import fcntl

            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(str(self.path), os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX if self.wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.busy = True
            os.close(self.fd)
            self.fd = None
        except (ImportError, OSError):
            if self.fd is not None:
                os.close(self.fd)
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock
        return False


def _store(cfile: Path, rep: PtxasReport) -> None:
    if rep.ok or rep.missing:
        # other failures are not cached: they may come from the environment (a missing tool,
        # /tmp); a missing header is cached with where nvcc looked (see _read_cached)
        try:
            cfile.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=str(cfile.parent), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(rep.to_json(), fh)
            os.replace(tmp, cfile)
        except OSError:
            pass


_MISSING_HEADER = re.compile(r"fatal error: ([^\s:]+): No such file or directory")


def _missing_header(rep: PtxasReport) -> Optional[str]:
    """The header a failed compile could not find (its first error), or None."""
    m = _MISSING_HEADER.search(rep.reason or "")
    return m.group(1) if m else None


def _includes_missing_header(src: Path, rep: PtxasReport) -> Optional[tuple[str, str]]:
    """("line:column" of the #include, header) when the header that the failed device-only
    compile ``rep`` could not find is #included by the source file itself: nvcc searches the
    same directories for it in the whole file (its own directory first, as the device-only
    compile's -I does), so that compile would fail on it too. A header found through another header is not decided here:
    inlined into the device code, that header's "quoted" includes resolve elsewhere."""
    header = _missing_header(rep)
    if not header:
        return None
    try:
        text = src.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    pat = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])' + re.escape(header) + r'[>"]', re.M)
    m = pat.search(text)
    if not m:
        return None
    line_start = text.rfind("\n", 0, m.start()) + 1
    return f"{text.count(chr(10), 0, m.start()) + 1}:{m.start(1) - line_start + 1}", header


def _absent_include(src: Path, dirs: list) -> Optional[tuple[int, int, str]]:
    """(line, column, header) of the first ``#include`` of ``src`` outside any ``#if`` (an
    include guard aside) that names a header in none of ``dirs`` (nvcc's search directories,
    the file's own first): the preprocessor stops there with "No such file or directory", so
    that compile need not run. None when every such header exists, or ``dirs`` are unknown."""
    if not dirs:
        return None
    try:
        text = src.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # block comments out (their lines kept, so that line numbers stay)
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = text.splitlines()
    dirs_at = [(n, m) for n, line in enumerate(lines, 1) if (m := _DIRECTIVE.match(line))]
    # `#ifndef X_H` then `#define X_H` first: an include guard, not a condition
    guarded = len(dirs_at) >= 2 and dirs_at[0][1].group(1) == "ifndef" and dirs_at[1][1].group(1) == "define"
    depth = -1 if guarded else 0
    for n, m in dirs_at:
        word = m.group(1)
        if word in ("if", "ifdef", "ifndef"):
            depth += 1
        elif word == "endif":
            depth -= 1
        elif word == "include" and depth <= 0:
            inc = _INCLUDE_NAME.match(lines[n - 1], m.end())
            if inc is None:
                continue  # `#include MACRO`
            name = inc.group(2)
            where = ([str(src.parent)] if inc.group(1) == '"' else []) + list(dirs)
            if not _found(name, where):
                return n, inc.start(1) + 1, name
    return None


def _found(header: str, dirs) -> bool:
    """Whether ``header`` is a file in one of ``dirs``."""
    return any(os.path.isfile(os.path.join(d, header)) for d in dirs)


def _nvcc_search_dirs(tool: str, src: Path, cmd: list) -> list:
    """Every directory an nvcc command searches for a header of ``src`` (its own directory,
    the command's, the compiler's); [] when some cannot be known."""
    own = _cmd_include_dirs(cmd)
    return _header_search_dirs(tool, [str(src.parent)] + own) if own is not None else []


def _cmd_include_dirs(cmd: list) -> Optional[list]:
    """The header directories an nvcc command adds (``-I``, ``-isystem``, ``-Xcompiler
    -idirafter,D`` for the stand-ins...), or None when some option may add one this does not
    read (then nothing is decided without nvcc)."""
    out: list = []
    i = 0
    while i < len(cmd):
        x = cmd[i]
        nxt = cmd[i + 1] if i + 1 < len(cmd) else ""
        if x in ("-I", "-isystem", "--include-path", "--system-include", "-idirafter", "-iquote"):
            out.append(nxt)
            i += 2
            continue
        if x.startswith("-I"):
            out.append(x[2:])
        elif x.startswith(("--include-path=", "--system-include=", "-isystem=")):
            out.append(x.split("=", 1)[1])
        elif x in ("-Xcompiler", "--compiler-options") or x.startswith(("-Xcompiler=", "--compiler-options=")):
            val = x.split("=", 1)[1] if "=" in x else nxt
            parts = val.split(",")
            j = 0
            while j < len(parts):
                q = parts[j]
                for flag in ("-idirafter", "-isystem", "-iquote", "-I"):
                    if q.startswith(flag):
                        d = q[len(flag):] or (parts[j + 1] if j + 1 < len(parts) else "")
                        if not q[len(flag):]:
                            j += 1
                        out.append(d)
                        break
                else:
                    if q.startswith(("-include", "-nostdinc", "--sysroot", "-isysroot")):
                        return None
                j += 1
            if "=" not in x:
                i += 1
        elif x.startswith(("-isystem", "-idirafter", "-iquote", "-nostdinc", "--sysroot", "-isysroot",
                           "-ccbin", "--compiler-bindir", "--input-drive-prefix", "-include",
                           "--pre-include", "-Xcudafe", "-Xcicc")):
            return None
        i += 1
    return [d for d in out if d]


_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(\w+)")
_INCLUDE_NAME = re.compile(r"[ \t]*([<\"])([^>\"\n]+)[>\"]")


def _not_found(absent: tuple, shown: str, cmd: list, sm: str, tool: str, version: Optional[str],
               ) -> PtxasReport:
    """The report nvcc gives for a header it cannot find (its host preprocessor's message)."""
    line, col, name = absent
    log = f"{shown}:{line}:{col}: fatal error: {name}: No such file or directory\ncompilation terminated."
    return PtxasReport(ok=False, reason=_failure(log, 1, sm, "nvcc"), arch=sm, nvcc=tool,
                       nvcc_version=version, command=cmd, log=log)


def _nvcc_device_only(src: Path, dc, cmd: list[str], sm: str, tool: str,
                      version: Optional[str], timeout: float) -> PtxasReport:
    """nvcc on the device code: first without the file's system headers (or with only those
    it names something of: DeviceCode.needed_system_includes), then with all of them (not
    when the first could not find a header: the second includes everything the first did; nor
    when one of those system headers is nowhere nvcc looks: it would stop there)."""
    rep = None
    need = dc.needed_system_includes()
    attempts: list = [need or False, True] if dc.system_includes else [False]
    if need and need == dc.system_includes:
        attempts = [True]
    for system in attempts:
        if rep is not None and _missing_header(rep):
            break
        heads = dc.system_includes if system is True else (system or [])
        if heads:
            dirs = _nvcc_search_dirs(tool, src, cmd)
            gone = next((i for i, h in enumerate(heads) if dirs and not _found(h, dirs)), None)
            if gone is not None:  # the first lines of that code: `#include <h>`, one a line
                rep = _not_found((gone + 1, 10, heads[gone]), f"{src.name} (device code)",
                                 cmd + [f"-I{src.parent}", "-x", "cu", f"{src.stem}.cu"], sm, tool, version)
                rep.mode = "device code only"
                break
        with tempfile.TemporaryDirectory(prefix="cudalint-dev-") as tmp:
            dev = Path(tmp) / (src.stem + ".cu")
            dev.write_text(dc.source_for_nvcc(system_headers=system), encoding="utf-8")
            # the file's own directory first, as for "quoted" includes of the original
            full = cmd + [f"-I{src.parent}"] + ([] if "-x" in cmd else ["-x", "cu"]) + [str(dev)]
            rep = _nvcc_run(full, sm, tool, version, timeout)
        if rep.reason:  # the temporary file means nothing to the user (and differs each run)
            rep.reason = rep.reason.replace(str(dev), f"{src.name} (device code)")
        rep.mode = "device code only"
        if rep.ok:
            break
    return rep


@lru_cache(maxsize=1)
def _nice_prefix() -> tuple[str, ...]:
    """``nice -n 5``: compiles run beside the analysis (in background threads, on the cores it
    leaves); at a lower priority they take what the analysis does not use instead of slowing
    it. ``CUDALINT_NICE=0`` runs them at normal priority."""
    if os.environ.get("CUDALINT_NICE", "") == "0":
        return ()
    tool = shutil.which("nice")
    return (tool, "-n", "5") if tool else ()


def _nvcc_run(cmd: list[str], sm: str, tool: str, version: Optional[str], timeout: float,
              keep: Optional[int] = 4000) -> PtxasReport:
    """One nvcc run; the report keeps the last ``keep`` characters of its output (None: all)."""
    rc, out, err = _run(list(_nice_prefix()) + cmd, timeout)
    log = (out + ("\n" if out and err else "") + err).strip()
    tail = log[-keep:] if keep else log
    if rc == 124:
        return PtxasReport(ok=False, reason=f"nvcc timed out after {timeout:g} s", arch=sm, nvcc=tool,
                           nvcc_version=version, command=cmd, log=tail)
    if rc != 0:
        return PtxasReport(ok=False, reason=_failure(log, rc, sm, "nvcc"), arch=sm, nvcc=tool,
                           nvcc_version=version, command=cmd, log=tail)
    funcs = parse_ptxas_output(log)
    rep = PtxasReport(ok=True, arch=sm, nvcc=tool, nvcc_version=version, command=cmd,
                      functions=funcs, gmem_bytes=_parse_gmem(log), log=tail, mode="whole file")
    if not funcs:
        rep.reason = "nvcc produced no ptxas resource report (no device functions in the file?)"
    return rep


def _failure(log: str, rc: int, sm: str, what: str) -> str:
    first = next((ln.strip() for ln in log.splitlines() if "error" in ln.lower() or "fatal" in ln.lower()),
                 log.splitlines()[0] if log else f"exit status {rc}")
    reason = f"{what} failed for {sm}: {first}"
    if "Unsupported gpu architecture" in log or "invalid value for --gpu-architecture" in log:
        reason += " (CUDA 13 dropped architectures below sm_75)"
    return reason


def _nvrtc_report(src: Path, sm: str, inc: list[str], defs: list[str], extra_args,
                  insts: Sequence[str] = ()) -> PtxasReport:
    """NVRTC on the device code alone (it compiles no host code at all)."""
    from . import nvrtc

    version = nvrtc.nvrtc_version()
    label = f"NVRTC {version}"
    supported = nvrtc.supported_archs()
    base = re.sub(r"[af]$", "", sm)
    if supported is not None and base not in supported:
        return PtxasReport(ok=False, arch=sm, nvcc=nvrtc.find_nvrtc(), nvcc_version=label,
                           reason=(f"{label} cannot compile for {sm} (it supports {supported[0]}..{supported[-1]}):"
                                   " register counts unavailable for this target"))
    dc = _device_code(src, inc, insts)
    if dc is None:
        return PtxasReport(ok=True, arch=sm, nvcc=nvrtc.find_nvrtc(), nvcc_version=label,
                           reason="no __global__ function in the file", mode="device code only")
    opts = [f"-arch={sm}", "-Xptxas=-v", f"-I{src.parent}"] + [f"-I{d}" for d in inc] + defs
    opts += [a for a in extra_args if a.startswith("-std=")]
    ok, log = nvrtc.compile_log(dc.code, str(src), opts, dc.instantiations)
    cmd = ["nvrtc"] + opts
    if not ok:
        return PtxasReport(ok=False, reason=_failure(log, 1, sm, label), arch=sm, nvcc=nvrtc.find_nvrtc(),
                           nvcc_version=label, command=cmd, log=log[-4000:], mode="device code only")
    funcs = parse_ptxas_output(log)
    rep = PtxasReport(ok=True, arch=sm, nvcc=nvrtc.find_nvrtc(), nvcc_version=label, command=cmd,
                      functions=funcs, gmem_bytes=_parse_gmem(log), log=log[-4000:], mode="device code only")
    if not funcs:
        rep.reason = "NVRTC produced no ptxas resource report"
    return rep
