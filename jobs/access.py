"""Who may see a job: whoever started it, and the organizers of its campaign."""

from __future__ import annotations

import uuid

from jobs.models import Job
from pooling.access import AnyUser, Role, has_role


def job_for(user: AnyUser, job_id: uuid.UUID) -> Job | None:
    if not user.is_authenticated:
        return None
    job = Job.objects.select_related("campaign").filter(pk=job_id).first()
    if job is None:
        return None
    if job.created_by_id == user.pk or getattr(user, "is_superuser", False):
        return job
    if job.campaign is not None and has_role(user, job.campaign, Role.ORGANIZER):
        return job
    return None
