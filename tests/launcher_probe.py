"""The `cudalint` launcher run in a fresh process after a few lines of set-up (patches), and what
happened there read back: the exit code, whether a child process was left behind, and what the
set-up put in ``REPORT`` (a callable is called at the end). Also :func:`crash_here`, a signal
as libclang raises one, for tests that crash a forked child on purpose."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_HEAD = "import json, os, sys, time\nREPORT = {}\nparent = os.getpid()\nfrom launcher_probe import crash_here\n"
_TAIL = """
from cudalint.launcher import main
code = None
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
try:
    left = os.waitpid(-1, os.WNOHANG) != (0, 0)
except ChildProcessError:
    left = False
sys.stdout.flush()
print(json.dumps(dict({k: v() if callable(v) else v for k, v in REPORT.items()}, code=code, children_left=left)))
"""


def crash_here() -> None:
    """End this process with SIGSEGV, without a core file."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)


def run_launcher(setup: str, args: list[str], tmp_path: Path, **env: str) -> tuple[dict, str, str]:
    """``(REPORT with code and children_left, stdout before the report, stderr)``; forks
    allowed (CUDALINT_NO_FORK unset unless given), the caches under ``tmp_path``."""
    e = dict(os.environ, CUDALINT_CACHE_DIR=str(tmp_path / "cache"))
    e.pop("CUDALINT_NO_FORK", None)
    e["PYTHONPATH"] = os.pathsep.join([str(HERE)] + [p for p in [e.get("PYTHONPATH")] if p])
    e.update(env)
    p = subprocess.run([sys.executable, "-c", _HEAD + setup + _TAIL, *map(str, args)],
                       capture_output=True, text=True, env=e, timeout=300)
    lines = p.stdout.strip().splitlines()
    assert lines, p.stderr
    return json.loads(lines[-1]), "\n".join(lines[:-1]), p.stderr
