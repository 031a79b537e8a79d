"""The kernel's models moved from the pooling app to the campaigns app without losing a row.

A database is put back at the schema before the move (pooling 0002, judging 0001, metrics 0001,
jobs 0001), filled through that schema's own historical models, then migrated forward; every row
must be found through today's models, with its relations, and permissions keep their meaning.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db.migrations.executor import MigrationExecutor

from campaigns.models import Campaign, Document, Group, Membership, QrelsSet, Run, RunArrays, Topic
from campaigns.selectors import run_ranking
from jobs.models import Job
from judging.models import Assignment, AssignmentItem, Grade, Judgment
from metrics.models import Evaluation, EvaluationRun
from pooling.models import Pool, PoolDocument
from tests.campaigns.conftest import latest_migrations, migrate_to

BEFORE_THE_MOVE = [
    ("pooling", "0002_pools_memberships_qrels"),
    ("judging", "0001_judging"),
    ("metrics", "0001_evaluations"),
    ("jobs", "0001_initial"),
]


# the campaigns app did not exist yet: undoing all of its migrations also undoes the changes its
# later ones made to the moved tables (the run lines' table dropped by campaigns 0006, say)
UNDO_THE_MOVE = [("campaigns", None), *BEFORE_THE_MOVE]


def _fill_old_schema(executor: MigrationExecutor) -> dict[str, int]:
    """Rows of every moved model and of every model pointing at one, written at the old schema."""
    old = executor.loader.project_state(BEFORE_THE_MOVE).apps
    OldUser = old.get_model("auth", "User")
    Campaign_ = old.get_model("pooling", "Campaign")
    now = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    alice = OldUser.objects.create(username="alice", password="!")
    camp = Campaign_.objects.create(name="Robust", slug="robust", max_docs_per_topic=1000)
    group = old.get_model("pooling", "Group").objects.create(campaign=camp, name="uwaterloo")
    topics = [
        old.get_model("pooling", "Topic").objects.create(campaign=camp, number=n, title=f"topic {n}")
        for n in ("051", "51")
    ]
    run = old.get_model("pooling", "Run").objects.create(
        campaign=camp, tag="bm25", group=group, priority=1, submitted_at=now, topic_count=2, document_count=4
    )
    RunDocument_ = old.get_model("pooling", "RunDocument")
    for t in topics:
        for rank, docno in enumerate(("d2", "d1"), start=1):
            RunDocument_.objects.create(run=run, topic=t, rank=rank, docno=docno, score=10.0 - rank)
    for docno in ("d1", "d2"):
        old.get_model("pooling", "Document").objects.create(campaign=camp, docno=docno, text=f"text {docno}")
    old.get_model("pooling", "Membership").objects.create(campaign=camp, user=alice, role="assessor")
    old.get_model("pooling", "QrelsSet").objects.create(
        campaign=camp, name="reference", content=b"\x1f\x8b", line_count=2, topic_count=1, relevant_count=1
    )
    pool = old.get_model("pooling", "Pool").objects.create(
        campaign=camp, name="d10", strategy="depth", spec={"depth": 10}, runs=["bm25"], document_count=2
    )
    for position, docno in enumerate(("d2", "d1")):
        old.get_model("pooling", "PoolDocument").objects.create(
            pool=pool, topic=topics[0], position=position, docno=docno
        )
    old.get_model("judging", "Grade").objects.create(campaign=camp, value=1, label="relevant", key="1")
    assignment = old.get_model("judging", "Assignment").objects.create(
        campaign=camp, pool=pool, topic=topics[0], assessor=alice
    )
    old.get_model("judging", "AssignmentItem").objects.create(assignment=assignment, position=0, docno="d2")
    old.get_model("judging", "Judgment").objects.create(
        campaign=camp, topic=topics[0], docno="d2", assessor=alice, grade=1
    )
    job = old.get_model("jobs", "Job").objects.create(
        kind="runs_import", campaign=camp, title="import", status="done"
    )
    evaluation = old.get_model("metrics", "Evaluation").objects.create(
        campaign=camp, source_key="qrels:1", source_label="reference", job=job
    )
    old.get_model("metrics", "EvaluationRun").objects.create(evaluation=evaluation, run=run, tag="bm25")
    return {"campaign": camp.pk, "run": run.pk, "pool": pool.pk, "alice": alice.pk}


@pytest.mark.django_db(transaction=True)
def test_every_row_written_before_the_move_is_found_after_it() -> None:
    latest = latest_migrations()
    try:
        ids = _fill_old_schema(migrate_to(UNDO_THE_MOVE))
        migrate_to(latest)

        camp = Campaign.objects.get(pk=ids["campaign"])
        assert camp.slug == "robust" and Campaign._meta.db_table == "pooling_campaign"
        assert sorted(Topic.objects.filter(campaign=camp).values_list("number", flat=True)) == ["051", "51"]
        run = Run.objects.get(pk=ids["run"])
        assert run.group == Group.objects.get(campaign=camp, name="uwaterloo")
        # the lines, rows before the move, are the run's block now (campaigns 0006)
        ranked = run_ranking(run=run)
        assert ranked.topics == ("051", "51")
        assert [ranked.ranking(t) for t in ranked.topics] == [[("d2", 9.0), ("d1", 8.0)]] * 2
        assert sorted(Document.objects.filter(campaign=camp).values_list("docno", flat=True)) == ["d1", "d2"]
        assert Membership.objects.get(campaign=camp).user.username == "alice"
        assert bytes(QrelsSet.objects.get(campaign=camp).content) == b"\x1f\x8b"

        pool = Pool.objects.get(pk=ids["pool"])
        assert pool.campaign == camp
        pooled = PoolDocument.objects.filter(pool=pool).order_by("position")
        assert list(pooled.values_list("docno", flat=True)) == ["d2", "d1"]
        assert Grade.objects.get(campaign=camp).label == "relevant"
        assignment = Assignment.objects.get(campaign=camp)
        assert assignment.pool == pool and assignment.topic.number == "051"
        assert AssignmentItem.objects.get(assignment=assignment).docno == "d2"
        judgment = Judgment.objects.get(campaign=camp)
        assert (judgment.topic.number, judgment.docno, judgment.grade) == ("051", "d2", 1)
        assert Job.objects.get(campaign=camp).kind == "runs_import"
        assert EvaluationRun.objects.get(evaluation=Evaluation.objects.get(campaign=camp)).run == run

        # the relations are live both ways: deleting the campaign cascades through every app
        camp.delete()
        assert not RunArrays.objects.exists()
        assert not Judgment.objects.exists() and not Pool.objects.exists()
    finally:
        migrate_to(latest)


@pytest.mark.django_db(transaction=True)
def test_permissions_follow_the_models_to_their_new_app() -> None:
    """Content types are relabelled, not recreated: a permission granted before the move still
    means 'may create campaigns' after it."""
    latest = latest_migrations()
    organizer = User.objects.create(username="org")
    organizer.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    try:
        migrate_to(UNDO_THE_MOVE)
        assert ContentType.objects.filter(app_label="pooling", model="campaign").exists()
        assert not ContentType.objects.filter(app_label="campaigns", model="campaign").exists()
        migrate_to(latest)
        ContentType.objects.clear_cache()
        assert ContentType.objects.get(app_label="campaigns", model="campaign")
        assert User.objects.get(pk=organizer.pk).has_perm("campaigns.add_campaign")
    finally:
        migrate_to(latest)
