"""Sections that the apps above the kernel add to a campaign's overview page and API answer.

The kernel knows campaigns, not pools or evaluations: each app registers what it shows about a
campaign (in its ``AppConfig.ready``), so the overview grows without the kernel importing upwards.
Likewise the steps of the overview's guided workflow (topics, runs, ..., evaluation): each app
registers its own with a function telling the step's state and the next action; the kernel orders
and renders them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.models import Campaign


@dataclass(frozen=True)
class Section:
    key: str
    # the template the overview page includes; its context is the page's plus ``context(campaign)``
    template: str
    context: Callable[[Campaign], dict[str, Any]]
    # the value under ``key`` in ``GET /api/campaigns/<slug>/``; None leaves the API answer alone
    json: Callable[[Campaign], Any] | None = None
    order: int = 100


_sections: dict[str, Section] = {}


def section_register(section: Section) -> None:
    _sections[section.key] = section


def campaign_sections(campaign: Campaign) -> list[tuple[Section, dict[str, Any]]]:
    """Every registered section in display order, with its context for ``campaign``."""
    ordered = sorted(_sections.values(), key=lambda s: (s.order, s.key))
    return [(s, s.context(campaign)) for s in ordered]


def campaign_sections_json(campaign: Campaign) -> dict[str, Any]:
    return {s.key: s.json(campaign) for s in _sections.values() if s.json is not None}


# ------------------------------------------------------------------------------ the guided steps


@dataclass(frozen=True)
class StepLink:
    label: str
    url: str


@dataclass(frozen=True)
class StepState:
    """Where one step of a campaign stands, and what the organizer does next about it."""

    # one of STEP_STATES
    state: str
    # the counts behind the state, in a few words ("3 of 5 topics assigned")
    summary: str
    # the next action (label and page); on a done step, what can still be done there
    action: StepLink | None = None
    # results the step produced (a job's report, an evaluation), listed under it
    results: tuple[StepLink, ...] = ()


STEP_STATES = ("not started", "in progress", "done")


@dataclass(frozen=True)
class Step:
    """One step of a campaign's guided workflow, registered by the app it belongs to."""

    key: str
    title: str
    order: int
    state: Callable[[Campaign], StepState]
    # one sentence on what the step is for, shown under its title
    help: str = ""
    # a step the campaign may skip: never offered as "next" (documents, agreement)
    optional: bool = False


_steps: dict[str, Step] = {}


def step_register(step: Step) -> None:
    _steps[step.key] = step


def campaign_steps(campaign: Campaign, extra: Sequence[Step] = ()) -> list[tuple[Step, StepState]]:
    """The registered steps and ``extra`` (the kernel's own) in workflow order, each with its state."""
    ordered = sorted([*_steps.values(), *extra], key=lambda s: (s.order, s.key))
    return [(s, s.state(campaign)) for s in ordered]
