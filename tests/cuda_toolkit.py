"""Where the CUDA toolkit's headers are, for tests that compile against cuda_occupancy.h."""
from __future__ import annotations

import shutil
from pathlib import Path


def cuda_include_dirs() -> list[Path]:
    """Include directories that hold cuda_occupancy.h, best first (empty without a toolkit)."""
    cands = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        cands.append(Path(nvcc).resolve().parent.parent / "include")
    cands += [Path("/usr/local/cuda/include")] + sorted(Path("/usr/local").glob("cuda-*/include"), reverse=True)
    return [c for c in cands if (c / "cuda_occupancy.h").is_file()]
