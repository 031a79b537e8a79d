"""Who may do what in a campaign: the one place pages, API views and services ask.

A superuser is an organizer of every campaign. Anyone else holds the roles their memberships
give, per campaign. A person with no role in a campaign is told it does not exist (404), so
campaign names do not leak; a member without the needed role is refused (403).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from campaigns.models import Campaign, Membership
from jobs import registry
from jobs.models import Job

Role = Membership.Role
AnyUser = User | AnonymousUser


class AccessDenied(Exception):
    """The user may see the campaign but lacks the role (HTTP 403)."""


class NotVisible(Exception):
    """The user has no role in the campaign, or it does not exist (HTTP 404)."""


def roles(user: AnyUser, campaign: Campaign) -> frozenset[str]:
    if not user.is_authenticated:
        return frozenset()
    if getattr(user, "is_superuser", False):
        return frozenset(Role.values)
    cache: dict[int, frozenset[str]] = _role_cache(user)
    if campaign.pk not in cache:
        cache[campaign.pk] = frozenset(
            Membership.objects.filter(campaign=campaign, user=user).values_list("role", flat=True)
        )
    return cache[campaign.pk]


def _role_cache(user: Any) -> dict[int, frozenset[str]]:
    # one query per campaign and request: the user object lives as long as the request
    cache = getattr(user, "_workbench_roles", None)
    if cache is None:
        cache = {}
        user._workbench_roles = cache
    return cache


def has_role(user: AnyUser, campaign: Campaign, *wanted: str) -> bool:
    return bool(roles(user, campaign) & set(wanted))


def can_create_campaign(user: AnyUser) -> bool:
    return user.is_authenticated and user.has_perm("campaigns.add_campaign")


def visible_campaigns(user: AnyUser) -> QuerySet[Campaign]:
    if not user.is_authenticated:
        return Campaign.objects.none()
    if getattr(user, "is_superuser", False):
        return Campaign.objects.all()
    return Campaign.objects.filter(memberships__user=user).distinct()


def campaign_for(user: AnyUser, slug: str, *wanted: str) -> Campaign:
    """The campaign ``slug`` if ``user`` holds one of the ``wanted`` roles in it.

    Raises NotVisible when the campaign is absent or the user has no role at all, AccessDenied when
    they have a role but not a wanted one.
    """
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None:
        raise NotVisible(f"no campaign '{slug}'")
    held = roles(user, campaign)
    if not held:
        raise NotVisible(f"no campaign '{slug}'")
    if wanted and not held & set(wanted):
        raise AccessDenied(f"this needs the {' or '.join(wanted)} role in campaign '{slug}'")
    return campaign


# ----------------------------------------------------------------------------------------- jobs
# Who may see a job: the people who hold, now, a role that may read its kind in its campaign.
# Roles are checked on every read, not when the job started: someone demoted or removed from the
# campaign loses its jobs with the rest (a result can hold runs, scores and others' labels).
# A job outside any campaign is its creator's.


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
