"""Adaptive pools as live judging queues: "what next?" and "here is a judgment", state in the database.

The queue's state (every judgment in arrival order, the pending document, the random generator)
lives on the pool's row and is rewritten with each change, under that row's lock, so it survives a
restart and two processes never interleave their changes. Rebuilding a queue means reading its
runs and replaying its log, so each process keeps the queues it used, tagged with the state
version they reflect. When another process moved the state on, the cached queue replays only the
judgments it has not seen; it is rebuilt only after a restart or a rollback.
"""

from __future__ import annotations

import threading

from django.db import transaction

from campaigns.errors import CampaignDataError
from campaigns.models import Run
from campaigns.selectors import campaign_rankings
from pooling.models import Pool
from pooling.spec import PoolSpec
from pooling.strategies import JudgingQueue

_cache: dict[int, tuple[int, JudgingQueue]] = {}
_cache_lock = threading.Lock()


def _checkout(pool_pk: int) -> tuple[Pool, JudgingQueue]:
    """Lock the pool's row and take its queue out of the cache (rebuilt if stale or absent).

    The queue is taken out, not borrowed: if the transaction rolls back after the queue changed,
    the next caller rebuilds it from the stored state instead of using the changed object.
    """
    pool = Pool.objects.select_for_update().get(pk=pool_pk)
    if pool.queue_state is None:
        raise CampaignDataError(f"pool '{pool.name}' is not adaptive: it has no judging queue")
    with _cache_lock:
        cached = _cache.pop(pool.pk, None)
    if cached is not None and cached[0] == pool.queue_version:
        return pool, cached[1]
    # another process moved the queue on: replay its new judgments rather than every run and log
    if cached is not None and cached[1].catch_up(pool.queue_state):
        return pool, cached[1]
    spec = PoolSpec.from_dict(pool.spec)
    runs = Run.objects.filter(campaign_id=pool.campaign_id, tag__in=pool.runs).order_by("tag")
    rankings = campaign_rankings(runs=list(runs), depth=spec.deepest())
    try:
        return pool, JudgingQueue.from_state(rankings, pool.queue_state)
    except ValueError as exc:  # the runs changed under the pool
        raise CampaignDataError(f"pool '{pool.name}': {exc}") from exc


def _checkin(pool: Pool, queue: JudgingQueue, changed: bool) -> None:
    if changed:
        pool.queue_state = queue.state()
        pool.queue_version += 1
        pool.save(update_fields=["queue_state", "queue_version"])
    version = pool.queue_version

    def keep() -> None:
        with _cache_lock:
            _cache[pool.pk] = (version, queue)

    transaction.on_commit(keep)


def _topic(queue: JudgingQueue, pool: Pool, topic: str) -> None:
    if topic not in queue.topics:
        raise CampaignDataError(f"pool '{pool.name}' has no candidates for topic '{topic}'")


@transaction.atomic
def queue_next(*, pool: Pool, topic: str) -> str | None:
    """The document to judge next for ``topic`` (the same one until it is judged), or None when done."""
    locked, queue = _checkout(pool.pk)
    _topic(queue, locked, topic)
    before = queue.pending(topic)
    docno = queue.next(topic)
    _checkin(locked, queue, changed=queue.pending(topic) != before)
    return docno


@transaction.atomic
def queue_record(*, pool: Pool, topic: str, docno: str, grade: int) -> None:
    """Feed a judgment to the queue (any pooled document; a second judgment corrects the first)."""
    locked, queue = _checkout(pool.pk)
    _topic(queue, locked, topic)
    try:
        queue.record(topic, docno, grade)
    except ValueError as exc:
        raise CampaignDataError(str(exc)) from exc
    _checkin(locked, queue, changed=True)


def queue_judged(*, pool: Pool, topic: str) -> list[tuple[str, int]]:
    """The judgments the queue has taken for ``topic``, in arrival order (read from the stored state)."""
    state = Pool.objects.filter(pk=pool.pk).values_list("queue_state", flat=True).get() or {}
    saved = state.get("topics", {}).get(topic)
    return [] if saved is None else [(d, int(r)) for d, r, _ in saved["log"]]


def forget_cached_queues() -> None:
    """Drop every cached queue, as a restart does (tests use it to prove the state is in the database)."""
    with _cache_lock:
        _cache.clear()
