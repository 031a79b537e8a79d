"""Long work run outside the request (imports, pool builds, evaluations), with its progress and result.

The work itself is a ``django.tasks`` task (``jobs.tasks.job_task``); a Job is what the project keeps
on top of it: who asked, for which campaign, the progress the work reports, its result or the
problems that refused it, and which worker ran it.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=50)
    # the campaign the job works on: who may see it follows from the campaign's roles
    campaign = models.ForeignKey(
        "campaigns.Campaign", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    # the job this one is a part of (a Split): the parent finishes with its last part
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="parts")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    title = models.CharField(max_length=200)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    phase = models.CharField(max_length=100, blank=True)
    done = models.BigIntegerField(default=0)
    total = models.BigIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    # the problems that refused or broke the job, one line each (file, line and what was expected)
    errors = models.JSONField(default=list, blank=True)
    # the django.tasks result that runs this job (a django_tasks_db row with the database backend)
    task_id = models.CharField(max_length=64, blank=True, db_index=True)
    # host:pid of the process that ran it: interrupted work names the worker that stopped
    worker = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        indexes = (models.Index(fields=["status", "created_at"], name="jobs_job_status_created"),)

    def __str__(self) -> str:
        return f"{self.title} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)
