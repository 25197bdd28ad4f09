"""Errors raised by the frontends (libclang and pycparser) when a file cannot be analysed."""
from __future__ import annotations

from typing import Optional


class FrontendError(Exception):
    """A file could not be preprocessed or parsed.

    ``line``/``column`` are 1-based positions in the *original* source file (``path``), not in
    the preprocessed text; 0/None when unknown. ``str()`` gives ``path:line:column: message``.
    """

    def __init__(self, message: str, line: Optional[int] = None, column: Optional[int] = None,
                 path: Optional[str] = None):
        self.message = message
        self.line = line
        self.column = column
        self.path = path
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or ""
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return f"{where}: {self.message}" if where else self.message

    def __reduce__(self):  # keep the fields through pickling (multiprocessing --jobs)
        return (FrontendError, (self.message, self.line, self.column, self.path))
