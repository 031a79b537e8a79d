"""Judging: the campaign's graded scale, assessors' assignments, judgments with their history, adjudication.

Invariants are database constraints: one current judgment per (assessor, topic, document), one
decision per adjudicated (topic, document), one scale value and one key per grade of a campaign.
Writes go through ``judging.services``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from campaigns.models import ByteOrderCharField, Campaign, Topic
from campaigns.validation import DOCNO_MAX_LENGTH
from judging.consensus import DEFAULT_MACHINE_RULE, MACHINE_RULES
from pooling.models import Pool


class Grade(models.Model):
    """One level of the campaign's graded scale (e.g. 0 Not relevant, 1 Relevant, 2 Highly relevant)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="grades")
    value = models.IntegerField()
    label = models.CharField(max_length=60)
    description = models.CharField(max_length=300, blank=True)
    # the key an assessor presses; digits by default (the value itself)
    key = models.CharField(max_length=1)

    class Meta:
        ordering = ("campaign_id", "value")
        constraints = (
            models.UniqueConstraint(fields=["campaign", "value"], name="judging_grade_unique_value"),
            models.UniqueConstraint(fields=["campaign", "key"], name="judging_grade_unique_key"),
            models.CheckConstraint(condition=models.Q(value__gte=0), name="judging_grade_value_nonnegative"),
        )

    def __str__(self) -> str:
        return f"{self.value} {self.label}"


class Assignment(models.Model):
    """One assessor's share of one topic of a pool: the documents to judge, in their order.

    ``order`` says where the order came from: a seeded shuffle, docno order, or the pool's adaptive
    queue (then the items grow as the queue answers "what next?").
    """

    class Order(models.TextChoices):
        RANDOM = "random"
        DOCNO = "docno"
        QUEUE = "queue"
        # most relevant first by the campaign's machine assessors' grades (their highest), the
        # documents no machine graded last; ties in a seeded shuffle. The pool and its design
        # are unchanged (only the order of presentation), so inclusion probabilities are too.
        MACHINE = "machine"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    # RESTRICT: a pool being judged cannot be deleted on its own, but deleting its campaign cascades
    pool = models.ForeignKey(Pool, on_delete=models.RESTRICT, related_name="assignments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="assignments")
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    order = models.CharField(max_length=10, choices=Order.choices, default=Order.RANDOM)
    seed = models.PositiveIntegerField(default=0)
    # an adaptive queue's budget for this assessor (None: until the queue runs dry)
    budget = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("campaign_id", "topic_id", "assessor_id")
        constraints = (
            models.UniqueConstraint(
                fields=["pool", "topic", "assessor"], name="judging_assignment_unique_assessor_topic"
            ),
        )

    def __str__(self) -> str:
        return f"{self.assessor} on {self.topic.number}"


class AssignmentItem(models.Model):
    """A document of an assignment at its place; ``shared`` marks items other assessors also judge."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    docno = ByteOrderCharField(max_length=DOCNO_MAX_LENGTH)
    shared = models.BooleanField(default=False)

    class Meta:
        ordering = ("assignment_id", "position")
        constraints = (
            models.UniqueConstraint(fields=["assignment", "position"], name="judging_item_unique_position"),
            models.UniqueConstraint(fields=["assignment", "docno"], name="judging_item_unique_docno"),
        )

    def __str__(self) -> str:
        return f"{self.docno} #{self.position}"


class Judgment(models.Model):
    """An assessor's current judgment of a document for a topic. Every change is a JudgmentEvent.

    ``grade`` is None when the assessor could not judge (``cant_judge``). ``active_ms`` is the time
    spent on the document with idle stretches left out, summed over visits.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="judgments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judgments")
    docno = ByteOrderCharField(max_length=DOCNO_MAX_LENGTH)
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments")
    grade = models.IntegerField(null=True, blank=True)
    cant_judge = models.BooleanField(default=False)
    comment = models.TextField(blank=True)
    active_ms = models.PositiveBigIntegerField(default=0)
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("topic_id", "docno", "assessor_id")  # ids: no joins in every query
        constraints = (
            models.UniqueConstraint(
                fields=["assessor", "topic", "docno"], name="judging_judgment_unique_current"
            ),
            models.CheckConstraint(
                condition=models.Q(cant_judge=True, grade__isnull=True)
                | models.Q(cant_judge=False, grade__isnull=False),
                name="judging_judgment_grade_or_cant_judge",
            ),
        )
        indexes = (models.Index(fields=["campaign", "topic"], name="judging_judg_campaign_topic"),)

    def __str__(self) -> str:
        return f"{self.assessor} {self.topic_id} {self.docno} = {self.grade}"


