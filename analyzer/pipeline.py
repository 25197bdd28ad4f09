"""From a file on disk to per-kernel facts: parse, lower to IR, resolve launches, analyse.

Pure with respect to output: nothing here prints or decides severities (that is ``rules/``).

The facts stage, read top to bottom in :func:`analyze_kernel`: one :class:`~.target.Target`
per file (``FileAnalysis.target``, loaded in :func:`analyze_file`), one
:class:`~.launch.LaunchConfig` per kernel (:func:`~.launch.launch_config`), then each fact
module called explicitly, in order, into a typed field of :class:`KernelFacts`. Which facts are
computed is decided by :func:`needed_facts` from the rules that will run (a run restricted to
CL2xx computes no resources, occupancy, CGMA or race facts).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Optional

from . import ir
from .accesses import AccessTable, analyze_accesses
from .cgma import CgmaFacts, RooflineFacts, analyze_cgma, kernel_roofline
from .counters import PredictedCounters, predicted_counters
from .launch import LaunchConfig, launch_config, resolve_launch_sites
from .memory import VariableFact, kernel_variables
from .source_text import source_lines
from .resources import KernelOccupancy, ResourceFacts, kernel_occupancy, kernel_resources
from .sync import KernelSync
from .options import AnalysisOptions  # noqa: F401  (re-exported: the pipeline's input)
from .options import SOURCE_SUFFIXES, frontend_options, not_a_source  # noqa: F401  (re-exported)
from .options import ALL_FACTS, FACT_PARTS, needed_facts  # noqa: F401  (re-exported)
from .target import Target, load_target
from .lowering import ParseProblem, read_source as _read_source  # noqa: F401  (re-exported)
from . import lowering
from .texture_bindings import annotate_accesses as annotate_textures


@dataclass
class KernelFacts:
    function: ir.Function
    launch: LaunchConfig
    variables: list[VariableFact]
    # Each is None when the run did not need it (see needed_facts); accesses and CGMA also
    # when the kernel has no body.
    accesses: Optional[AccessTable] = None
    resources: Optional[ResourceFacts] = None
    occupancy: Optional[KernelOccupancy] = None
    cgma: Optional[CgmaFacts] = None
    roofline: Optional[RooflineFacts] = None
    sync: Optional[KernelSync] = None  # barriers, races, warp divergence
    # the kernel-level figures validate compares with Nsight Compute (analyzer/counters.py)
    predicted_counters: Optional[PredictedCounters] = None
    skipped: Optional[str] = None  # why the kernel could not be analysed

    @property
    def name(self) -> str:
        return self.function.display_name

    def to_json(self) -> dict:
        out = {
            "name": self.function.display_name,
            "path": self.function.range.file or None,  # a header's kernel: the header
            "line": self.function.range.line,
            "launch": self.launch.to_json(),
            "variables": [v.to_json() for v in self.variables],
        }
        for k in ALL_FACTS:
            v = getattr(self, k)
            if v is not None:
                out[k] = v.to_json()
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
    target: Optional[Target] = None  # the file's one Target (``opts.arch``), for facts and rules
    dependencies: list[str] = field(default_factory=list)  # files #included (for the result cache)
    scope: Optional[object] = None  # frontend.project_files.ProjectScope: the user's files
    missing_headers: list[str] = field(default_factory=list)  # #includes not found (parsed as empty)
    hash_errors: list[str] = field(default_factory=list)  # #error directives the parse reached

    @property
    def source_lines(self) -> list[str]:
        return self.source.splitlines()

    def reportable(self, path: Optional[str]) -> bool:
        """Is ``path`` the checked file or one of the user's headers analysed through it?"""
        if not path or os.path.abspath(path) == os.path.abspath(self.path):
            return True
        return self.scope is not None and self.scope.reportable(path)

    def shown_path(self, path: Optional[str]) -> str:
        """Where a finding located in ``path`` is reported: the checked file as it was named,
        a header of the user's relative to the working directory when the checked file's name
        is relative too, else the checked file."""
        if not path or not self.reportable(path) or os.path.abspath(path) == os.path.abspath(self.path):
            return self.path
        return path if os.path.isabs(self.path) else os.path.relpath(path)

    def lines_of(self, path: Optional[str]) -> list[str]:
        """The source lines of the checked file or of a header it includes."""
        if not path or os.path.abspath(path) == os.path.abspath(self.path):
            return self.source_lines
        cache = self.__dict__.setdefault("_lines", {})
        if path not in cache:
            text, _ = _read_source(path)
            cache[path] = (text or "").splitlines()
        return cache[path]


