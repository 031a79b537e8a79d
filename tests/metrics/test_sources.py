"""Judgment sources read from the store: labels, the pool's unjudged documents, sampled designs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Topic
from engine.evaluate import evaluate_run
from engine.names import parse_measures
from judging.services import assignments_create, judgment_record
from metrics.sources import JudgmentSource, source_judgments
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import demo_runs

pytestmark = pytest.mark.django_db


def judge_all(campaign: Campaign, pool: Any, assessor: Any, grade_of: Any) -> dict[tuple[str, str], int]:
    given = {}
    for a in assignments_create(campaign=campaign, pool=pool, assessors=[assessor]):
        for docno in a.items.order_by("position").values_list("docno", flat=True)[:3]:
            grade = grade_of(docno)
            judgment_record(assessor=assessor, assignment=a, docno=docno, grade=grade)
            given[(a.topic.number, docno)] = grade
    return given


def lines(q: Any) -> dict[tuple[str, str], int]:
    out = {}
    for t, topic in enumerate(q.topics):
        for d, r in zip(
            q.docnos[q.offsets[t] : q.offsets[t + 1]].tolist(),
            q.rels[q.offsets[t] : q.offsets[t + 1]].tolist(),
            strict=True,
        ):
            out[(topic, d.decode())] = int(r)
    return out


def test_consensus_with_the_pool_keeps_unjudged_documents_as_minus_one(
    loaded: Campaign, assessor: Any
) -> None:
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    given = judge_all(loaded, pool, assessor, lambda d: int(d[-1]) % 3)
    plain = lines(source_judgments(campaign=loaded, source=JudgmentSource()).judgments.qrels)
    assert plain == given  # only what was judged
    pooled = source_judgments(campaign=loaded, source=JudgmentSource(pool=pool.pk))
    merged = lines(pooled.judgments.qrels)
    assert {k: v for k, v in merged.items() if v >= 0} == given
    assert len(merged) == pool.document_count and not pooled.sampled
    # bpref counts judged non-relevant documents only: pooled-unjudged ones must not change it, but
    # infAP treats them as pooled; both come from the same store
    run = demo_runs()[0]
    ms = parse_measures(["bpref", "infAP", "num_rel"])
    a = evaluate_run(source_judgments(campaign=loaded, source=JudgmentSource()).judgments, run, ms).summary
    b = evaluate_run(pooled.judgments, run, ms).summary
    assert a["num_rel"] == b["num_rel"] and a["bpref"] == pytest.approx(b["bpref"])


def test_a_stratified_pool_brings_its_design(loaded: Campaign, assessor: Any) -> None:
    spec = PoolSpec("stratified", strata=(5, 20), rates=(1.0, 0.5), seed=1)
    pool = pool_commit(pool=pool_build(campaign=loaded, name="s", spec=spec))
    judge_all(loaded, pool, assessor, lambda d: 1)
    sourced = source_judgments(campaign=loaded, source=JudgmentSource(pool=pool.pk))
    assert sourced.sampled and sourced.judgments.prel is not None and sourced.judgments.mq is not None
    assert set(np.unique(sourced.judgments.prel.strata).tolist()) == {b"1", b"2"}
    measures = parse_measures(["xinfAP"], design="prel") + parse_measures(["statAP"], design="mq")
    summary = evaluate_run(sourced.judgments, demo_runs()[0], measures).summary
    assert summary["xinfAP"] > 0 and summary["statAP"] > 0


def test_bad_sources_are_refused(loaded: Campaign) -> None:
    with pytest.raises(CampaignDataError, match="unknown consensus rule"):
        JudgmentSource(rule="mode")
    with pytest.raises(CampaignDataError, match="name the assessor"):
        JudgmentSource(kind="assessor")
    with pytest.raises(CampaignDataError, match="not in this campaign"):
        source_judgments(campaign=loaded, source=JudgmentSource(pool=999))
    assert Topic.objects.filter(campaign=loaded).exists()


def test_topics_nobody_judged_yet_stay_out_of_the_means(loaded: Campaign, assessor: Any) -> None:
    """With one of five topics judged, a run is scored over that topic, not diluted over five."""
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    (a,) = assignments_create(
        campaign=loaded,
        pool=pool,
        assessors=[assessor],
        topics=[Topic.objects.get(campaign=loaded, number="401")],
    )
    for docno in a.items.order_by("position").values_list("docno", flat=True)[:3]:
        judgment_record(assessor=assessor, assignment=a, docno=docno, grade=1)
    pooled = source_judgments(campaign=loaded, source=JudgmentSource(pool=pool.pk)).judgments
    assert pooled.qrels.topics == ("401",)
    run = demo_runs()[0]
    ms = parse_measures(["map", "num_q"])
    plain = evaluate_run(
        source_judgments(campaign=loaded, source=JudgmentSource()).judgments, run, ms
    ).summary
    with_pool = evaluate_run(pooled, run, ms).summary
    assert with_pool["num_q"] == plain["num_q"] == 1
    assert with_pool["map"] == pytest.approx(plain["map"])
    # a sampled pool likewise keeps only the judged topics in its prel
    spec = PoolSpec("stratified", strata=(5, 20), rates=(1.0, 0.5), seed=2)
    strat = pool_commit(pool=pool_build(campaign=loaded, name="s", spec=spec))
    sampled = source_judgments(campaign=loaded, source=JudgmentSource(pool=strat.pk)).judgments
    assert sampled.prel is not None and sampled.prel.qrels.topics == ("401",)
