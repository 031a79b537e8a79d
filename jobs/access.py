"""Who may see a job: the people who hold, now, a role that may read its kind in its campaign.

Roles are checked on every read, not when the job started: someone demoted or removed from the
campaign loses its jobs with the rest (a result can hold runs, scores and others' labels).
A job outside any campaign is its creator's.
"""

from __future__ import annotations

import uuid

from jobs import registry
from jobs.models import Job
from pooling.access import AnyUser, has_role


def job_for(user: AnyUser, job_id: uuid.UUID) -> Job | None:
    if not user.is_authenticated:
        return None
    job = Job.objects.select_related("campaign").filter(pk=job_id).first()
    if job is None:
        return None
    if getattr(user, "is_superuser", False):
        return job
    if job.campaign is None:
        return job if job.created_by_id == user.pk else None
    try:
        readers = registry.kind(job.kind).readers
    except KeyError:
        return None
    return job if has_role(user, job.campaign, *readers) else None
