"""The pre-commit hook (.pre-commit-hooks.yaml) run by `pre-commit try-repo` on a temporary
repository holding a bad and a good kernel.

* `language: system` variant (offline, always runs when git and pre-commit are installed):
  the repository's hook definition with only `language`/`entry` switched to this interpreter,
  so the hook id, the `types_or: [cuda]` file selection and the exit status are what pre-commit
  sees.
* The real hook (`language: python`: pre-commit builds a virtualenv and pip-installs this
  repository with its dependencies) runs when PyPI is reachable (CI); skipped offline.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cuda_sources import CLEAN, kernel

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / ".pre-commit-hooks.yaml"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
pre_commit = pytest.importorskip("pre_commit", reason="pre-commit not installed")

GIT = ["git", "-c", "user.name=cudalint-test", "-c", "user.email=test@example.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]


def git(cwd, *args):
    subprocess.run(GIT + list(args), cwd=cwd, check=True, capture_output=True)


def commit_all(repo: Path) -> None:
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")


def env(tmp: Path) -> dict:
    e = dict(os.environ)
    e.update(PRE_COMMIT_HOME=str(tmp / "pre-commit-home"), PRE_COMMIT_COLOR="never",
             PRE_COMMIT_NO_CONCURRENCY="1", CUDALINT_CACHE_DIR=str(tmp / "cudalint-cache"))
    e.pop("PRE_COMMIT", None)
    return e


def try_repo(hook_repo: Path, target: Path, tmp: Path, *files: str, timeout: int = 120):
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "cudalint",
           "--verbose", "--files", *files]
    return subprocess.run(cmd, cwd=target, env=env(tmp), capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def target(tmp_path_factory) -> Path:
    t = tmp_path_factory.mktemp("target")
    (t / "bad.cu").write_text(kernel())
    (t / "good.cu").write_text(CLEAN)
    (t / "helpers.cuh").write_text(CLEAN.replace("scale", "scale_h"))
    (t / "notes.txt").write_text("not CUDA: the hook must not see this\n")
    commit_all(t)
    return t


def test_hook_definition():
    import yaml  # a pre-commit dependency

    (hook,) = yaml.safe_load(HOOKS.read_text())
    assert hook["id"] == "cudalint" and hook["types_or"] == ["cuda"]
    assert hook["language"] == "python" and hook["entry"] == "cudalint check"
    assert hook.get("require_serial") is True
    from identify.identify import tags_from_filename
    assert "cuda" in tags_from_filename("k.cu") and "cuda" in tags_from_filename("k.cuh")


@pytest.mark.slow  # runs pre-commit twice over a fresh hook repository
def test_try_repo_system_hook_fails_on_bad_and_passes_on_good(tmp_path, target):
    hook_repo = tmp_path / "hook"
    hook_repo.mkdir()
    text = HOOKS.read_text().replace("language: python", "language: system")
    text = text.replace("entry: cudalint check", f"entry: {sys.executable} -m cudalint.cli check")
    assert "language: system" in text and "-m cudalint.cli check" in text
    (hook_repo / ".pre-commit-hooks.yaml").write_text(text)
    commit_all(hook_repo)

    bad = try_repo(hook_repo, target, tmp_path, "bad.cu", "good.cu")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "cudalint" in bad.stdout and "Failed" in bad.stdout
    assert "bad.cu:11:32: warning: uncoalesced global load" in bad.stdout and "[CL201]" in bad.stdout
    assert "good.cu:" not in bad.stdout

    good = try_repo(hook_repo, target, tmp_path, "good.cu", "helpers.cuh")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

    skipped = try_repo(hook_repo, target, tmp_path, "notes.txt")
    assert skipped.returncode == 0 and "(no files to check)Skipped" in skipped.stdout


def _pypi_reachable() -> bool:
    if os.environ.get("CUDALINT_TEST_OFFLINE"):
        return False
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
        return True
    except OSError:
        return False


def _copy_checkout(dest: Path) -> bool:
    """This checkout's tracked and untracked-but-not-ignored files (so uncommitted work is
    what gets installed), committed in a fresh repository."""
    r = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                       cwd=ROOT, capture_output=True)
    if r.returncode != 0:
        return False
    for name in filter(None, r.stdout.decode().split("\0")):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    commit_all(dest)
    return True


@pytest.mark.slow  # builds a virtualenv and pip-installs cudalint (~26 s of CPU): CI runs it
def test_try_repo_real_python_hook(tmp_path, target):
    if not _pypi_reachable():
        pytest.skip("PyPI unreachable: the python hook cannot be installed")
    hook_repo = tmp_path / "cudalint-repo"
    hook_repo.mkdir()
    if not _copy_checkout(hook_repo):
        pytest.skip("not a git checkout")
    r = try_repo(hook_repo, target, tmp_path, "bad.cu", "good.cu", timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bad.cu:11:32: warning: uncoalesced global load" in r.stdout
    assert "good.cu:" not in r.stdout and "Traceback" not in r.stdout + r.stderr
