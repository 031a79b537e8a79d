"""Helpers of the assessor page tests: a campaign with the demo collection, a committed pool, the
documents stored and assignments dealt (imported explicitly: tests/judging/conftest.py is shared)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.test import Client

from campaigns.models import Campaign, Document
from campaigns.services import documents_import, runs_import, topics_import
from judging.models import Assignment
from judging.services import assignments_create
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD
from tests.pooling.conftest import demo_dir, demo_run_paths

RUN_TAGS = ("bm25", "bm25_rm3", "dense_retriever", "random_baseline")


def demo_pool(campaign: Campaign, *, spec: PoolSpec | None = None, name: str = "judge-me") -> Pool:
    """The demo topics and runs imported, a pool built and committed, its documents stored."""
    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths(), group="demo")
    pool = pool_build(campaign=campaign, name=name, spec=spec or PoolSpec("depth", depth=5))
    pool = pool_commit(pool=pool)
    documents_import(campaign=campaign, paths=[demo_dir() / "documents.tsv"])
    return pool


def assign(
    campaign: Campaign,
    pool: Pool,
    assessors: Sequence[Any],
    *,
    topic: str = "401",
    k: int | None = 1,
    order: str = Assignment.Order.DOCNO,
    budget: int | None = None,
) -> dict[str, Assignment]:
    """Assignments of one topic, by assessor username."""
    created = assignments_create(
        campaign=campaign,
        pool=pool,
        assessors=list(assessors),
        topics=[campaign.topics.get(number=topic)],
        k=k,
        order=order,
        budget=budget,
    )
    return {a.assessor.username: a for a in created}


def set_text(campaign: Campaign, docno: str, text: str, title: str = "") -> None:
    Document.objects.filter(campaign=campaign, docno=docno).update(text=text, title=title)


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client
