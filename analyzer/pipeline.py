"""From a file on disk to per-kernel facts: parse, lower to IR, resolve launches, analyse.

Pure with respect to output: nothing here prints or decides severities (that is ``rules/``).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Optional

from . import ir
from .launch import LaunchConfig, launch_config, resolve_launch_sites
from .memory import VariableFact, kernel_variables


@dataclass
class AnalysisOptions:
    arch: str = "sm_90"
    block: Optional[tuple[int, int, int]] = None
    grid: Optional[tuple[int, int, int]] = None
    dynamic_smem: Optional[int] = None
    params: dict = field(default_factory=dict)  # --param NAME=VALUE
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    std: str = "c++17"
    frontend: str = "clang"
    compile_commands: Optional[str] = None
    device: Optional[str] = None  # --device preset name (roofline)
    peak_gflops: Optional[float] = None  # --peak-gflops (custom device)
    bandwidth_gbs: Optional[float] = None  # --bandwidth-gbs (custom device)
    extra_args: list[str] = field(default_factory=list)
    use_ptxas: bool = True
    default_block: Optional[tuple[int, int, int]] = None  # config `default-block`: no launch found


@dataclass
class ParseProblem:
    message: str
    line: int = 0
    column: int = 0
    file: str = ""


@dataclass
class KernelFacts:
    function: ir.Function
    launch: LaunchConfig
    variables: list[VariableFact]
    # Later analyses attach more facts here (accesses, cgma, resources, occupancy, ...).
    extra: dict = field(default_factory=dict)
    skipped: Optional[str] = None  # why the kernel could not be analysed

    @property
    def name(self) -> str:
        return self.function.display_name

    def to_json(self) -> dict:
        out = {
            "name": self.function.display_name,
            "line": self.function.range.line,
            "launch": self.launch.to_json(),
            "variables": [v.to_json() for v in self.variables],
        }
        for k, v in self.extra.items():
            out[k] = v.to_json() if hasattr(v, "to_json") else v
        if self.skipped:
            out["skipped"] = self.skipped
        return out


@dataclass
class FileAnalysis:
    path: str
    tu: Optional[ir.TranslationUnit] = None
    kernels: list[KernelFacts] = field(default_factory=list)
    error: Optional[ParseProblem] = None  # set when the file cannot be analysed at all
    kernel_errors: list[tuple[str, ParseProblem]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = ""
    seconds: float = 0.0
    options: Optional[AnalysisOptions] = None
    dependencies: list[str] = field(default_factory=list)  # files #included (for the result cache)

    @property
    def source_lines(self) -> list[str]:
        return self.source.splitlines()


def _read_source(path: str) -> tuple[Optional[str], Optional[str]]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return None, f"cannot read file: {e.strerror or e}"
    if b"\x00" in data[:8192]:
        return None, "binary file (contains NUL bytes), not CUDA source"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("latin-1"), None


def lower(path: str, source: str, opts: AnalysisOptions, fa: FileAnalysis) -> Optional[ir.TranslationUnit]:
    """Run the selected frontend; fill ``fa.error``/``fa.notes`` on problems."""
    if opts.frontend == "pycparser":
        from .frontend.errors import FrontendError
        from .frontend.lower_c import lower_c_file
        try:
            return lower_c_file(path, include_dirs=opts.include_dirs, defines=opts.defines)
        except FrontendError as e:
            fa.error = ParseProblem(e.message, e.line or 0, e.column or 0, path)
            return None
    from .frontend.lower_clang import lower_translation_unit
    from .frontend.parse import FrontendOptions, parse_file

    fopts = FrontendOptions(include_dirs=list(opts.include_dirs), defines=list(opts.defines),
                            std=opts.std, arch=opts.arch, extra_args=list(opts.extra_args),
                            compile_commands=opts.compile_commands)
    pr = parse_file(path, fopts)
    for h in pr.stubbed_headers:
        fa.notes.append(f"header <{h}> not found; analysed without it (pass its directory with -I)")
    if pr.fatal or pr.tu is None:
        first = pr.errors[0] if pr.errors else None
        msg = first.message if first else (getattr(pr, "message", "") or "cannot parse file")
        fa.error = ParseProblem(msg, first.line if first else 0, first.column if first else 0, path)
        return None
    fa.dependencies = sorted({i.include.name for i in pr.tu.get_includes()})
    tu = lower_translation_unit(pr.tu, path, source)
    main = os.path.abspath(path)
    errors = [e for e in pr.errors]
    if errors:
        # An error inside a kernel (or a device function it calls) makes that kernel's facts
        # unreliable; errors elsewhere (host code) only get a note.
        for fn in tu.kernels:
            spans = [fn] + _callees(fn)
            for e in errors:
                for f in spans:
                    r = f.range
                    same_file = os.path.abspath(e.file or main) == os.path.abspath(r.file or main)
                    if same_file and (r.line, r.column) <= (e.line, e.column) <= (r.end_line, r.end_column):
                        fa.kernel_errors.append((fn.display_name, ParseProblem(e.message, e.line, e.column, e.file)))
                        break
                else:
                    continue
                break
        outside = [e for e in errors if not any(p.line == e.line and p.message == e.message
                                                   for _, p in fa.kernel_errors)]
        for e in outside[:3]:
            fa.notes.append(f"clang error outside kernels (ignored for the analysis): "
                            f"{os.path.basename(e.file or path)}:{e.line}:{e.column}: {e.message}")
        if not tu.kernels and not tu.functions and errors:
            e = errors[0]
            fa.error = ParseProblem(e.message, e.line, e.column, e.file)
    return tu


def _callees(fn: ir.Function) -> list[ir.Function]:
    out, stack, seen = [], list(fn.callees), set()
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        stack.extend(f.callees)
    return out


def analyze_kernel(kernel: ir.Function, tu: ir.TranslationUnit, opts: AnalysisOptions) -> KernelFacts:
    launch = launch_config(kernel, tu, opts.block, opts.grid, opts.dynamic_smem, opts.default_block)
    variables = kernel_variables(kernel, launch)
    kf = KernelFacts(kernel, launch, variables)
    _load_providers()
    for provider in FACT_PROVIDERS:
        provider(kf, tu, opts)
    _reconcile_with_ptxas(kf)
    return kf


def _reconcile_with_ptxas(kf: KernelFacts) -> None:
    """The compiler has the last word: when ptxas reports no local memory at all, arrays the
    source-level model put in local memory were kept in registers (e.g. a single run-time read
    turned into predicated selects)."""
    res = kf.extra.get("resources")
    data = res.to_json() if hasattr(res, "to_json") else res
    if not isinstance(data, dict) or data.get("registers_source") != "ptxas" or data.get("local_bytes"):
        return
    for v in kf.variables:
        if v.memory == "local" and v.storage == "auto":
            v.memory = "register"
            v.reason += ("; but ptxas allocates no local memory for this kernel, so the compiler "
                         "keeps it in registers")
            v.forcing_access = None


# Functions (kernel_facts, tu, options) -> None that attach further facts to KernelFacts.extra.
# Analyses register themselves here so the pipeline does not need to know each of them.
FACT_PROVIDERS: list = []
# Modules (relative to this package) that append their provider to FACT_PROVIDERS on import.
PROVIDER_MODULES: list = ["accesses", "resources", "cgma", "counters"]


def _load_providers() -> None:
    import importlib
    for m in PROVIDER_MODULES:
        importlib.import_module(f".{m}", __package__)


def analyze_file(path: str, opts: Optional[AnalysisOptions] = None) -> FileAnalysis:
    opts = opts or AnalysisOptions()
    t0 = time.perf_counter()
    fa = FileAnalysis(path=path, options=opts)
    source, err = _read_source(path)
    if source is None:
        fa.error = ParseProblem(err or "cannot read file", 0, 0, path)
        fa.seconds = time.perf_counter() - t0
        return fa
    fa.source = source
    if not source.strip():
        # Valid (empty) CUDA: nothing to analyse, nothing to report.
        fa.tu = ir.TranslationUnit(path=path)
        fa.notes.append("empty file")
        fa.seconds = time.perf_counter() - t0
        return fa
    tu = lower(path, source, opts, fa)
    fa.tu = tu
    if tu is not None:
        tu.notes.extend(fa.notes)
        resolve_launch_sites(tu)
        bad = {name for name, _ in fa.kernel_errors}
        for k in tu.kernels:
            if k.display_name in bad:
                kf = KernelFacts(k, launch_config(k, tu, opts.block, opts.grid, opts.dynamic_smem, opts.default_block), [])
                kf.skipped = "clang reported errors inside this kernel"
                fa.kernels.append(kf)
                continue
            fa.kernels.append(analyze_kernel(k, tu, opts))
    fa.seconds = time.perf_counter() - t0
    return fa
