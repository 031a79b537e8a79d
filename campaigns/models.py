"""Campaign data: a campaign's topics, the runs submitted to it, and the documents assessors read.

Writes go through ``campaigns.services``; the invariants (one topic number per campaign, one run
per tag...) are database constraints so no code path can break them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper

from campaigns.validation import DEFAULT_MAX_DOCS, DOCNO_MAX_LENGTH, TAG_MAX_LENGTH, TOPIC_MAX_LENGTH


class ByteOrderCharField(models.CharField):
    """A CharField compared in byte order on every backend, as the canonical order compares docnos.

    SQLite's default collation is already binary; PostgreSQL's follows the server locale unless the
    column says "C", which also keeps the docno indexes cheap to build.
    """

    def db_parameters(self, connection: BaseDatabaseWrapper) -> dict[str, Any]:
        params = super().db_parameters(connection)
        if connection.vendor == "postgresql":
            params["collation"] = "C"
        return params


class Campaign(models.Model):
    """A collection and everything judged for it: topics, runs, documents, members, pools, judgments."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    # what relevant means here, shown to every assessor beside the topic (TREC always gives them);
    # a database default, so rows written by code that predates the column still insert
    guidelines = models.TextField(blank=True, max_length=50_000, default="", db_default="")
    max_docs_per_topic = models.PositiveIntegerField(
        default=DEFAULT_MAX_DOCS, help_text="documents a run may list per topic; more is a validation error"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "pooling_campaign"
        ordering = ("slug",)

    def __str__(self) -> str:
        return self.name


class Topic(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics")
    # a string: '051' and '51' are different topics (docs/formats.md#topic-ids)
    number = ByteOrderCharField(max_length=TOPIC_MAX_LENGTH)
    title = models.TextField()
    description = models.TextField(blank=True)
    narrative = models.TextField(blank=True)

    class Meta:
        db_table = "pooling_topic"
        ordering = ("campaign_id", "number")
        constraints = (
            models.UniqueConstraint(fields=["campaign", "number"], name="pooling_topic_unique_number"),
        )

    def __str__(self) -> str:
        return f"{self.number}: {self.title}"


class Group(models.Model):
    """A participating team; pools often take each group's top-priority runs only."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(max_length=100)

    class Meta:
        db_table = "pooling_group"
        ordering = ("campaign_id", "name")
        constraints = (
            models.UniqueConstraint(fields=["campaign", "name"], name="pooling_group_unique_name"),
        )

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=TAG_MAX_LENGTH)
    # RESTRICT, not PROTECT: a group in use cannot be deleted, but deleting the campaign removes both
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.RESTRICT, related_name="runs")
    # 1 = the group's first choice for judging, as TREC participants rank their submissions
    priority = models.PositiveIntegerField(default=1)
    original_filename = models.CharField(max_length=255, blank=True)
    submitted_at = models.DateTimeField()
    imported_at = models.DateTimeField(auto_now_add=True)
    topic_count = models.PositiveIntegerField(default=0)
    document_count = models.PositiveIntegerField(default=0)
    # the validation report's warnings, rendered, for the organizer pages
    warnings = models.JSONField(default=list, blank=True)

    class Meta:
        db_table = "pooling_run"
        ordering = ("campaign_id", "tag")
        constraints = (
            models.UniqueConstraint(fields=["campaign", "tag"], name="pooling_run_unique_tag"),
            # two runs without a group may share a priority: NULL groups never compare equal
            models.UniqueConstraint(fields=["group", "priority"], name="pooling_run_unique_group_priority"),
            models.CheckConstraint(condition=models.Q(priority__gte=1), name="pooling_run_priority_positive"),
        )

    def __str__(self) -> str:
        return self.tag


class RunArrays(models.Model):
    """A run's lines, stored once: one block of numpy arrays per run.

    The block holds what the import parsed, in canonical order (score descending, ties by docno
    descending) within each topic: topic ids ascending, lines per topic, docnos, scores, bit for
    bit (:func:`campaigns.stored_runs.arrays_blob`). Evaluations and pools read a run whole, and a
    block reads back in about a millisecond, where rows cost a Python object or a string split per
    line; runs never change after import. A docno appears at most once per topic of a run by
    validation (``check_run`` refuses the file before anything is written).

    Until migration 0006 the lines were also stored one row each (``RunDocument``). Nothing read
    those rows, and writing them was most of an import (5M lines on PostgreSQL: about 10 s instead
    of 5 s on the benchmark machine); that migration turned the rows of runs imported before
    blocks existed into blocks. A topic deleted after the import is dropped from what a block
    gives (``campaigns.selectors.run_ranking``).
    """

    run = models.OneToOneField(Run, on_delete=models.CASCADE, primary_key=True, related_name="arrays")
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"arrays of run {self.run_id}"


class Document(models.Model):
    """The text an assessor reads. Only the documents some pool needs are usually stored."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    docno = ByteOrderCharField(max_length=DOCNO_MAX_LENGTH)
    title = models.TextField(blank=True)
    text = models.TextField()

    class Meta:
        db_table = "pooling_document"
        ordering = ("campaign_id", "docno")
        constraints = (
            models.UniqueConstraint(fields=["campaign", "docno"], name="pooling_document_unique_docno"),
        )

    def __str__(self) -> str:
        return self.docno


class Membership(models.Model):
    """A person's role in one campaign. A user may hold several roles (assessor and adjudicator).

    Organizers see and change everything of their campaign; assessors only their own assignments
    (never runs, ranks or other assessors' labels); adjudicators the disagreements to settle.
    """

    class Role(models.TextChoices):
        ORGANIZER = "organizer"
        ASSESSOR = "assessor"
        ADJUDICATOR = "adjudicator"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "pooling_membership"
        ordering = ("campaign_id", "role", "user_id")
        constraints = (
            models.UniqueConstraint(
                fields=["campaign", "user", "role"], name="pooling_membership_unique_role"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} ({self.role} of {self.campaign})"


class QrelsSet(models.Model):
    """Judgments brought from outside (a previous round, a reference assessor), kept as the file was.

    Diagnostics and simulations read them; the workbench's own judgments live in the judging app.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="qrels_sets")
    name = models.CharField(max_length=100)
    original_filename = models.CharField(max_length=255, blank=True)
    # gzip-compressed qrels text: a million lines is a few MB, parsed again in well under a second
    content = models.BinaryField()
    line_count = models.PositiveIntegerField(default=0)
    topic_count = models.PositiveIntegerField(default=0)
    relevant_count = models.PositiveIntegerField(default=0)
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "pooling_qrelsset"
        ordering = ("campaign_id", "name")
        constraints = (
            models.UniqueConstraint(fields=["campaign", "name"], name="pooling_qrelsset_unique_name"),
        )

    def __str__(self) -> str:
        return self.name
