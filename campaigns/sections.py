"""Sections that the apps above the kernel add to a campaign's overview page and API answer.

The kernel knows campaigns, not pools or evaluations: each app registers what it shows about a
campaign (in its ``AppConfig.ready``), so the overview grows without the kernel importing upwards.
"""

from __future__ import annotations

from collections.abc import Callable
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