def parse_ahead(path: str, opts: AnalysisOptions) -> None:
    """Start parsing ``path`` in the background for a later :func:`analyze_file` with ``opts``
    (see ``frontend.parse_ahead``)."""
    from .frontend import parse_ahead as ahead

    ahead.start_for(path, opts)


def lower(path: str, source: str, opts: AnalysisOptions, fa: FileAnalysis) -> Optional[ir.TranslationUnit]:
    """Lower the file (or take the lowering another process did: ``lowering.take``); fill
    ``fa.error``/``fa.notes`` on problems, and what the parse said of the file."""
    lw = lowering.take(path, opts, source) or lowering.lower_file(path, source, opts)
    fa.notes.extend(lw.notes)
    fa.kernel_errors.extend(lw.kernel_errors)
    fa.missing_headers = list(getattr(lw, "missing_headers", ()))
    fa.hash_errors = list(getattr(lw, "hash_errors", ()))
    if lw.error is not None:
        fa.error = lw.error
    if lw.scope is not None:
        fa.dependencies, fa.scope = lw.dependencies, lw.scope
    return lw.tu


def analyze_kernel(kernel: ir.Function, tu: ir.TranslationUnit, launch: LaunchConfig,
                   target: Target, params: dict, opts: AnalysisOptions,
                   needs: frozenset = frozenset(ALL_FACTS + FACT_PARTS)) -> KernelFacts:
    """Every fact of one kernel, in order. ``params`` are the ``--param`` values; ``needs``
    the facts to compute (:func:`needed_facts`)."""
    kf = kernel_facts_before_registers(kernel, tu, launch, target, params, needs)
    kernel_facts_from_registers(kf, tu, target, params, opts, needs)
    return kf


def kernel_facts_before_registers(kernel: ir.Function, tu: ir.TranslationUnit, launch: LaunchConfig,
                                  target: Target, params: dict, needs: frozenset) -> KernelFacts:
    """The facts that do not need ptxas' report: variables and accesses. A file's kernels all
    get these first, so that its register report, compiled in the background, has the time of
    all of them to arrive (cuda-samples' reduction_kernel.cu: 2.9 s of waiting otherwise)."""
    variables = kernel_variables(kernel, launch)
    kf = KernelFacts(kernel, launch, variables)
    if "accesses" in needs and kernel.body is not None:
        kf.accesses = _accesses(kf, target, params, "requests" in needs)
        annotate_textures(kf.accesses, kernel, tu)  # backing memory and filter mode (host code)
    return kf


def kernel_facts_from_registers(kf: KernelFacts, tu: ir.TranslationUnit, target: Target, params: dict,
                                opts: AnalysisOptions, needs: frozenset) -> None:
    """The rest, from the resources (ptxas' report) on: occupancy, the accesses ptxas keeps in
    registers, the counters, CGMA and roofline, synchronisation."""
    kernel, launch, variables = kf.function, kf.launch, kf.variables
    has_body = kernel.body is not None
    if "resources" in needs:
        kf.resources = kernel_resources(kernel, variables, tu, target, opts)
        if "occupancy" in needs:
            kf.occupancy = kernel_occupancy(kernel, launch, tu, kf.resources, target)
        _reconcile_with_ptxas(kf)
    if "predicted_counters" in needs:
        kf.predicted_counters = predicted_counters(kf)
    if "cgma" in needs and has_body:
        kf.cgma = analyze_cgma(kernel, launch, params, source_lines(kernel.range.file), kf.accesses)
        if "roofline" in needs:
            kf.roofline = kernel_roofline(kf.cgma, opts)
    if "sync" in needs:
        kf.sync = KernelSync(kernel, launch, {**launch.param_values, **params},
                             global_check="global_races" in needs, given=params)


def _accesses(kf: KernelFacts, target: Target, params: dict, requests: bool = True) -> AccessTable:
    try:
        return analyze_accesses(kf.function, kf.launch, kf.variables, target, params, requests=requests)
    except RecursionError:
        return AccessTable([], kernel=kf.name, error="expression too deep to analyse")
    except Exception as exc:  # a bug here must not take the file's other facts down with it
        return AccessTable([], kernel=kf.name, error=f"access analysis failed: {type(exc).__name__}: {exc}")


