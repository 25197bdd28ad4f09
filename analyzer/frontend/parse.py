"""libclang parsing layer: turn a CUDA source file into a clang translation unit, no toolkit needed.

Every file (``.cu``, ``.cuh``, ``.h``, ...) is parsed as CUDA, **device side**::

    -x cuda --cuda-device-only --cuda-gpu-arch=sm_XX -nocudainc -nocudalib

so ``__CUDA_ARCH__`` is defined, kernels and ``__device__`` code are checked the way nvcc's
device pass checks them (a kernel calling a host-only function is an error), and host code is
still parsed into the AST (launch sites, runtime API calls).

What replaces the CUDA toolkit and clang's resource directory (both absent from the libclang
wheel) lives next to this module, in ``include/``:

* ``include/c/`` -- freestanding compiler headers (``stddef.h``, ``stdarg.h``, ``stdint.h``,
  ``limits.h``, ``float.h``, ``stdbool.h``, ...). The wheel ships none, so without them even
  ``#include <cstdio>`` fails ("'stddef.h' file not found"). They are put on the path with
  ``-isystem`` and clang's own (non-existent) builtin directory is switched off with
  ``-nobuiltininc``. The C library and C++ standard library themselves are the system's: clang's
  driver finds glibc and libstdc++ (e.g. ``/usr/include``, ``/usr/include/c++/12``) as usual.
* ``include/*.h`` -- a CUDA "toolkit" of declarations: ``cuda_runtime.h``, ``cuda.h``,
  ``cuda_fp16.h``, ``cooperative_groups.h``, ``curand_kernel.h``, ... with CUDA's own include
  guards, so a real toolkit header reached later becomes a no-op.
* ``include/cuda_prelude.h`` -- force-included (``-include``) first: what nvcc implicitly
  provides to every ``.cu`` file.
* ``include/libc/`` and ``include/cxx/`` -- fallback C library headers and ``<cxxx>`` wrappers,
  searched *after* the system directories (``-idirafter``), so they only matter on a machine
  without a C/C++ toolchain's headers. Containers/streams are not provided there: without a
  system libstdc++/libc++ such headers are stubbed like any missing header.

Search order: user ``-I``/``-isystem`` (command line, then compile_commands.json), the
freestanding headers, the bundled CUDA headers, the system C++ and C headers, a real CUDA
toolkit's include directory if the build names one (moved here so the bundled headers win),
the fallbacks, and last the stub directory.

Inline assembly that nvcc accepts and clang rejects (``inline_asm.py``) is respelled in place,
same length, in the files where clang reported such an error, and the file is parsed again.

A missing ``#include`` does not stop the analysis: the header is replaced by an empty in-memory
stub (libclang unsaved file in a virtual directory searched last), the file is parsed again and
the header is listed in :attr:`ParseResult.stubbed_headers`.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional, Sequence, Union

import clang.cindex as ci

from ..options import FrontendOptions  # (defined there: no libclang needed to build one)

__all__ = [
    "FrontendOptions",
    "ClangProblem",
    "ParseResult",
    "CompileCommand",
    "parse_file",
    "build_args",
    "get_index",
    "include_dir",
    "builtin_include_dir",
    "clang_resource_dir",
    "prelude_path",
    "fallback_libc_dir",
    "fallback_cxx_dir",
    "parse_gpu_arch",
    "clang_gpu_arch",
    "find_compile_command",
    "compile_command_flags",
    "STUB_DIR",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
_INCLUDE = os.path.join(_HERE, "include")

#: Virtual directory (never created on disk) holding the empty stubs of missing headers.
STUB_DIR = os.path.join(os.path.abspath(os.sep), "__cudalint_missing_headers__")

#: libclang's CXTranslationUnit_KeepGoing (not exported by clang.cindex): fatal errors such as
#: a missing #include are reported as errors and parsing continues, so one parse reports every
#: missing header at once.
_PARSE_KEEP_GOING = 0x200

#: Bound on parse/stub rounds (normally 1, or 2 when headers are missing).
MAX_STUB_ROUNDS = 4

_MISSING_RE = re.compile(r"^'(?P<name>[^']+)' file not found")
_DEVICE_LAUNCH_RE = re.compile(r"^reference to __global__ function '.*' in __(global|device)__ function")
_HOST_VAR_RE = re.compile(r"^reference to __host__ variable '([^']+)' in __(?:global|device|host__ __device)__ function")
_DEVICE_LAUNCH_NOTE_RE = re.compile(r"call to __global__ function from __(global|device)__ function")

# Source-file suffixes treated as CUDA/C++ by compile-command matching for headers.
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".cuh", ".h", ".hpp")


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------
def include_dir() -> str:
    """Directory of the bundled CUDA headers (``cuda_runtime.h``, ``cuda_prelude.h``, ...)."""
    return _INCLUDE


def builtin_include_dir() -> str:
    """Directory of the bundled freestanding C headers (``stddef.h``, ``stdarg.h``, ...)."""
    return os.path.join(_INCLUDE, "c")


def clang_resource_dir() -> str:
    """The directory that stands in for clang's resource ``include/`` directory.

    The libclang wheel has no resource directory (its built-in default, ``lib/clang/18``, is a
    path relative to the current directory). cudalint always uses its own freestanding headers
    instead of any clang installation that may happen to exist, so results do not depend on the
    machine: this returns :func:`builtin_include_dir`, passed with ``-isystem`` after
    ``-nobuiltininc``.
    """
    return builtin_include_dir()


def prelude_path() -> str:
    return os.path.join(_INCLUDE, "cuda_prelude.h")


def fallback_libc_dir() -> str:
    """Minimal C library headers (stdio.h, stdlib.h, string.h, math.h, ...) used only where the
    system has none: they are searched after the system directories."""
    return os.path.join(_INCLUDE, "libc")


def fallback_cxx_dir() -> str:
    """Minimal C++ wrappers (<cstdio>, <cmath>, <new>, ...) used only where the system has no
    C++ standard library. Containers, streams and algorithms are not provided: without a
    system libstdc++/libc++ such headers are stubbed (and listed as missing)."""
    return os.path.join(_INCLUDE, "cxx")


# --------------------------------------------------------------------------------------------
# Options and results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClangProblem:
    """One clang diagnostic. ``file`` is None for diagnostics without a location."""

    severity: str  # "fatal" | "error" | "warning" | "note"
    file: Optional[str]
    line: int
    column: int
    message: str
    option: str = ""  # the -W flag that controls it, if any

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}: " if self.file else ""
        return f"{where}{self.severity}: {self.message}"


@dataclass
class ParseResult:
    path: str
    tu: Optional[ci.TranslationUnit]
    errors: list[ClangProblem] = field(default_factory=list)
    warnings: list[ClangProblem] = field(default_factory=list)
    #: Headers (as spelled in the #include) that were not found and replaced by empty stubs.
    stubbed_headers: list[str] = field(default_factory=list)
    #: The original "'X' file not found" diagnostics, with where each header was included.
    missing_includes: list[ClangProblem] = field(default_factory=list)
    fatal: bool = False
    #: Why the file could not be parsed (fatal), or empty.
    message: str = ""
    #: The clang command-line arguments of the final parse (without the file name).
    args: list[str] = field(default_factory=list)
    #: The --cuda-gpu-arch given to clang (may differ from the requested arch, see notes).
    clang_arch: str = ""
    #: Remarks about how the file was parsed (arch clamping, compile command used, ...).
    notes: list[str] = field(default_factory=list)
    rounds: int = 0
    seconds: float = 0.0

    def included_files(self) -> list[str]:
        """Every file the parse read besides the main one: those it included, and with a
        precompiled prelude the headers inside the PCH (which clang does not list again)."""
        if self.tu is None:
            return []
        out = {i.include.name for i in self.tu.get_includes()}
        if "-include-pch" in self.args:
            from .pch import pch_dependencies
            out.update(pch_dependencies(self.args[self.args.index("-include-pch") + 1]))
        return sorted(out)

    @property
    def ok(self) -> bool:
        """Parsed with no clang error at all."""
        return not self.fatal and self.tu is not None and not self.errors

    def errors_in(self, path: Optional[str] = None) -> list[ClangProblem]:
        """Errors located in ``path`` (default: the parsed file itself)."""
        target = os.path.realpath(path or self.path)
        return [e for e in self.errors if e.file and os.path.realpath(e.file) == target]


@dataclass
class CompileCommand:
    """The entry of a compile_commands.json used for a file."""

    file: str
    directory: str
    arguments: list[str]
    #: The flags kept for clang (-I, -isystem, -iquote, -idirafter, -D, -U, -include, -std=).
    flags: list[str]
    #: GPU architectures the build targets (from -arch, -gencode, --cuda-gpu-arch), e.g. ["sm_80"].
    archs: list[str]
    exact: bool  # False when the entry of another file was borrowed (e.g. for a header)


# --------------------------------------------------------------------------------------------
# libclang index (one per thread: clang.cindex objects are not shared across threads)
# --------------------------------------------------------------------------------------------
_tls = threading.local()


def get_index() -> ci.Index:
    idx = getattr(_tls, "index", None)
    if idx is None:
        idx = ci.Index.create()
        _tls.index = idx
    return idx


# --------------------------------------------------------------------------------------------
# GPU architecture
# --------------------------------------------------------------------------------------------
_ARCH_RE = re.compile(r"^(?:sm_|compute_|lto_)?(\d+)(?:\.(\d))?([af]?)$", re.I)

# Newest first; what the probe walks down when libclang rejects an arch.
_ARCH_CANDIDATES = [121, 120, 110, 103, 101, 100, 90, 89, 87, 86, 80, 75, 72, 70, 62, 61, 60,
                    53, 52, 50, 37, 35, 32, 30, 21, 20]
_arch_supported: dict[str, bool] = {}
_arch_lock = threading.Lock()


def parse_gpu_arch(arch: str) -> tuple[int, str]:
    """``"sm_90a"`` -> ``(90, "a")``; also ``compute_80``, ``"80"``, ``"8.6"``, ``"sm_100f"``.

    Raises ValueError for anything else.
    """
    m = _ARCH_RE.match(arch.strip())
    if not m:
        raise ValueError(f"not a GPU architecture: {arch!r} (expected e.g. sm_90)")
    major, minor, suffix = m.group(1), m.group(2), m.group(3).lower()
    cc = int(major) * 10 + int(minor) if minor is not None else int(major)
    if cc < 10:  # "9" -> 9.0
        cc *= 10
    return cc, suffix


def _probe_arch(clang_arch: str) -> bool:
    """Does this libclang accept --cuda-gpu-arch=clang_arch? (cached)"""
    with _arch_lock:
        if clang_arch in _arch_supported:
            return _arch_supported[clang_arch]
    probe = os.path.join(STUB_DIR, "__cudalint_arch_probe.cu")
    try:
        get_index().parse(probe, args=["-x", "cuda", "--cuda-device-only",
                                       f"--cuda-gpu-arch={clang_arch}", "-nocudainc",
                                       "-nocudalib", "-nobuiltininc",
                                       "-Wno-unknown-cuda-version"],
                          unsaved_files=[(probe, "int __cudalint_probe;\n")])
        ok = True
    except ci.TranslationUnitLoadError:
        ok = False
    with _arch_lock:
        _arch_supported[clang_arch] = ok
    return ok


def clang_gpu_arch(arch: str) -> tuple[str, list[str], Optional[str]]:
    """Map a requested arch to what libclang accepts.

    Returns ``(clang_arch, extra_args, note)``. When libclang does not know the arch (libclang
    18 stops at sm_90a; sm_100/sm_120 are newer), the newest older arch it knows is used and
    ``__CUDA_ARCH__`` is redefined to the requested value (``-U__CUDA_ARCH__
    -D__CUDA_ARCH__=1000``), plus the arch-specific/family feature macros for ``a``/``f``
    suffixes, so preprocessor checks in the source see the requested GPU. ``note`` explains the
    substitution (None when there was none).
    """
    cc, suffix = parse_gpu_arch(arch)
    wanted = f"sm_{cc}{suffix if suffix == 'a' else ''}"
    if _probe_arch(wanted):
        return wanted, [], None
    if suffix and _probe_arch(f"sm_{cc}"):
        chosen = f"sm_{cc}"
    else:
        older = [c for c in _ARCH_CANDIDATES if c <= cc] or []
        newer = [c for c in reversed(_ARCH_CANDIDATES) if c > cc]
        chosen = None
        for c in older + newer:
            if _probe_arch(f"sm_{c}"):
                chosen = f"sm_{c}"
                break
        if chosen is None:  # should not happen with any libclang >= 7
            chosen = "sm_70"
    extra = ["-U__CUDA_ARCH__", f"-D__CUDA_ARCH__={cc * 10}"]
    if suffix == "a":
        extra += [f"-D__CUDA_ARCH_FEAT_SM{cc}_ALL=1", f"-D__CUDA_ARCH_SPECIFIC__={cc * 10}"]
    elif suffix == "f":
        extra += [f"-D__CUDA_ARCH_FAMILY_SPECIFIC__={cc * 10}"]
    note = (f"libclang does not know {arch}; parsed with --cuda-gpu-arch={chosen} and "
            f"__CUDA_ARCH__={cc * 10}")
    return chosen, extra, note


# --------------------------------------------------------------------------------------------
# compile_commands.json
# --------------------------------------------------------------------------------------------
_cc_cache: dict[str, tuple[float, list[dict]]] = {}

# Flags that take a value, either attached (-Ifoo, -I=foo with nvcc) or as the next argument.
_PATH_FLAGS = {
    "-I": "-I", "--include-path": "-I",
    "-isystem": "-isystem", "--system-include": "-isystem",
    "-iquote": "-iquote",
    "-idirafter": "-idirafter",
    "-include": "-include", "--pre-include": "-include",
}
_MACRO_FLAGS = {"-D": "-D", "--define-macro": "-D", "-U": "-U", "--undefine-macro": "-U"}
_ARCH_FLAGS = {"-arch", "--gpu-architecture", "--cuda-gpu-arch", "--offload-arch", "-code",
               "--gpu-code"}
# Dropped flags whose value is the next argument (so the value is not misread as a flag).
_VALUE_FLAGS_DROPPED = {"-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options",
                        "-Xlinker", "--linker-options", "-Xnvlink", "--nvlink-options",
                        "-Xarchive", "--archive-options", "-ccbin", "--compiler-bindir",
                        "-o", "--output-file", "-MF", "-MT", "-MQ", "-x", "-Xclang",
                        "-maxrregcount", "--maxrregcount", "-odir", "--output-directory",
                        "-rdc", "--relocatable-device-code", "-lineinfo-dir", "-t", "--threads",
                        "--default-stream", "-default-stream", "-L", "-l", "--library",
                        "--library-path"}


def _load_compile_commands(path: str) -> tuple[str, list[dict]]:
    if os.path.isdir(path):
        path = os.path.join(path, "compile_commands.json")
    path = os.path.abspath(path)
    mtime = os.path.getmtime(path)
    hit = _cc_cache.get(path)
    if hit and hit[0] == mtime:
        return path, hit[1]
    with open(path, "r", encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise ValueError(f"{path}: not a JSON array of compile commands")
    _cc_cache[path] = (mtime, data)
    return path, data


def _entry_args(entry: Mapping) -> list[str]:
    if isinstance(entry.get("arguments"), list):
        return [str(a) for a in entry["arguments"]]
    cmd = entry.get("command")
    if isinstance(cmd, str):
        try:
            return shlex.split(cmd)
        except ValueError:
            return cmd.split()
    return []


def _entry_file(entry: Mapping) -> str:
    d = str(entry.get("directory") or ".")
    f = str(entry.get("file") or "")
    return os.path.realpath(os.path.join(d, f))


def find_compile_command(path: str, compile_commands: str) -> Optional[CompileCommand]:
    """The compile command for ``path``: its own entry, or for a file without one (a header,
    typically) the entry of a source file in the same directory (else the nearest directory)."""
    _, entries = _load_compile_commands(compile_commands)
    target = os.path.realpath(path)
    best, best_score, exact = None, -1, False
    tdir = os.path.dirname(target)
    for e in entries:
        if not isinstance(e, dict):
            continue
        ef = _entry_file(e)
        if ef == target:
            best, exact = e, True
            break
        # borrow: longest common directory prefix, preferring CUDA sources
        common = os.path.commonpath([tdir, os.path.dirname(ef)]) if ef else ""
        score = len(common) * 2 + (1 if ef.endswith((".cu", ".cuh")) else 0)
        if ef.endswith(_SOURCE_SUFFIXES) and score > best_score:
            best, best_score = e, score
    if best is None:
        return None
    args = _entry_args(best)
    directory = str(best.get("directory") or os.path.dirname(_entry_file(best)))
    flags, archs = compile_command_flags(args, directory)
    return CompileCommand(file=_entry_file(best), directory=directory, arguments=args,
                          flags=flags, archs=archs, exact=exact)


def compile_command_flags(args: Sequence[str], directory: str = ".") -> tuple[list[str], list[str]]:
    """Keep what matters for parsing from a compiler command line (nvcc, clang or gcc).

    Kept: include paths (``-I -isystem -iquote -idirafter``, nvcc's ``--include-path`` and
    ``--system-include``), macros (``-D -U``, nvcc's ``--define-macro``), forced includes
    (``-include``, nvcc's ``--pre-include``) and the language standard (``-std=``, nvcc's
    ``--std``). Relative directories are made absolute against the entry's ``directory``.
    Everything else (``-gencode``, ``-arch``, ``--expt-relaxed-constexpr``, ``-Xcompiler ...``,
    ``-o``, ``-c``, optimisation and warning flags, the compiler itself) is dropped. The GPU
    architectures named by ``-arch``/``-gencode``/``--cuda-gpu-arch`` are returned separately.
    """
    flags: list[str] = []
    archs: list[str] = []
    args = list(args)
    i = 1 if args and not args[0].startswith("-") else 0  # skip the compiler itself

    def absdir(p: str) -> str:
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(directory, p))

    def forced(p: str) -> str:  # -include file: relative to the build dir if it is there
        q = absdir(p)
        return q if os.path.exists(q) else p

    attached = ("-isystem", "-iquote", "-idirafter", "-I", "-D", "-U")
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        name, eq, val = a.partition("=")
        consumed = 1
        if a in _PATH_FLAGS and nxt is not None:
            canon = _PATH_FLAGS[a]
            flags += [canon, forced(nxt) if canon == "-include" else absdir(nxt)]
            consumed = 2
        elif eq and name in _PATH_FLAGS:
            canon = _PATH_FLAGS[name]
            flags += [canon, forced(val) if canon == "-include" else absdir(val)]
        elif a in _MACRO_FLAGS and nxt is not None:
            flags.append(_MACRO_FLAGS[a] + nxt)
            consumed = 2
        elif eq and name in _MACRO_FLAGS and name.startswith("--"):
            flags.append(_MACRO_FLAGS[name] + val)
        elif a.startswith(attached) and not a.startswith("-include"):
            flag = next(p for p in attached if a.startswith(p))
            rest = a[len(flag):]
            if flag in ("-D", "-U"):
                flags.append(a)
            elif rest:
                flags += [flag, absdir(rest)]
        elif name in ("-std", "--std") and eq:
            flags.append("-std=" + val)
        elif a in ("-std", "--std") and nxt is not None:
            flags.append("-std=" + nxt)
            consumed = 2
        elif name in _ARCH_FLAGS:
            if not eq and nxt is not None:
                val, consumed = nxt, 2
            archs += [v for v in re.split(r"[,\s]+", val) if v]
        elif a in ("-gencode", "--generate-code") and nxt is not None:
            archs += re.findall(r"code=\[?([\w,]+)", nxt)
            consumed = 2
        elif name in ("-gencode", "--generate-code") and eq:
            archs += re.findall(r"code=\[?([\w,]+)", val)
        elif a in _VALUE_FLAGS_DROPPED and nxt is not None:
            consumed = 2
        i += consumed
    out_archs: list[str] = []
    for a in archs:
        for part in a.split(","):
            part = part.strip("[] ")
            if part and part not in out_archs and _ARCH_RE.match(part):
                out_archs.append(part)
    return flags, out_archs


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------
def _is_cuda_toolkit_include(d: str) -> bool:
    """A real CUDA toolkit include directory (it has cuda_runtime_api.h)."""
    try:
        return os.path.isfile(os.path.join(d, "cuda_runtime_api.h"))
    except OSError:
        return False


def _normalize_std(std: str) -> str:
    s = std.strip()
    if s.startswith("-std="):
        s = s[5:]
    if re.fullmatch(r"\d\d", s):
        s = "c++" + s
    return s


def build_args(path: str, opts: Optional[FrontendOptions] = None) -> list[str]:
    """The clang arguments used to parse ``path`` (the file name itself is not included)."""
    args, _ = _build_args(path, opts or FrontendOptions())
    return args


def _build_args(path: str, opts: FrontendOptions) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    clang_arch, arch_args, note = clang_gpu_arch(opts.arch)
    if note:
        notes.append(note)

    cc_flags: list[str] = []
    if opts.compile_commands:
        try:
            cmd = find_compile_command(path, opts.compile_commands)
        except (OSError, ValueError) as e:
            cmd = None
            notes.append(f"compile_commands: {e}")
        if cmd is not None:
            cc_flags = cmd.flags
            how = "" if cmd.exact else f" (borrowed from {os.path.basename(cmd.file)})"
            notes.append(f"compile command from {opts.compile_commands}{how}")
        elif not notes or not notes[-1].startswith("compile_commands:"):
            notes.append(f"no entry for this file in {opts.compile_commands}")

    std = _normalize_std(opts.std)
    for f in cc_flags:
        if f.startswith("-std="):
            std = f[5:]  # the build's own standard wins

    args = [
        "-x", "cuda",
        "--cuda-device-only",
        f"--cuda-gpu-arch={clang_arch}",
        "-nocudainc", "-nocudalib",
        "-Wno-unknown-cuda-version",
        "-nobuiltininc",
        f"-std={std}",
        "-ferror-limit=0",          # never stop parsing after N errors
        "-fno-spell-checking",      # no typo-corrected guesses in the AST
        "-Wno-pragma-once-outside-header",
        # nvcc takes `register` in C++17 (EDG: deprecated, a warning); clang makes it an error
        "-Wno-register",
        # a braced initializer that narrows a non-constant (`uchar4 u = {s.x, s.y, s.z, s.w}` of
        # an ushort4): nvcc (EDG) and g++ warn, clang makes it an error unless told otherwise
        "-Wno-c++11-narrowing",
    ]
    args += arch_args

    # User include dirs: compile command first, then explicit ones. A real CUDA toolkit include
    # directory goes after everything (-idirafter): the bundled headers win where both exist,
    # the toolkit still provides the libraries cudalint does not model (thrust, cub, cufft...).
    late_dirs: list[str] = []
    i = 0
    user: list[str] = []
    while i < len(cc_flags):
        f = cc_flags[i]
        if f in ("-I", "-isystem", "-iquote", "-idirafter", "-include"):
            val = cc_flags[i + 1]
            if f in ("-I", "-isystem") and _is_cuda_toolkit_include(val):
                late_dirs.append(val)
            else:
                user += [f, val]
            i += 2
            continue
        if f.startswith(("-D", "-U")):
            user.append(f)
        i += 1
    for d in opts.include_dirs:
        d = os.path.abspath(d)
        if _is_cuda_toolkit_include(d):
            late_dirs.append(d)
        else:
            user += ["-I", d]
    for d in opts.defines:
        d = d.strip()
        if d.startswith(("-D", "-U")):
            user.append(d)
        elif d:
            user.append("-D" + d)
    args += user
    args += ["-isystem", builtin_include_dir(), "-isystem", include_dir(),
             "-include", prelude_path()]
    for d in late_dirs:
        args += ["-idirafter", d]
    # Fallback C library / C++ <cxxx> headers, searched after the system's: they only matter on
    # a machine without a C/C++ toolchain's headers (a slim container, say).
    args += ["-idirafter", fallback_libc_dir(), "-idirafter", fallback_cxx_dir()]
    args += ["-idirafter", STUB_DIR]
    args += list(opts.extra_args)
    return args, notes


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------
_SEVERITY = {ci.Diagnostic.Fatal: "fatal", ci.Diagnostic.Error: "error",
             ci.Diagnostic.Warning: "warning", ci.Diagnostic.Note: "note",
             ci.Diagnostic.Ignored: "ignored"}


def _problem(d: ci.Diagnostic) -> ClangProblem:
    loc = d.location
    return ClangProblem(severity=_SEVERITY.get(d.severity, "error"),
                        file=loc.file.name if loc.file is not None else None,
                        line=loc.line, column=loc.column, message=d.spelling,
                        option=d.option or "")


def _fatal(path: str, message: str, t0: float, args: Optional[list[str]] = None) -> ParseResult:
    return ParseResult(path=path, tu=None, fatal=True, message=message,
                       errors=[ClangProblem("fatal", path, 0, 0, message)],
                       args=args or [], seconds=time.perf_counter() - t0)


def _looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if b"\x00" in head:
        return True
    # Many control characters (other than tab/newline/CR/FF/VT/ESC) => not source text.
    ctrl = sum(1 for b in head if b < 32 and b not in (9, 10, 11, 12, 13, 27))
    return ctrl > max(8, len(head) // 100)


def _unsaved_list(unsaved: Union[None, Mapping[str, str], Iterable[tuple[str, str]]]) -> list[tuple[str, str]]:
    if not unsaved:
        return []
    items = unsaved.items() if isinstance(unsaved, Mapping) else unsaved
    return [(os.path.abspath(name), text) for name, text in items]


def _stub_path(name: str) -> str:
    # Not normalised on purpose: for "../x.h" clang looks up "<STUB_DIR>/../x.h" literally.
    return name if os.path.isabs(name) else STUB_DIR + os.sep + name


def parse_file(path: str, opts: Optional[FrontendOptions] = None,
               unsaved: Union[None, Mapping[str, str], Iterable[tuple[str, str]]] = None) -> ParseResult:
    """Parse ``path`` as CUDA (device side). Never raises for a bad input file.

    ``unsaved`` maps file names to contents that replace what is on disk (editor buffers);
    the main file may be among them. Missing headers are stubbed (see module doc).
    A file that cannot be parsed at all gives ``fatal=True``, ``tu=None`` and a ``message``.
    """
    t0 = time.perf_counter()
    try:
        return _parse_file(path, opts, unsaved, t0)
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as e:  # a libclang/cindex surprise must not abort a whole run
        return _fatal(os.path.abspath(path), f"internal frontend error: {type(e).__name__}: {e}", t0)


def _parse_file(path: str, opts: Optional[FrontendOptions],
                unsaved: Union[None, Mapping[str, str], Iterable[tuple[str, str]]],
                t0: float) -> ParseResult:
    opts = opts or FrontendOptions()
    path = os.path.abspath(path)
    overrides = _unsaved_list(unsaved)
    main_text = next((text for name, text in overrides if name == path), None)

    # ---- the file itself: readable, text, not empty -------------------------------------
    warn_encoding = None
    if main_text is None:
        if not os.path.exists(path):
            return _fatal(path, f"no such file: {path}", t0)
        if os.path.isdir(path):
            return _fatal(path, f"is a directory, not a source file: {path}", t0)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            return _fatal(path, f"cannot read file: {e.strerror or e}", t0)
        if not data.strip():
            return _fatal(path, "empty file: nothing to analyse", t0)
        if _looks_binary(data):
            return _fatal(path, "binary file (not CUDA/C++ source text)", t0)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            if opts.strict_utf8:
                return _fatal(path, f"file is not valid UTF-8 (first bad byte on line {line})", t0)
            warn_encoding = ClangProblem("warning", path, line, 1,
                                         "file is not valid UTF-8; parsed as raw bytes")
    else:
        if not main_text.strip():
            return _fatal(path, "empty file: nothing to analyse", t0)
        if "\x00" in main_text[:8192]:
            return _fatal(path, "binary file (not CUDA/C++ source text)", t0)

    try:
        args, notes = _build_args(path, opts)
    except ValueError as e:  # bad --arch
        return _fatal(path, str(e), t0)
    from .pch import pch_args
    plain_args = args
    if not opts.detailed_preprocessing_record:  # a PCH's macros leave no instantiation records
        args = pch_args(args, prelude_path())  # the prelude precompiled once, where possible

    # ---- parse, stubbing missing headers ---------------------------------------------------
    index = get_index()
    stubs: dict[str, str] = {}  # header name -> stub path
    missing: list[ClangProblem] = []
    respelled: dict[str, str] = {}  # file -> its text with nvcc-only inline asm respelled
    tu = None
    rounds = 0
    options = _PARSE_KEEP_GOING
    if opts.detailed_preprocessing_record:
        options |= ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    while True:
        rounds += 1
        files = [(n, respelled.get(n, t)) for n, t in overrides] + \
            [(p, t) for p, t in respelled.items() if all(p != n for n, _ in overrides)] + \
            [(p, "/* cudalint: empty stand-in for a header that was not found */\n")
             for p in stubs.values()]
        try:
            tu = index.parse(path, args=args, unsaved_files=files or None, options=options)
        except ci.TranslationUnitLoadError:
            if "-include-pch" in args:  # a PCH libclang cannot load: the prelude as text
                args = plain_args
                continue
            return _fatal(path, "libclang could not create a translation unit "
                                f"(clang arguments: {' '.join(args)})", t0, args)
        new = []
        for d in tu.diagnostics:
            if d.severity < ci.Diagnostic.Error:
                continue
            m = _MISSING_RE.match(d.spelling)
            if m and m.group("name") not in stubs:
                new.append((m.group("name"), _problem(d)))
        asm = _respell_asm(tu, overrides, respelled)
        if (not new and not asm) or rounds >= MAX_STUB_ROUNDS:
            break
        for p, what in asm:
            if "asm" in what:
                notes.append(f"{os.path.basename(p)}: inline assembly in a spelling nvcc accepts "
                             "(a single % before a PTX register, operands without a comma) was "
                             "respelled for clang; operands are kept opaque")
            if "launch" in what:
                notes.append(f"{os.path.basename(p)}: a kernel launch written `< < <` or `>> >` "
                             "(blanks inside `<<<` or `>>>`, which nvcc accepts) was respelled "
                             "`<<<`/`>>>` for clang")
        for name, prob in new:
            if name not in stubs:
                stubs[name] = _stub_path(name)
                missing.append(prob)

    errors: list[ClangProblem] = []
    warnings: list[ClangProblem] = [warn_encoding] if warn_encoding else []
    lines_cache: dict[str, list[str]] = {}
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error:
            p = _problem(d)
            why = _nvcc_accepts(d, p, lines_cache, overrides, tu)
            if why:
                warnings.append(ClangProblem("warning", p.file, p.line, p.column,
                                             f"{why}: {p.message}", p.option))
            else:
                errors.append(p)
        elif d.severity == ci.Diagnostic.Warning:
            warnings.append(_problem(d))
    # Headers still reported missing (stub not reachable, e.g. <../x.h>) stay errors.
    return ParseResult(path=path, tu=tu, errors=errors, warnings=warnings,
                       stubbed_headers=list(stubs), missing_includes=missing, fatal=False,
                       message="", args=args, clang_arch=_arg_value(args, "--cuda-gpu-arch="),
                       notes=notes, rounds=rounds, seconds=time.perf_counter() - t0)


def _respell_asm(tu: ci.TranslationUnit, overrides: Sequence[tuple[str, str]],
                 respelled: dict[str, str]) -> list[tuple[str, set]]:
    """Files with an error clang reports on code nvcc accepts (inline asm, a launch's `<<<`
    split by blanks), not yet respelled: respell them (into ``respelled``) and return their
    names with what was respelled ("asm", "launch")."""
    from .inline_asm import ASM_ERRORS, LAUNCH_ERRORS, respell, respell_launches
    out = []
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error or d.location.file is None or \
                not d.spelling.startswith(ASM_ERRORS + LAUNCH_ERRORS):
            continue
        name = os.path.abspath(d.location.file.name)
        if name in respelled or name.startswith(STUB_DIR):
            continue
        text = next((t for n, t in overrides if n == name), None)
        if text is None:
            try:
                with open(name, "r", encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):  # not UTF-8: left as it is
                continue
        asm = respell(text)
        new = respell_launches(asm)
        if new != text:
            respelled[name] = new
            out.append((name, {w for w, changed in (("asm", asm != text), ("launch", new != asm))
                               if changed}))
    return out


def _source_line(path: Optional[str], line: int, cache: dict[str, list[str]],
                 overrides: Sequence[tuple[str, str]]) -> str:
    if not path or line <= 0:
        return ""
    if path not in cache:
        text = next((t for n, t in overrides if n == path), None)
        if text is None:
            try:
                with open(path, "r", encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                text = ""
        cache[path] = text.splitlines()
    lines = cache[path]
    return lines[line - 1] if line <= len(lines) else ""


def _is_texture_reference(tu: ci.TranslationUnit, name: str) -> bool:
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.VAR_DECL and c.spelling == name:
            t = c.type.get_canonical().spelling
            return t.startswith(("texture<", "surface<", "const texture<", "const surface<"))
    return False


def _nvcc_accepts(d: ci.Diagnostic, p: ClangProblem, cache: dict[str, list[str]],
                  overrides: Sequence[tuple[str, str]],
                  tu: Optional[ci.TranslationUnit] = None) -> Optional[str]:
    """For the few clang errors on code nvcc compiles, and after which clang's AST is still
    right apart from the construct itself, the reason to report a warning instead."""
    msg = p.message
    # clang has no dynamic parallelism: a kernel launched from device code is rejected (and
    # that launch is missing from the AST); the rest of the kernel is fine.
    if _DEVICE_LAUNCH_RE.match(msg) or (
            msg.startswith("no matching function for call to") and any(
                _DEVICE_LAUNCH_NOTE_RE.search(c.spelling) for c in d.children)):
        return ("device-side kernel launch (dynamic parallelism) is not modelled by clang and "
                "is missing from the AST")
    # A legacy texture/surface reference (texture<float, 2> tex; at file scope) is a device
    # object to nvcc and a host variable to clang.
    m = _HOST_VAR_RE.match(msg)
    if m and tu is not None and _is_texture_reference(tu, m.group(1)):
        return "legacy texture/surface reference (removed in CUDA 12; nvcc treats it as a device object)"
    # `"%d\t"FMT`: a macro name right after a string literal. C++11 reads it as a literal
    # suffix; gcc and nvcc warn and expand the macro, and so does clang's lexer after this error.
    if msg.startswith("invalid suffix on literal; C++11 requires a space between literal and identifier"):
        return "macro name right after a string literal (nvcc and gcc expand it; C++11 wants a space)"
    # `__shared__ alignas(16) float a[...]`: clang wants C++11 attributes first, nvcc does not;
    # the variable is still declared (without the extra alignment).
    if msg == "an attribute list cannot appear here":
        text = _source_line(p.file, p.line, cache, overrides)[max(p.column - 1, 0):]
        if text.lstrip().startswith(("alignas", "_Alignas")):
            return "alignas() after a declaration specifier (nvcc accepts it; alignment ignored)"
    return None


def _arg_value(args: Sequence[str], prefix: str) -> str:
    for a in args:
        if a.startswith(prefix):
            return a[len(prefix):]
    return ""
