"""GPU tests: marked ``gpu`` and skipped, with the reason, when CuPy or an NVIDIA GPU is missing
(CI has neither; the device machine has both)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cudalint.commands.validate import gpu_environment

_HERE = Path(__file__).resolve().parent
_MISSING, DEVICE = gpu_environment()


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            inside = Path(str(item.fspath)).resolve().is_relative_to(_HERE)
        except (OSError, ValueError):
            inside = False
        if not inside:
            continue
        item.add_marker(pytest.mark.gpu)
        if _MISSING:
            item.add_marker(pytest.mark.skip(reason=f"needs CuPy and an NVIDIA GPU: {_MISSING}"))
