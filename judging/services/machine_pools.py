"""Pools sampled by a machine assessor's grades: where the humans' judging effort goes.

The machine grades a pool's candidates first (its judging job); then an organizer builds a pool
stratified by those grades (:func:`pooling.strategies.machine_sample`): one stratum per grade of
the campaign's scale plus the candidates it did not grade, each sampled at its own rate, every
candidate keeping its stratum and inclusion probability. Humans judge the sample in the
machine's order (highest grade first), and the xinfAP/xinfNDCG estimates over their judgments
stay unbiased however wrong the machine is. The pool is built by pooling's own
:func:`~pooling.services.pool_build` as a draft, committed and assigned like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db.models import Count

from campaigns.errors import CampaignDataError
from jobs.models import Job
from jobs.registry import register
from jobs.services import job_enqueue
from judging.errors import JudgingRefused
from judging.models import MachineJudge
from judging.services.machine import graded_judgments
from judging.services.scale import scale_values
from pooling.models import Pool
from pooling.selectors import pool_built, pool_rankings
from pooling.services import pool_build
from pooling.spec import DEFAULT_DEPTH, PoolSpec
from pooling.strategies import UNGRADED, StratumCount, machine_strata
from trec.progress import ProgressCallback
from trec.qrels import Qrels, qrels_from_arrays

MACHINE_POOL_JOB = "machine_pool"


def machine_grades(*, judge: MachineJudge) -> Qrels:
    """Every grade the machine gave (its "can't judge" answers are no grade), as qrels."""
    rows = list(graded_judgments(judge=judge).values_list("topic__number", "docno", "grade"))
    return qrels_from_arrays(
        np.array([r[0].encode() for r in rows], dtype="S"),
        np.array([r[1].encode() for r in rows], dtype="S"),
        np.array([r[2] for r in rows], dtype=np.int64),
    )


def _scale(judge: MachineJudge) -> list[int]:
    return sorted(scale_values(campaign_id=judge.campaign_id))


def machine_sample_pools(*, judge: MachineJudge) -> list[Pool]:
    """The pools sampled by this machine's grades, newest first."""
    pools = Pool.objects.filter(campaign_id=judge.campaign_id, strategy="machine").order_by("-created_at")
    return [p for p in pools if p.spec.get("machine") == judge.user.username]


def machine_pool_labels(*, judge: MachineJudge) -> list[str]:
    """The strata of a pool sampled by this machine, in the order rates and weights are given."""
    return machine_strata(_scale(judge))


def machine_pool_strata(*, judge: MachineJudge) -> list[dict[str, Any]]:
    """The strata a pool sampled by this machine would have, with how many documents it graded in each
    and the rate suggested for them: every document it calls relevant, a tenth of the rest."""
    grades = _scale(judge)
    counts = {
        r["grade"]: r["n"] for r in graded_judgments(judge=judge).values("grade").annotate(n=Count("pk"))
    }
    out = []
    for label in machine_strata(grades):
        grade = None if label == UNGRADED else int(label[1:])
        out.append(
            {
                "label": label,
                "grade": grade,
                "graded": None if grade is None else counts.get(grade, 0),
                "rate": 0.1 if grade == min(grades) else 1.0,
            }
        )
    return out


@dataclass(frozen=True)
class GradedDepth:
    """The depth of the pools a machine judged (its assignments'), and their names."""

    depth: int
    pools: tuple[str, ...]


def machine_graded_depth(*, judge: MachineJudge) -> GradedDepth | None:
    """How deep the machine graded the runs: the deepest rank read by the pools of its assignments
    (a depth-5 pool: 5), the default depth of a pool sampled by its grades, so the candidates are
    the documents it graded rather than mostly ungraded ones. None when it has no assignment, or
    its pools read whole runs (take, the fusions without a depth)."""
    pools = Pool.objects.filter(assignments__assessor=judge.user, campaign_id=judge.campaign_id).distinct()
    depths: dict[str, int] = {}
    for name, stored in pools.values_list("name", "spec"):
        try:
            deepest = PoolSpec.from_dict(stored).deepest()
        except (ValueError, TypeError):  # a spec a newer or older version wrote: no depth to read
            continue
        if deepest is not None:
            depths[name] = deepest
    if not depths:
        return None
    return GradedDepth(max(depths.values()), tuple(sorted(depths)))


def machine_pool_depth(*, judge: MachineJudge) -> int:
    """The depth a pool sampled by the machine's grades reads unless told: the depth it graded
    (:func:`machine_graded_depth`), else the pools' default (100)."""
    graded = machine_graded_depth(judge=judge)
    return graded.depth if graded is not None else DEFAULT_DEPTH