def _reconcile_with_ptxas(kf: KernelFacts) -> None:
    """The compiler has the last word: when ptxas reports no local memory at all, arrays the
    source-level model put in local memory were kept in registers (e.g. a single run-time read
    turned into predicated selects)."""
    res = kf.resources
    if res is None or res.registers_source != "ptxas" or res.local_bytes:
        return
    for v in kf.variables:
        if v.memory == "local" and v.storage == "auto":
            v.memory = "register"
            v.reason += ("; but ptxas allocates no local memory for this kernel, so the compiler "
                         "keeps it in registers")
            v.forcing_access = None
    # Their accesses issue no local request either (SGEMM_CUDA kernels 10-12 pass regM/regN/
    # threadResults to an inlined device function: 'local ld/st 4 sectors per request' was
    # predicted where Nsight Compute measured no local request at all).
    for a in (kf.accesses.accesses if kf.accesses is not None else ()):
        if a.space == "local" and a.issued:
            a.issued = False
            a.requests = 0
            a.weight = 0.0
            a.request_note = "kept in registers: ptxas allocates no local memory for this kernel"


def _device_answers(opts: AnalysisOptions, target, tu: ir.TranslationUnit):
    """What the host code's device queries answer: the target's limits, the SM count of the
    roofline's device (``--device`` or the architecture's representative GPU), and the
    occupancy query from ptxas' registers."""
    from .cgma import resolve_roofline_device
    from .device_queries import device_answers
    from .occupancy import compute_occupancy

    try:
        dev, _ = resolve_roofline_device(opts)
    except ValueError:
        dev = None

    def occupancy(name: str, targs: tuple, threads: int, smem: int):
        fns = [k for k in tu.kernels if k.name == name or k.display_name == name]
        if targs:
            want = name + "<" + ", ".join(targs) + ">"
            fns = [k for k in fns if k.display_name.replace(" ", "") == want.replace(" ", "")] or fns
        if len(fns) != 1:
            return None, f"`{name}` is not one kernel of this file"
        fn = fns[0]
        if not opts.use_ptxas:
            return None, "the kernel's registers are known only from ptxas"
        lc = LaunchConfig((threads, 1, 1), None, smem, "command-line")
        res = kernel_resources(fn, kernel_variables(fn, lc), tu, target, opts)
        if res.registers_source != "ptxas" or not res.registers:
            return None, "the kernel's registers are known only from ptxas, which gave none"
        r = compute_occupancy(target, threads, res.registers, res.static_smem_bytes, smem)
        if not r.can_launch or r.active_blocks_per_sm < 1:
            return None, f"a block of {threads} threads of `{name}` cannot launch"
        return r.active_blocks_per_sm, (
            f"{r.active_blocks_per_sm} resident block(s) of {threads} threads per SM for "
            f"`{fn.display_name}` (the occupancy calculation with ptxas' {res.registers} registers "
            f"per thread on {target.arch})")

    return device_answers(target, dev, occupancy)


def analyze_file(path: str, opts: Optional[AnalysisOptions] = None) -> FileAnalysis:
    opts = opts or AnalysisOptions()
    t0 = time.perf_counter()
    fa = FileAnalysis(path=path, options=opts, target=load_target(opts.arch))  # ValueError: unknown arch
    why = not_a_source(path)
    if why:
        fa.error = ParseProblem(why, 0, 0, path)
        return fa
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
        resolve_launch_sites(tu, _device_answers(opts, fa.target, tu))
        needs = opts.facts if opts.facts is not None else needed_facts(None)
        params = dict(opts.params or {})
        bad = {name for name, _ in fa.kernel_errors}
        started = []
        for k in tu.kernels:
            launch = launch_config(k, tu, opts.block, opts.grid, opts.dynamic_smem, opts.default_block)
            if k.display_name in bad:
                kf = KernelFacts(k, launch, [])
                kf.skipped = "clang reported errors inside this kernel"
            else:
                kf = kernel_facts_before_registers(k, tu, launch, fa.target, params, needs)
                started.append(kf)
            fa.kernels.append(kf)
        for kf in started:  # every kernel's first facts, then the ones that read ptxas' report
            kernel_facts_from_registers(kf, tu, fa.target, params, opts, needs)
    fa.seconds = time.perf_counter() - t0
    return fa
