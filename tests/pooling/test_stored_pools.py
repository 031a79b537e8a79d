"""Pools stored in a campaign: drafts with sizes per topic, commit, discard, adaptive queues."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign
from pooling.models import Pool, PoolDocument
from pooling.selectors import pool_as_core, pools_needed_docnos
from pooling.services import pool_build, pool_commit, pool_discard, queue_next, queue_record
from pooling.services.queues import forget_cached_queues, queue_judged
from pooling.spec import PoolSpec
from pooling.strategies import depth_pool, make_queue, stratified_sample
from tests.pooling.conftest import demo_runs
from trec import read_qrels

pytestmark = pytest.mark.django_db


def test_depth_pool_stored_as_a_draft_equals_the_pure_pool(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="d10", spec=PoolSpec("depth", depth=10))
    expected = depth_pool(demo_runs(), 10)
    assert pool.status == Pool.Status.DRAFT
    assert pool.document_count == len(expected)
    assert {t: s["judge"] for t, s in pool.sizes.items()} == expected.sizes()
    assert pool_as_core(pool=pool).as_lists() == expected.as_lists()  # same documents, same judging order
    assert pool.runs == sorted(r.name for r in demo_runs())


def test_stratified_pool_keeps_strata_and_inclusion_probabilities(loaded: Campaign) -> None:
    spec = PoolSpec("stratified", strata=(5, 20), rates=(1.0, 0.5), seed=7)
    pool = pool_build(campaign=loaded, name="strat", spec=spec)
    expected = stratified_sample(demo_runs(), [5, 20], rates=[1.0, 0.5], seed=7)
    stored = pool_as_core(pool=pool)
    assert stored.as_lists() == expected.as_lists()
    assert stored.strata is not None and expected.strata is not None
    assert stored.strata.tolist() == expected.strata.tolist()
    assert np.allclose(stored.inclusion_probabilities(), expected.inclusion_probabilities())
    # the universe (sampled and not) is larger than what is judged: the page shows both
    assert any(s["universe"] > s["judge"] for s in pool.sizes.values())
    assert PoolDocument.objects.filter(pool=pool, sampled=False).exists()


def test_group_priority_selects_the_pooled_runs(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="top1", spec=PoolSpec("depth", depth=5, runs_per_group=1))
    assert len(pool.runs) == 1  # the four demo runs are one group; priority 1 is the first file
    assert pool.runs == [sorted(r.name for r in demo_runs())[0]]


def test_a_pool_name_is_unique_per_campaign(loaded: Campaign) -> None:
    pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=3))
    with pytest.raises(CampaignDataError, match="already has a pool named 'p'"):
        pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=5))


def test_strategy_parameters_refused_with_the_strategy_sentence(loaded: Campaign) -> None:
    with pytest.raises(CampaignDataError, match="budget"):
        pool_build(campaign=loaded, name="t", spec=PoolSpec("take"))
    assert not Pool.objects.filter(campaign=loaded).exists()


def test_a_campaign_without_runs_cannot_be_pooled(campaign: Campaign) -> None:
    with pytest.raises(CampaignDataError, match="no runs"):
        pool_build(campaign=campaign, name="p", spec=PoolSpec("depth"))


def test_commit_then_discard_is_refused(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=3))
    committed = pool_commit(pool=pool)
    assert committed.status == Pool.Status.COMMITTED and committed.committed_at is not None
    with pytest.raises(CampaignDataError, match="cannot be discarded"):
        pool_discard(pool=pool)
    with pytest.raises(CampaignDataError, match="already committed"):
        pool_commit(pool=pool)
    assert Pool.objects.filter(pk=pool.pk).exists()


def test_discarding_a_draft_removes_its_documents(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=3))
    assert PoolDocument.objects.filter(pool=pool).count() == pool.document_count > 0
    pool_discard(pool=pool)
    assert not PoolDocument.objects.filter(pool_id=pool.pk).exists()


def test_needed_documents_are_the_union_of_the_pools(loaded: Campaign) -> None:
    pool_build(campaign=loaded, name="a", spec=PoolSpec("depth", depth=2))
    pool_build(campaign=loaded, name="b", spec=PoolSpec("depth", depth=4))
    expected = {d for docs in depth_pool(demo_runs(), 4).as_lists().values() for d in docs}
    assert pools_needed_docnos(campaign=loaded) == expected


# ------------------------------------------------------------------------ adaptive queues


def test_adaptive_pool_stores_candidates_and_a_queue(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="mm", spec=PoolSpec("maxmean", depth=20, seed=3))
    assert pool.adaptive and pool.queue_state is not None
    assert pool.document_count == len(depth_pool(demo_runs(), 20))


def test_queue_state_survives_a_restart_and_continues_exactly(loaded: Campaign) -> None:
    from tests.pooling.conftest import demo_dir

    qrels = read_qrels(demo_dir() / "qrels.txt")
    grades = {
        (qrels.topics[t], d.decode()): int(r)
        for t in range(len(qrels.topics))
        for d, r in zip(
            qrels.docnos[qrels.offsets[t] : qrels.offsets[t + 1]].tolist(),
            qrels.rels[qrels.offsets[t] : qrels.offsets[t + 1]].tolist(),
            strict=True,
        )
    }
    pool = pool_build(campaign=loaded, name="mtf", spec=PoolSpec("mtf", depth=20, seed=5))
    reference = make_queue("mtf", demo_runs(), depth=20, seed=5, warmup=0, level=1, include=None)
    topic = "401"
    seen = []
    for step in range(12):
        if step == 6:
            forget_cached_queues()  # as a restart would: the next call rebuilds from the database
        docno = queue_next(pool=pool, topic=topic)
        assert docno == reference.next(topic)
        assert queue_next(pool=pool, topic=topic) == docno  # asked again before judging: same document
        grade = max(grades.get((topic, docno), 0), 0) if docno else 0
        if docno is None:
            break
        queue_record(pool=pool, topic=topic, docno=docno, grade=grade)
        reference.record(topic, docno, grade)
        seen.append((docno, grade))
    assert queue_judged(pool=pool, topic=topic) == seen
    assert Pool.objects.get(pk=pool.pk).queue_version >= len(seen)


def test_queue_refuses_a_topic_without_candidates(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="mm", spec=PoolSpec("maxmean", depth=5))
    with pytest.raises(CampaignDataError, match="no candidates for topic '999'"):
        queue_next(pool=pool, topic="999")


def test_static_pool_has_no_queue(loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="d", spec=PoolSpec("depth", depth=5))
    with pytest.raises(CampaignDataError, match="not adaptive"):
        queue_next(pool=pool, topic="401")


def test_a_process_that_fell_behind_replays_only_the_new_judgments(
    loaded: Campaign, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """Process A caches the queue; process B records judgments; A catches up without a rebuild."""
    import copy

    from pooling.services import queues
    from pooling.strategies import JudgingQueue

    def committed(fn: Any, **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):  # the cache is filled on commit
            return fn(**kwargs)

    pool = pool_build(campaign=loaded, name="mm", spec=PoolSpec("maxmean", depth=20, seed=2))
    first = committed(queue_next, pool=pool, topic="401")
    assert first is not None
    process_a = copy.deepcopy(queues._cache[pool.pk])  # A's view, behind once B writes
    committed(queue_record, pool=pool, topic="401", docno=first, grade=1)  # "process B"
    second = committed(queue_next, pool=pool, topic="401")
    assert second is not None
    committed(queue_record, pool=pool, topic="401", docno=second, grade=0)
    # back to A: its cache is versions behind; rebuilding is forbidden, catching up must do
    queues._cache[pool.pk] = process_a
    monkeypatch.setattr(
        JudgingQueue, "from_state", classmethod(lambda cls, runs, state: pytest.fail("rebuilt"))
    )
    after = committed(queue_next, pool=pool, topic="401")
    reference = make_queue("maxmean", demo_runs(), depth=20, seed=2, warmup=0, level=1, include=None)
    for docno, grade in queue_judged(pool=pool, topic="401"):
        assert reference.next("401") == docno
        reference.record("401", docno, grade)
    assert after == reference.next("401")
