"""What a run asks of the analysis (the command line and configuration, resolved).

Kept apart from ``pipeline`` so that the command line can build it without importing the
analyses (sympy, numpy: most of a cold start), which a run answered from the result
cache never needs.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Optional

from .target import DEFAULT_ARCH


@dataclass
class AnalysisOptions:
    arch: str = DEFAULT_ARCH
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
    # Header analysis (frontend/project_files.py): the user's included files are analysed too,
    # except those an exclude glob matches.
    headers: bool = True
    exclude: list[str] = field(default_factory=list)
    # Facts to compute (names from ALL_FACTS); None = all. Set from the selected rules by
    # ``needed_facts`` (see rules/runner.check_file).
    facts: Optional[frozenset] = None


# Here, not in frontend/parse (which loads libclang's bindings): a parse's options, as a
# key, are needed where libclang is not (lowering.take, parse_ahead).
@dataclass
class FrontendOptions:
    """How to parse. ``defines`` are ``NAME`` or ``NAME=VALUE``; ``compile_commands`` is a
    ``compile_commands.json`` file or a directory containing one."""

    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    std: str = "c++17"
    arch: str = DEFAULT_ARCH
    extra_args: list[str] = field(default_factory=list)
    compile_commands: Optional[str] = None
    #: When False (default) a file that is not valid UTF-8 but is text (a Latin-1 comment, say)
    #: is parsed as raw bytes, as compilers do, with a warning; True makes it fatal.
    strict_utf8: bool = False
    #: Keep macro definitions/expansions and inclusion directives as cursors
    #: (PARSE_DETAILED_PROCESSING_RECORD; MACRO_INSTANTIATION etc. appear among the TU's
    #: children). Costs next to nothing; off so the AST walk sees only declarations.
    detailed_preprocessing_record: bool = False


def frontend_options(opts: AnalysisOptions) -> FrontendOptions:
    """The parser's options for an analysis with ``opts`` (clang frontend)."""
    return FrontendOptions(include_dirs=list(opts.include_dirs), defines=list(opts.defines),
                           std=opts.std, arch=opts.arch, extra_args=list(opts.extra_args),
                           compile_commands=opts.compile_commands)


#: Suffixes of C, C++ and CUDA sources and headers (a file without a suffix is let through:
#: C++ standard headers have none).
SOURCE_SUFFIXES = (".cu", ".cuh", ".cuda", ".c", ".cc", ".cpp", ".cxx", ".c++", ".cp", ".h", ".hh",
                   ".hpp", ".hxx", ".h++", ".inl", ".inc", ".ipp", ".tcc", ".tpp", ".hip")


def not_a_source(path: str) -> Optional[str]:
    """Why ``path`` is not a C/C++/CUDA source by its name (e.g. ``x.py``), or None."""
    ext = os.path.splitext(path)[1]
    if not ext or ext.lower() in SOURCE_SUFFIXES:
        return None
    return (f"not a CUDA source: `{os.path.basename(path)}` is not a C, C++ or CUDA file "
            f"(cudalint reads {', '.join(SOURCE_SUFFIXES[:8])}, ... files)")


# Every fact the pipeline's analyze_kernel can compute, in the order it computes them (and the
# order of ``explain``'s JSON keys). ``variables`` are always computed.
ALL_FACTS = ("accesses", "resources", "occupancy", "predicted_counters", "cgma", "roofline", "sync")
# What each fact is computed from, besides IR, launch and target.
_DEPENDS = {"occupancy": {"resources"}, "roofline": {"cgma"},
            "cgma": {"accesses"},  # CL502 reads the accesses' symbolic addresses
            "predicted_counters": {"accesses", "requests", "resources", "occupancy"}}
# Facts each rule family reads (code prefix -> fact names). CL1xx reads the variables, which
# the ptxas report corrects (local arrays kept in registers), hence ``resources``.
_RULE_FACTS = {
    "CL0": set(), "CL1": {"resources", "accesses"}, "CL2": {"accesses"}, "CL3": {"accesses"},
    "CL4": {"resources", "occupancy"}, "CL5": {"cgma", "roofline"}, "CL6": {"sync"}, "CL7": set(),
    "CL615": {"accesses"},  # a rule of its own: texture reads of memory the kernel writes
    "CL404": {"accesses"},  # the guards of the accesses against the launch grid
    "CL402": {"cgma"},  # a <<<1, 1>>> launch of a grid-stride loop
    # the global-memory race check, a part of ``sync`` with runs of its own (global_races.py)
    "CL606": {"sync", "global_races"}, "CL607": {"sync", "global_races"},
}
# Parts of a fact that only some of its readers need: the global-memory race check (CL606/CL607
# above), and the request counts of the accesses (``requests`` and ``weight``: how many
# warp-level requests each issues for the launch), which the predicted counters read (explain,
# validate, the editor) and no rule does.
FACT_PARTS = ("global_races", "requests")


def needed_facts(rule_codes=None) -> frozenset:
    """The facts the given rules read (with what those facts are computed from); all facts
    when ``rule_codes`` is None (``explain``, ``validate``, the editor)."""
    if rule_codes is None:
        return frozenset(ALL_FACTS + FACT_PARTS)
    need: set = set()
    for code in rule_codes:
        need |= _RULE_FACTS.get(code, _RULE_FACTS.get(code[:3], set(ALL_FACTS)))  # unknown family: all
    for f in list(need):
        need |= _DEPENDS.get(f, set())
    return frozenset(need)


def rules_may_read(fact: str, enabled: Callable[[str], bool]) -> bool:
    """Whether a rule that reads ``fact`` may run, ``enabled(code)`` telling which codes
    the run selects; answered without loading the rules (they import the analyses), so every
    code of the families that read it is tried: True can be a rule that does not exist (a
    ``--select`` of an unused code), False is exact."""
    codes = [f"{fam}{i:02d}" for fam in _RULE_FACTS if len(fam) == 3 for i in range(100)]
    return fact in needed_facts([c for c in codes if enabled(c)])