class JudgmentEvent(models.Model):
    """One change of a judgment: who, when, the old and the new grade (None: none / can't judge)."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="events")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    old_grade = models.IntegerField(null=True, blank=True)
    new_grade = models.IntegerField(null=True, blank=True)
    old_cant_judge = models.BooleanField(default=False)
    new_cant_judge = models.BooleanField(default=False)
    comment = models.TextField(blank=True)
    active_ms = models.PositiveBigIntegerField(default=0)  # time spent in this visit

    class Meta:
        ordering = ("judgment_id", "at", "pk")

    def __str__(self) -> str:
        return f"{self.old_grade} -> {self.new_grade}"


class Adjudication(models.Model):
    """The adjudicator's decision on a disagreement: the final grade of (topic, document)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="adjudications")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="adjudications")
    docno = ByteOrderCharField(max_length=DOCNO_MAX_LENGTH)
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    grade = models.IntegerField()
    note = models.TextField(blank=True)
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("topic_id", "docno")
        constraints = (
            models.UniqueConstraint(fields=["topic", "docno"], name="judging_adjudication_unique_document"),
        )

    def __str__(self) -> str:
        return f"{self.topic_id} {self.docno} = {self.grade}"


class MachineJudge(models.Model):
    """A machine assessor: an assessor account of the campaign whose judgments an LLM gives.

    The account judges like anyone (assignments, judgments, agreement, adjudication); this row says
    how it asks (judging.llm.config.JudgeConfig). Where it asks is the operator's: ``endpoint``
    names one of the endpoints declared in ``WORKBENCH_JUDGE_ENDPOINTS`` (URL, key's variable),
    and no URL or variable name is stored here. '' (none chosen) with ``unusable_reason`` is a judge
    that cannot judge until an organizer chooses a declared endpoint (one whose old free URL no
    declared endpoint matched, when endpoints became the operator's).
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="machine_judges")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="machine_judge"
    )
    endpoint = models.CharField(max_length=50, blank=True)
    unusable_reason = models.CharField(max_length=500, blank=True)
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=40, default="umbrela-1")
    temperature = models.FloatField(default=0.0)
    requests_per_minute = models.PositiveIntegerField(default=60)
    concurrency = models.PositiveSmallIntegerField(default=2)
    max_documents = models.PositiveIntegerField(null=True, blank=True)
    timeout = models.FloatField(default=60.0)
    max_retries = models.PositiveSmallIntegerField(default=4)
    # optional prices, to show what a run costs as it goes (currency units per million tokens)
    price_input = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    price_output = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    # set by "Stop"; the running job checks it before each request and ends, resumable
    stop_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("campaign_id", "user_id")

    def __str__(self) -> str:
        return f"{self.user} ({self.model})"


class MachineCall(models.Model):
    """One document a machine judge was asked about: the request, the raw answer and what it
    means. Unique per (judge, prompt version, model, topic, document): the cache that makes a
    stopped or interrupted run resume without asking twice. Calls that got no answer at all are
    not kept here (the job's log has them); the next run asks again."""

    judge = models.ForeignKey(MachineJudge, on_delete=models.CASCADE, related_name="calls")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    docno = ByteOrderCharField(max_length=DOCNO_MAX_LENGTH)
    prompt_version = models.CharField(max_length=40)
    prompt_hash = models.CharField(max_length=32)
    model = models.CharField(max_length=200)
    messages = models.JSONField(default=list)
    raw_answer = models.TextField(blank=True)
    answer = models.IntegerField(null=True, blank=True)  # on the prompt's scale
    grade = models.IntegerField(null=True, blank=True)  # on the campaign's; None: can't judge
    reason = models.TextField(blank=True)  # why there is no grade
    latency_ms = models.PositiveIntegerField(default=0)
    attempts = models.JSONField(default=list)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    total_tokens = models.PositiveIntegerField(null=True, blank=True)
    asked_at = models.DateTimeField()

    class Meta:
        ordering = ("judge_id", "topic_id", "docno")
        constraints = (
            models.UniqueConstraint(
                fields=["judge", "prompt_version", "model", "topic", "docno"],
                name="judging_machinecall_unique",
            ),
        )

    def __str__(self) -> str:
        return f"{self.judge_id} {self.topic_id} {self.docno} = {self.grade}"


class AdjudicationSettings(models.Model):
    """How a campaign's adjudication queue is filled, chosen by its organizers.

    ``machine_rule``: which disagreements that only a machine assessor causes go to people
    (:data:`judging.consensus.MACHINE_RULES`; :func:`judging.consensus.to_people`). A campaign
    without a row has the default, ``all``: every disagreement, as before the rule existed.
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, primary_key=True, related_name="adjudication_settings"
    )
    machine_rule = models.CharField(
        max_length=20,
        choices=list(MACHINE_RULES.items()),
        default=DEFAULT_MACHINE_RULE,
        db_default=DEFAULT_MACHINE_RULE,
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.campaign_id}: machine disagreements {self.machine_rule}"
