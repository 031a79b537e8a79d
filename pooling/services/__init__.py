"""Writes of pooling: stored pools (build, commit, discard) and the adaptive judging queues."""

from pooling.services.pools import pool_build, pool_commit, pool_discard
from pooling.services.queues import queue_next, queue_record

__all__ = ["pool_build", "pool_commit", "pool_discard", "queue_next", "queue_record"]
