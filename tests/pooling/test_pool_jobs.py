"""Starting a pool build or a pool's diagnostics: the one service behind the pool pages and the API."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, QrelsSet
from campaigns.services import campaign_create, qrels_set_import, topics_import
from jobs.models import Job
from pooling.inputs import DiagnosticsInput
from pooling.models import Pool
from pooling.services import pool_build, pool_build_enqueue, pool_diagnostics_enqueue
from pooling.spec import PoolSpec
from tests.pooling.conftest import demo_dir

pytestmark = pytest.mark.django_db


def test_a_pool_build_job_keeps_the_name_and_spec_and_builds_a_draft(
    loaded: Campaign, organizer: Any
) -> None:
    spec = PoolSpec("depth", depth=3)
    job = pool_build_enqueue(campaign=loaded, user=organizer, name="d3", spec=spec)
    assert job.kind == "pool_build" and job.title == "build pool 'd3' (depth) of trec-demo"
    assert job.params == {"name": "d3", "spec": spec.as_dict()}
    assert job.status == Job.Status.DONE, job.errors  # run inside the call in tests
    pool = Pool.objects.get(campaign=loaded, name="d3")
    assert pool.status == Pool.Status.DRAFT and job.result == {
        "pool": pool.pk,
        "name": "d3",
        "documents": pool.document_count,
        "topics": len(pool.sizes),
        # a depth pool judges every document: one stratum "1", all drawn
        "strata": [{"stratum": "1", "candidates": pool.document_count, "judge": pool.document_count}],
    }


def test_diagnostics_default_to_judged_at_10_and_the_default_measures(
    loaded: Campaign, organizer: Any
) -> None:
    pool = pool_build(campaign=loaded, name="d2", spec=PoolSpec("depth", depth=2))
    job = pool_diagnostics_enqueue(pool=pool, user=organizer)
    assert job.kind == "pool_diagnostics" and job.title == "diagnostics of pool 'd2' of trec-demo"
    assert job.params == {"pool": pool.pk, "qrels_set": None, "measures": [], "ks": [10]}
    assert job.status == Job.Status.DONE, job.errors


def test_diagnostics_refuse_judgments_the_campaign_does_not_hold(loaded: Campaign, organizer: Any) -> None:
    pool = pool_build(campaign=loaded, name="d2", spec=PoolSpec("depth", depth=2))
    other = campaign_create(slug="other")
    topics_import(campaign=other, path=demo_dir() / "topics.txt")  # judgments need their topics
    elsewhere = qrels_set_import(campaign=other, path=demo_dir() / "qrels.txt")
    for qrels_set in (elsewhere.pk, elsewhere.pk + 1):
        with pytest.raises(CampaignDataError) as refused:
            pool_diagnostics_enqueue(pool=pool, user=organizer, qrels_set=qrels_set)
        assert refused.value.problems == [f"campaign 'trec-demo' has no judgments {qrels_set}"]
    assert not Job.objects.exists()
    mine = qrels_set_import(campaign=loaded, path=demo_dir() / "qrels.txt", name="ref")
    job = pool_diagnostics_enqueue(pool=pool, user=organizer, qrels_set=mine.pk, measures=["P.10"], ks=[5])
    assert job.status == Job.Status.DONE, job.errors
    assert job.result is not None and job.result["judgments"] == {"id": mine.pk, "name": "ref"}
    assert QrelsSet.objects.count() == 2


@pytest.mark.parametrize(
    ("given", "measures"),
    [
        ("map P.10", ["map", "P.10"]),
        ("map, ndcg_cut.10", ["map", "ndcg_cut.10"]),
        (["map", " P.5 "], ["map", "P.5"]),
    ],
)
def test_measures_are_a_list_or_one_string_of_names(given: Any, measures: list[str]) -> None:
    form = DiagnosticsInput(data={"measures": given})
    assert form.is_valid(), form.errors
    assert form.validated_data["measures"] == measures


def test_measures_of_another_type_are_refused() -> None:
    form = DiagnosticsInput(data={"measures": [1, 2]})
    assert not form.is_valid()
    assert form.errors["measures"] == ["expected names separated by spaces or commas"]