def machine_pool_spec(
    *,
    judge: MachineJudge,
    depth: int | None = None,
    rates: Sequence[float] | None = None,
    budget: int | None = None,
    total_budget: int | None = None,
    weights: Sequence[float] | None = None,
    seed: int = 0,
) -> PoolSpec:
    """The spec of a pool of the campaign's runs sampled by ``judge``'s grades: ``depth`` (default
    :func:`machine_pool_depth`), each stratum sampled at its ``rate`` (or a ``budget`` allocated by
    ``weights``); strata in :func:`machine_pool_labels`' order."""
    if not graded_judgments(judge=judge).exists():
        raise JudgingRefused(
            f"{judge.user.username} has graded nothing yet: assign it a pool and let it judge first"
        )
    grades = _scale(judge)
    strata = machine_strata(grades)
    for what, values in (("rates", rates), ("weights", weights)):
        if values is not None and len(values) != len(strata):
            raise JudgingRefused(f"give {len(strata)} {what}, one per stratum: {', '.join(strata)}")
    if (rates is None) == (budget is None and total_budget is None):
        raise JudgingRefused("give a sampling rate per stratum, or a budget (per topic or total), not both")
    if rates is not None and any(not 0 <= r <= 1 for r in rates):
        raise JudgingRefused("sampling rates are between 0 and 1")
    try:
        return PoolSpec(
            "machine",
            depth=depth if depth is not None else machine_pool_depth(judge=judge),
            rates=None if rates is None else tuple(float(r) for r in rates),
            budget=budget,
            total_budget=total_budget,
            weights=None if weights is None else tuple(float(w) for w in weights),
            seed=seed,
            machine=judge.user.username,
            grades=tuple(grades),
        )
    except ValueError as exc:
        raise JudgingRefused(str(exc)) from exc


@dataclass(frozen=True)
class MachinePoolPreview:
    """What a pool sampled by the machine's grades would hold, before it is built."""

    depth: int
    strata: list[StratumCount]  # per stratum, the candidates and those drawn, over every topic
    topics: int

    @property
    def documents(self) -> int:
        return sum(s.judge for s in self.strata)

    @property
    def candidates(self) -> int:
        return sum(s.candidates for s in self.strata)


def machine_pool_preview(
    *,
    judge: MachineJudge,
    depth: int | None = None,
    rates: Sequence[float] | None = None,
    budget: int | None = None,
    total_budget: int | None = None,
    weights: Sequence[float] | None = None,
    seed: int = 0,
) -> MachinePoolPreview:
    """The pool :func:`machine_pool_enqueue` would build with these parameters, counted per stratum
    and not stored: the same seeded draw, so the built pool holds exactly these counts. Without
    rates or a budget, the suggested rates (:func:`machine_pool_strata`)."""
    if rates is None and budget is None and total_budget is None:
        rates = [s["rate"] for s in machine_pool_strata(judge=judge)]
    spec = machine_pool_spec(
        judge=judge,
        depth=depth,
        rates=rates,
        budget=budget,
        total_budget=total_budget,
        weights=weights,
        seed=seed,
    )
    try:
        runs, include = pool_rankings(campaign=judge.campaign, spec=spec)
        core = spec.build(runs, include, machine_grades=machine_grades(judge=judge))
    except (ValueError, CampaignDataError) as exc:
        raise JudgingRefused(str(exc)) from exc
    counts = {c.stratum: c for c in core.stratum_counts()}
    # every stratum of the scale, an empty one too: the organizer sees where nothing falls
    strata = [counts.get(label, StratumCount(label, 0, 0)) for label in machine_strata(spec.grades or ())]
    return MachinePoolPreview(depth=spec.pool_depth, strata=strata, topics=len(core.topics))


def machine_pool_enqueue(
    *,
    judge: MachineJudge,
    user: User,
    name: str,
    depth: int | None = None,
    rates: Sequence[float] | None = None,
    budget: int | None = None,
    total_budget: int | None = None,
    weights: Sequence[float] | None = None,
    seed: int = 0,
) -> Job:
    """A job building the draft pool ``name`` (:func:`machine_pool_spec`'s: the depth-``depth``
    pool of the campaign's runs, stratified by ``judge``'s grades, each stratum sampled at its
    ``rate`` or a ``budget`` allocated by ``weights``)."""
    campaign = judge.campaign
    name = name.strip()
    if not name:
        raise JudgingRefused("the pool needs a name")
    if Pool.objects.filter(campaign=campaign, name=name).exists():
        raise JudgingRefused(f"campaign '{campaign.slug}' already has a pool named '{name}'")
    spec = machine_pool_spec(
        judge=judge,
        depth=depth,
        rates=rates,
        budget=budget,
        total_budget=total_budget,
        weights=weights,
        seed=seed,
    )
    return job_enqueue(
        kind=MACHINE_POOL_JOB,
        title=f"build pool '{name}' (sampled by {judge.user.username}'s grades) of {campaign.slug}",
        campaign=campaign,
        user=user,
        params={"judge": judge.pk, "name": name, "spec": spec.as_dict()},
    )


@register(MACHINE_POOL_JOB, result_template="pooling/results/pool_build.html")
def machine_pool_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    judge = MachineJudge.objects.select_related("user", "campaign").filter(pk=job.params.get("judge")).first()
    if judge is None:
        raise JudgingRefused("the machine assessor was deleted")
    spec = PoolSpec.from_dict(job.params["spec"])
    progress("reading the machine's grades", 0, 1)
    pool = pool_build(
        campaign=judge.campaign,
        name=job.params["name"],
        spec=spec,
        user=job.created_by,
        progress=progress,
        machine_grades=machine_grades(judge=judge),
    )
    return pool_built(pool=pool)
