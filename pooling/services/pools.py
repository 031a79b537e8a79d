"""Writes of stored pools: build one as a draft, commit it for judging, or discard it."""

from __future__ import annotations

from itertools import repeat

import numpy as np
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Topic
from campaigns.services.bulk import docnos_as_text, rows_insert
from pooling.models import Pool, PoolDocument
from pooling.selectors import pool_rankings
from pooling.spec import PoolSpec
from pooling.strategies import PoolSelection, depth_pool
from trec.progress import ProgressCallback, quiet_progress
from trec.qrels import Qrels

POOL_NAME_MAX = 100


def pool_build(
    *,
    campaign: Campaign,
    name: str,
    spec: PoolSpec,
    user: User | None = None,
    progress: ProgressCallback | None = None,
    machine_grades: Qrels | None = None,
) -> Pool:
    """Build a pool from the campaign's stored runs and keep it as a draft.

    ``machine_grades``: a machine assessor's grades, for the ``machine`` strategy (the judging
    app gathers them: :mod:`judging.services.machine_pools`).

    The organizer reads its size per topic, then commits it (:func:`pool_commit`) or discards it.
    An adaptive strategy stores its candidates (the depth-k union, in best-rank order) and its
    judging queue, which :mod:`pooling.services.queues` drives as judgments arrive. The pool is
    computed before the write transaction opens, so SQLite's write lock is held only while storing.
    """
    progress = progress or quiet_progress
    name = name.strip()
    if not name or len(name) > POOL_NAME_MAX:
        raise CampaignDataError(f"a pool needs a name of 1 to {POOL_NAME_MAX} characters")
    taken = f"campaign '{campaign.slug}' already has a pool named '{name}'"
    if Pool.objects.filter(campaign=campaign, name=name).exists():
        raise CampaignDataError(taken)
    try:
        runs, include = pool_rankings(campaign=campaign, spec=spec, progress=progress)
        progress("building the pool", 0, 1)
        queue_state = None
        if spec.adaptive:
            queue = spec.queue(runs, include)
            core = depth_pool(runs, spec.pool_depth, include=include)
            queue_state = queue.state()
        else:
            core = spec.build(runs, include, machine_grades=machine_grades)
    except ValueError as exc:  # parameters the strategy refuses (a budget without a size...)
        raise CampaignDataError(str(exc)) from exc
    pooled = sorted({r.name for r in runs} if include is None else set(include))
    try:
        with transaction.atomic():
            pool = Pool.objects.create(
                campaign=campaign,
                name=name,
                strategy=spec.strategy,
                spec=spec.as_dict(),
                runs=pooled,
                sizes=_sizes(core),
                document_count=len(core),
                queue_state=queue_state,
                created_by=user,
            )
            _store_documents(pool, core, progress)
    except IntegrityError as exc:  # the same name built at the same moment
        if Pool.objects.filter(campaign=campaign, name=name).exists():
            raise CampaignDataError(taken) from exc
        raise
    return pool


def _sizes(core: PoolSelection) -> dict[str, dict[str, int]]:
    """Per topic: documents to judge and, for sampling designs, the universe they were drawn from."""
    judge = core.sizes()
    universe = np.diff(core.offsets).tolist()
    return {t: {"judge": judge[t], "universe": int(u)} for t, u in zip(core.topics, universe, strict=True)}


POOL_COLUMNS = ("pool", "topic", "position", "docno", "sampled", "stratum", "iprob")


def _store_documents(pool: Pool, core: PoolSelection, progress: ProgressCallback) -> None:
    topic_ids = dict(Topic.objects.filter(campaign_id=pool.campaign_id).values_list("number", "id"))
    missing = [t for t in core.topics if t not in topic_ids]
    if missing:  # the import validated every run topic, so only a deleted topic gets here
        raise CampaignDataError(f"topics {', '.join(missing[:10])} of the runs are not in the campaign")
    strata = core.stratum_labels()
    iprobs = core.inclusion_probabilities().tolist()
    sampled = core.sampled.tolist()
    total = len(core.docnos)
    for i, topic in enumerate(core.topics):
        a, b = int(core.offsets[i]), int(core.offsets[i + 1])
        rows = zip(
            repeat(pool.pk),
            repeat(topic_ids[topic]),
            range(1, b - a + 1),
            docnos_as_text(core.docnos[a:b]),
            sampled[a:b],
            [x.decode() for x in strata[a:b].tolist()],
            iprobs[a:b],
            strict=False,
        )
        rows_insert(PoolDocument, POOL_COLUMNS, rows)
        progress("storing the pool", b, total)


@transaction.atomic
def pool_commit(*, pool: Pool) -> Pool:
    """Freeze a draft pool: from now on it is judged, and it can no longer be discarded."""
    locked = Pool.objects.select_for_update().get(pk=pool.pk)
    if locked.status == Pool.Status.COMMITTED:
        raise CampaignDataError(f"pool '{locked.name}' is already committed")
    locked.status = Pool.Status.COMMITTED
    locked.committed_at = timezone.now()
    locked.save(update_fields=["status", "committed_at"])
    return locked


@transaction.atomic
def pool_discard(*, pool: Pool) -> None:
    locked = Pool.objects.select_for_update().get(pk=pool.pk)
    if locked.status == Pool.Status.COMMITTED:
        raise CampaignDataError(
            f"pool '{locked.name}' is committed: judging relies on it, it cannot be discarded"
        )
    locked.delete()
