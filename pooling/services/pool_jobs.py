"""Starting a pool's background work: building it, and its diagnostics. The pool pages and the
API both call these; the jobs themselves are in :mod:`pooling.jobs`.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, QrelsSet
from jobs.models import Job
from jobs.services import job_enqueue
from pooling.models import Pool
from pooling.selectors import DIAGNOSTICS_JOB
from pooling.spec import PoolSpec

DEFAULT_KS = (10,)


def pool_build_enqueue(*, campaign: Campaign, user: User, name: str, spec: PoolSpec) -> Job:
    """A job building the draft pool ``name`` of ``campaign`` with ``spec`` (see ``pool_build``)."""
    return job_enqueue(
        kind="pool_build",
        title=f"build pool '{name}' ({spec.strategy}) of {campaign.slug}",
        campaign=campaign,
        user=user,
        params={"name": name, "spec": spec.as_dict()},
    )


def pool_diagnostics_enqueue(
    *,
    pool: Pool,
    user: User,
    qrels_set: int | None = None,
    measures: Sequence[str] = (),
    ks: Sequence[int] | None = None,
) -> Job:
    """A job reporting on ``pool`` (``pooling.reports.diagnostics_report``).

    ``qrels_set``: the id of judgments imported into the pool's campaign, for what needs grades;
    ``measures`` for the reusability (default: the diagnostics' own), ``ks`` for judged@k (default 10).
    """
    if qrels_set is not None and not QrelsSet.objects.filter(campaign=pool.campaign, pk=qrels_set).exists():
        raise CampaignDataError(f"campaign '{pool.campaign.slug}' has no judgments {qrels_set}")
    return job_enqueue(
        kind=DIAGNOSTICS_JOB,
        title=f"diagnostics of pool '{pool.name}' of {pool.campaign.slug}",
        campaign=pool.campaign,
        user=user,
        params={
            "pool": pool.pk,
            "qrels_set": qrels_set,
            "measures": list(measures),
            "ks": list(ks or DEFAULT_KS),
        },
    )
