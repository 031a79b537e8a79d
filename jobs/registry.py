"""Kinds of background job: a function each, registered by the app that owns the work."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from jobs.models import Job
from trec.progress import ProgressCallback


@dataclass(frozen=True)
class Split:
    """What a job function returns to share its work among workers: one task per part.

    Each part is a job of kind ``part`` (with its own parameters, progress and worker); when every
    part is done, a last job of kind ``then`` runs (it reads the parts' results with
    :func:`jobs.selectors.job_parts`), and its outcome is the job's. A part that fails fails the job.
    """

    part: str
    params: Sequence[Mapping[str, Any]]
    then: str


JobFunction = Callable[[Job, ProgressCallback], dict[str, Any] | Split]


@dataclass(frozen=True)
class JobKind:
    name: str
    run: JobFunction
    # the template that renders the job's result on its page (context: job, result)
    result_template: str = ""
    # the campaign roles that may read the job (its progress and result), checked on every read
    readers: tuple[str, ...] = ("organizer",)
    # what an interrupted job of this kind kept, said after "interrupted: …;" (None: nothing)
    interrupted: Callable[[Job], str] | None = None


_kinds: dict[str, JobKind] = {}
# the module whose import registers each kind, declared by its app and imported when that kind is
# first looked up: a process imports the job code it runs and no other (a management command or a
# web process that runs none imports none; about 25 ms of a Django start-up: docs/speed.md)
_declared: dict[str, str] = {}  # written by the apps' ready(), before any lookup, like _kinds


def register_module(path: str, *kinds: str) -> None:
    """Declare that importing the module ``path`` registers ``kinds`` (with :func:`register`); it
    is imported the first time :func:`kind` is asked for one of them."""
    for name in kinds:
        _declared[name] = path


def declared() -> dict[str, str]:
    """Each declared kind and the module that registers it."""
    return dict(_declared)


def register(
    name: str,
    *,
    result_template: str = "",
    readers: tuple[str, ...] = ("organizer",),
    interrupted: Callable[[Job], str] | None = None,
) -> Callable[[JobFunction], JobFunction]:
    """Declare a job kind: ``run(job, progress)`` does the work and returns a JSON-able result
    (or a :class:`Split` of the work into parts that workers share).

    A domain error it raises (an exception with a ``problems`` list, like
    :class:`campaigns.errors.CampaignDataError`) fails the job with those lines shown to the user.
    ``interrupted(job)`` says what a job of the kind kept when its worker stopped mid-way (a kind
    whose work is stored as it goes); without it, the interrupted job kept nothing.
    """

    def decorate(fn: JobFunction) -> JobFunction:
        _kinds[name] = JobKind(name, fn, result_template, readers, interrupted)
        return fn

    return decorate


def kind(name: str) -> JobKind:
    if name not in _kinds and name in _declared:
        import_module(_declared[name])  # thread-safe: Python's import lock
    try:
        return _kinds[name]
    except KeyError:
        raise KeyError(f"unknown job kind '{name}'") from None
