"""Running one job per input file on every core, results in input order, memory bounded.

``ordered_map(job, count)`` yields ``job(0) ... job(count - 1)`` in order. With ``processes``
(the command line's way) the jobs run in forked worker processes: ``job`` and everything it
closes over (the judgments, their index, the options) are inherited by the children, never
pickled; only the index goes in and the result comes back. Two cores then do twice the work,
where threads share one interpreter lock between numpy calls. Without ``processes``, or where
forking is unsafe (another thread running, a platform without fork), threads of this process
run the jobs: numpy and pyarrow release the GIL inside their kernels. Either way at most
``2 * workers`` jobs are in flight, so the results held at once do not grow with ``count``, and
an exception raised by a job (a FormatError naming its file and line) is raised here in its turn,
after the results before it were yielded.

Used by ``engine.evaluate.evaluate_files`` and ``build_pool``'s reader.
"""

from __future__ import annotations

import os
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

# the job of the pool being run, set by the parent just before it forks (children inherit it)
_JOB: Callable[[int], Any] | None = None


def _run_job(i: int) -> Any:
    assert _JOB is not None
    return _JOB(i)


def can_fork() -> bool:
    """Whether worker processes can be forked here (POSIX, and no other thread running)."""
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def default_workers(processes: bool) -> int:
    """Processes: one more than cores, so that a worker waiting for its file's pages (the page
    cache is not always warm) leaves no core idle (measured: 8% faster on 100 runs, 2 cores).
    Threads: up to 4, as many as cores."""
    cores = os.cpu_count() or 1
    return cores + 1 if processes else min(4, cores)


def ordered_map[T](
    job: Callable[[int], T], count: int, *, workers: int | None = None, processes: bool = False
) -> Iterator[T]:
    """``job(i)`` for i in ``range(count)``, in order, on ``workers`` threads or forked processes."""
    workers = workers if workers is not None else default_workers(processes)
    if workers <= 1 or count <= 1:
        for i in range(count):
            yield job(i)
        return
    if processes and can_fork():
        yield from _forked(job, count, workers)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[T]] = deque()
        submitted = 0
        try:
            while submitted < count or pending:
                while submitted < count and len(pending) < 2 * workers:
                    pending.append(pool.submit(job, submitted))
                    submitted += 1
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()


def _forked[T](job: Callable[[int], T], count: int, workers: int) -> Iterator[T]:
    import multiprocessing

    global _JOB
    if _JOB is not None:  # a pool inside a pool's job: run this one here
        for i in range(count):
            yield job(i)
        return
    _JOB = job
    try:
        with warnings.catch_warnings():
            # numpy's BLAS and pyarrow keep helper threads; both register fork handlers, and the
            # parent has started no job yet, so the 3.12 warning about forking threads does not apply
            warnings.filterwarnings(
                "ignore", message=".*use of fork\\(\\) may lead to deadlocks", category=DeprecationWarning
            )
            pool = multiprocessing.get_context("fork").Pool(min(workers, count))
        with pool:
            pending: deque[Any] = deque()
            submitted = 0
            while submitted < count or pending:
                while submitted < count and len(pending) < 2 * workers:
                    pending.append(pool.apply_async(_run_job, (submitted,)))
                    submitted += 1
                yield pending.popleft().get()
    finally:
        _JOB = None
