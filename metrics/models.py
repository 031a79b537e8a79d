"""Stored evaluations: a campaign's runs scored against one judgment source, per run and per topic.

An evaluation is written once, by ``metrics.services.evaluation_run`` at the end of its background
job, and never changed: re-evaluating the same source stores a new one, and pages show the latest.
Per-topic values live one row per run so a run page reads one row and a leaderboard only summaries;
values that are not numbers (NaN) are stored as null (PostgreSQL's jsonb has no NaN).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from campaigns.models import Campaign, Run
from campaigns.validation import TAG_MAX_LENGTH


class Evaluation(models.Model):
    class Design(models.TextChoices):
        QRELS = "qrels"  # labels (with a pool's unjudged documents as -1 when a pool was chosen)
        SAMPLED = "sampled"  # a sampled pool's design came along: xinfAP, xinfNDCG and statAP apply

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="evaluations")
    # metrics.sources.JudgmentSource's fields, and their canonical one-line key to find the latest
    source = models.JSONField(default=dict)
    source_key = models.CharField(max_length=300)
    source_label = models.CharField(max_length=400)
    design = models.CharField(max_length=10, choices=Design.choices, default=Design.QRELS)
    # output names in output order, the -m specs they came from, and which print as integers
    measures = models.JSONField(default=list)
    specs = models.JSONField(default=list)
    integer = models.JSONField(default=list, blank=True)
    topic_count = models.PositiveIntegerField(default=0)  # topics with a line in the judgments
    judged_count = models.PositiveIntegerField(default=0)  # (topic, document) pairs with a grade
    unjudged_count = models.PositiveIntegerField(default=0)  # pooled (or in a stratum) but not graded
    relevant_count = models.PositiveIntegerField(default=0)  # graded >= 1
    run_count = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0)  # how long reading and evaluating took
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        indexes = (
            models.Index(fields=["campaign", "source_key", "-created_at"], name="metrics_eval_source_latest"),
        )

    def __str__(self) -> str:
        return f"{self.campaign} against {self.source_label} ({self.created_at:%Y-%m-%d %H:%M})"


class EvaluationRun(models.Model):
    """One run's scores in an evaluation: the 'all' summary and a value per evaluated topic."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="results")
    # the run may be deleted later; its tag keeps the row readable
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    tag = models.CharField(max_length=TAG_MAX_LENGTH)
    summary = models.JSONField(default=dict)  # measure -> value
    topics = models.JSONField(default=list)  # evaluated topics, in the judgments' (byte) order
    per_topic = models.JSONField(default=dict)  # measure -> [value per topic]
    missing_topics = models.JSONField(default=list)  # judged topics the run has no results for

    class Meta:
        ordering = ("evaluation_id", "tag")
        constraints = (
            models.UniqueConstraint(fields=["evaluation", "tag"], name="metrics_evaluationrun_unique_tag"),
        )

    def __str__(self) -> str:
        return f"{self.tag} in evaluation {self.evaluation_id}"
