"""Let glibc's malloc keep freed memory for reuse: for commands that read many large files.

Reading a run allocates arrays of megabytes (the file, masks, columns) and frees them. With
glibc's defaults each such array is mapped afresh and every 4 KB page of it costs a page fault
when first written, which for run files costs about as much as parsing them; the heap's top is
also given back to the system whenever more than twice the mapping threshold is free. Serving
arrays of up to 32 MB from the heap and keeping up to 1 GB of freed heap makes the next file
reuse the same pages (peak memory unchanged: the arrays of one file are freed before the next).
A no-op where glibc is not the C library. Meant for a command-line process, called once.
"""

from __future__ import annotations

import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
_TUNED = False


def tune_allocator() -> bool:
    """Set glibc's thresholds for this process (True when they were set)."""
    global _TUNED
    if _TUNED:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        ok = libc.mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1  # glibc's largest threshold
        ok = libc.mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 and ok
    except (OSError, AttributeError):  # not glibc (musl, ...)
        return False
    _TUNED = ok
    return ok
