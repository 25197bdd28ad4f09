"""Test-session settings shared by all tests."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_result_cache(tmp_path_factory):
    """`cudalint check` caches results in ./.cudalint_cache by default: keep the tests' cache in
    a temporary directory (a test that wants its own sets CUDALINT_CACHE_DIR itself)."""
    old = os.environ.get("CUDALINT_CACHE_DIR")
    os.environ["CUDALINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("cudalint-cache"))
    yield
    if old is None:
        os.environ.pop("CUDALINT_CACHE_DIR", None)
    else:
        os.environ["CUDALINT_CACHE_DIR"] = old
