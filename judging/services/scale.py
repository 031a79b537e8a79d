"""Writes of the campaign's graded scale, and the check every saved grade passes."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.cache import cache
from django.db import transaction

from campaigns.models import Campaign
from judging.errors import JudgingRefused
from judging.models import Adjudication, Grade, Judgment
from judging.selectors import DEFAULT_SCALE, default_grades

# other processes may accept a grade the scale just dropped for this long (scale_set refuses to drop
# grades already in use, so at worst a judgment lands on a value about to be re-added or refused)
SCALE_CACHE_SECONDS = 10


def scale_ensure(*, campaign: Campaign) -> list[Grade]:
    """The campaign's grades, lowest first; the default 0-2 scale is stored when it has none."""
    grades = list(Grade.objects.filter(campaign=campaign).order_by("value"))
    if grades:
        return grades
    # insert only, never replace: an organizer saving a scale at this moment must win
    Grade.objects.bulk_create(default_grades(campaign=campaign), ignore_conflicts=True)
    return list(Grade.objects.filter(campaign=campaign).order_by("value"))


@transaction.atomic
def scale_set(
    *, campaign: Campaign, levels: Sequence[tuple[int, str, str]], keys: Sequence[str] = ()
) -> list[Grade]:
    """Replace the scale: ``levels`` are (value, label, description); keys default to the values' digits.

    Refused when a stored judgment or decision uses a value the new scale drops.
    """
    values = [int(v) for v, _, _ in levels]
    if not levels:
        raise JudgingRefused("a scale needs at least one grade")
    if len(set(values)) != len(values) or min(values) < 0:
        raise JudgingRefused("grade values are distinct whole numbers of 0 or more")
    chosen = list(keys) or [str(v) if 0 <= v <= 9 else "" for v in values]
    if len(chosen) != len(values) or any(len(k) != 1 for k in chosen) or len(set(chosen)) != len(chosen):
        raise JudgingRefused("each grade needs its own one-character key (grades above 9 need keys given)")
    graded = Judgment.objects.filter(campaign=campaign, grade__isnull=False).values_list("grade", flat=True)
    used = {int(g) for g in graded if g is not None}
    used |= set(Adjudication.objects.filter(campaign=campaign).values_list("grade", flat=True))
    dropped = sorted(used - set(values))
    if dropped:
        raise JudgingRefused(f"grades {dropped} are already used by judgments: keep them in the scale")
    Grade.objects.filter(campaign=campaign).delete()
    transaction.on_commit(lambda: cache.delete(f"judging:scale:{campaign.pk}"))
    return Grade.objects.bulk_create(
        Grade(campaign=campaign, value=v, label=label[:60], description=desc[:300], key=key)
        for (v, label, desc), key in zip(levels, chosen, strict=True)
    )


def scale_values(*, campaign_id: int) -> frozenset[int]:
    """The scale's values, read (never created: no write races on the hot path of a save) and kept
    for a few seconds in this process's cache, since every save checks its grade against them."""
    key = f"judging:scale:{campaign_id}"
    values = cache.get(key)
    if values is None:
        stored = Grade.objects.filter(campaign_id=campaign_id).values_list("value", flat=True)
        values = frozenset(stored) or frozenset(v for v, _, _ in DEFAULT_SCALE)
        cache.set(key, values, SCALE_CACHE_SECONDS)
    return frozenset(values)


def grade_check(*, campaign: Campaign, grade: int | None, cant_judge: bool) -> None:
    """A grade on the scale, or "can't judge" with no grade: the database's check, with reasons.

    A grade sent together with "can't judge" is refused, never silently dropped, whichever edge
    (page, API, command) it came through.
    """
    if cant_judge:
        if grade is not None:
            raise JudgingRefused("a document the assessor cannot judge has no grade")
        return
    if grade is None:
        raise JudgingRefused("a judgment needs a grade (or 'can't judge')")
    values = scale_values(campaign_id=campaign.pk)
    if grade not in values:
        raise JudgingRefused(
            f"grade {grade} is not on the campaign's scale ({', '.join(map(str, sorted(values)))})"
        )
