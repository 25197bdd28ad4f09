"""CL0xx: problems with the input or the tool itself (emitted by the runner, documented here)."""
from .registry import register_doc_only

register_doc_only(
    "CL000", "unparsable-file", "error", "The file could not be read or parsed well enough to analyse",
    what="Reports a file that cannot be read (missing, unreadable, binary) or whose parse fails so "
         "badly that a kernel cannot be analysed (a clang error inside a kernel, a fatal error).",
    why="cudalint's facts come from the parsed source; a kernel clang cannot parse gets no facts, "
        "and a silent skip would look like a clean result.",
    example="__global__ void k(float* a) { a[threadIdx.x] = undeclared_function(); }",
    how_to_fix="Fix the reported error, or pass the include directories (-I), defines (-D) or a "
               "compile_commands.json (--compile-commands) the file needs.",
)

register_doc_only(
    "CL010", "unused-suppression", "warning", "A suppression comment matches no diagnostic",
    what="Reports a `// cudalint: ignore[...]` comment that suppresses nothing.",
    why="Stale suppressions hide future findings on that line and mislead readers.",
    example="int i = threadIdx.x;  // cudalint: ignore[CL201]",
    how_to_fix="Remove the suppression, or narrow it to the codes that still fire.",
)
