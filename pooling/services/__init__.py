"""Writes of pooling: stored pools (build, commit, discard), their background jobs, and the
adaptive judging queues."""

from pooling.services.pool_jobs import pool_build_enqueue, pool_diagnostics_enqueue
from pooling.services.pools import pool_build, pool_commit, pool_discard
from pooling.services.queues import queue_next, queue_record

__all__ = [
    "pool_build",
    "pool_build_enqueue",
    "pool_commit",
    "pool_diagnostics_enqueue",
    "pool_discard",
    "queue_next",
    "queue_record",
]
