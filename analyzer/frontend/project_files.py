"""Which files of a translation unit are the user's own: the header filter and ``exclude`` globs.

Kernels, device and host functions defined in the user's project headers are analysed through
every ``.cu`` that includes them (as clang-tidy's ``--header-filter`` does), and reported at their
own file and line. A file is the user's when it is

* the checked file itself, or
* an included file that clang does not count as a system header (so not one found through
  ``-isystem`` or the system include directories), that is not part of cudalint's bundled CUDA
  headers or prelude, not a missing-header stub, not inside a real CUDA toolkit's ``include/``
  directory, and that no ``exclude`` pattern matches.

``exclude`` patterns (command line ``--exclude``/``--extend-exclude``, configuration keys
``exclude``/``extend-exclude``) are globs: a pattern without ``/`` matches any single directory
or file name below the place where checking starts (the directory walked, or, for headers, the
closest directory the header shares with the checked file); a pattern with ``/`` matches the
absolute path (configured patterns are made absolute against the configuration's directory,
command-line ones against the working directory).
"""
from __future__ import annotations

import fnmatch
import os
from typing import Iterable, Optional, Sequence

__all__ = ["DEFAULT_EXCLUDE", "ProjectScope", "excluded", "absolute_patterns"]

#: Directories that are not the user's own code (ruff's defaults, plus vendored-code names).
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules",
                   "build", "_build", "dist", "_deps", "third_party", "3rdparty",
                   ".cudalint_cache")

_HERE = os.path.dirname(os.path.abspath(__file__))
_BUNDLED = os.path.join(_HERE, "include") + os.sep


def absolute_patterns(patterns: Iterable[str], base: str) -> list[str]:
    """Patterns with a ``/`` made absolute against ``base``; name patterns kept as they are."""
    out = []
    for p in patterns:
        p = p.strip()
        if not p:
            continue
        if "/" in p.rstrip("/") and not os.path.isabs(p):
            p = os.path.normpath(os.path.join(base, p))
        out.append(p.rstrip("/") if len(p) > 1 else p)
    return out


def excluded(path: str, patterns: Sequence[str], below: Optional[str] = None) -> bool:
    """Does an exclude pattern match ``path``? Name patterns are tried on each component of
    ``path`` below ``below`` (default: the file name only); path patterns on the absolute path
    (and everything under a matching directory)."""
    if not patterns:
        return False
    ap = os.path.abspath(path)
    names = [os.path.basename(ap)]
    if below:
        rel = os.path.relpath(ap, os.path.abspath(below))
        if not rel.startswith(".."):
            names = [n for n in rel.split(os.sep) if n not in ("", ".")]
    for p in patterns:
        if "/" in p:
            if fnmatch.fnmatchcase(ap, p) or fnmatch.fnmatchcase(ap, p + "/*"):
                return True
        elif any(fnmatch.fnmatchcase(n, p) for n in names):
            return True
    return False


def _in_cuda_toolkit(path: str) -> bool:
    """Inside a real CUDA toolkit's include directory (an ancestor has cuda_runtime_api.h)."""
    d = os.path.dirname(path)
    for _ in range(6):
        if os.path.isfile(os.path.join(d, "cuda_runtime_api.h")):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return False


class ProjectScope:
    """Answers "is this file the user's?" for one checked file (cached per file name)."""

    def __init__(self, main: str, exclude: Sequence[str] = (), headers: bool = True):
        self.main = os.path.abspath(main)
        self.exclude = list(exclude)
        self.headers = headers
        self._memo: dict[str, bool] = {self.main: True}

    def contains(self, path: str, in_system_header: bool = False) -> bool:
        ap = os.path.abspath(path)
        hit = self._memo.get(ap)
        if hit is None:
            hit = self._memo[ap] = self.headers and not in_system_header and self._user_file(ap)
        return hit

    def reportable(self, path: str) -> bool:
        """A file already found to be the user's (findings in it are reported at their own
        place); files never asked about (system headers) are not."""
        return bool(path) and self._memo.get(os.path.abspath(path), False)

    def _user_file(self, ap: str) -> bool:
        from .parse import STUB_DIR
        if ap.startswith(_BUNDLED) or ap.startswith(STUB_DIR + os.sep) or not os.path.isfile(ap):
            return False
        if _in_cuda_toolkit(ap):
            return False
        common = os.path.commonpath([os.path.dirname(self.main), ap])
        # Sharing only the filesystem root says nothing about a project: the name alone counts.
        return not excluded(ap, self.exclude, below=common if os.path.dirname(common) != common else None)
