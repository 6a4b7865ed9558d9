"""numpy's OpenBLAS in the caller's thread alone, for the processes that load numpy to draw.

numpy starts OpenBLAS's thread pool as it is imported: a worker per further core, made and
started before anything asks for one. Neither the window nor the report multiplies matrices worth
a thread (pyqtgraph's arrays are a few dozen points; the report's curves a few hundred): the pool
cost ~25-35 ms of CPU as the window's plots loaded (2 cores, more with more) and ~60 ms in a
200-scenario report (issue 17). OpenBLAS reads its variable once, when numpy loads it, so this is
said before numpy is imported: by the window's start (gui/app.py) and the report's command
(cli/report_cmd.py). Qt-free and numpy-free, so both can call it first.
"""

from __future__ import annotations

import os
import sys

ONE_BLAS_THREAD = ("OPENBLAS_NUM_THREADS", "1")


def one_blas_thread() -> None:
    """One OpenBLAS thread for numpy when it loads. A value the user set is kept; once numpy is
    loaded its pool exists and the setting would only reach child processes: nothing is set."""
    if "numpy" not in sys.modules:
        os.environ.setdefault(*ONE_BLAS_THREAD)
