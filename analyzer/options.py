"""What a run asks of the analysis (the command line and configuration, resolved).

Kept apart from ``pipeline`` so that the command line can build it without importing the
analyses (sympy, networkx, numpy: most of a cold start), which a run answered from the result
cache never needs.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

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


def frontend_options(opts: AnalysisOptions):
    """The parser's options for an analysis with ``opts`` (clang frontend)."""
    from .frontend.parse import FrontendOptions

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
