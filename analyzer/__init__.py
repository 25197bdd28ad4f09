"""The facts stage: pure functions of the IR, the target and the launch (see DESIGN.md)."""
import os

# numpy's OpenBLAS starts one thread per core when numpy is imported, and they spin for tens
# of milliseconds of CPU (a tenth of a one-file run) while the process is busy elsewhere. The
# analyses do no linear algebra; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
