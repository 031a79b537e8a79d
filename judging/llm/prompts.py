"""Versioned prompt templates, and how each one's answer lands on a campaign's graded scale.

A version never changes once published: a judgment records the version it was asked with, and the
cache of answers is keyed by it, so editing a prompt means adding a version.

* ``umbrela-1`` (the default) follows the prompt of UMBRELA (Upadhyay et al. 2024), itself built on
  Thomas et al. 2024 ("Large language models can accurately predict searcher preferences"): the
  model is a search quality rater, thinks about the searcher's intent, how well the passage
  matches it (M) and how trustworthy it is (T), and answers ``##final score: N`` on 0-3. The
  words here are ours; the structure and the four score meanings are the paper's.
* ``scale-1`` asks directly on the campaign's own grades, with their labels and descriptions.
* ``basic-1`` is the short zero-shot form: the query, the passage, the 0-3 meanings, one line out.

**Onto the campaign's scale** (0-3 answers): the campaign's grades in ascending order g_0 < … <
g_(m-1) take the answer a to g_i with i = round_half_up(a·(m-1)/3):

=========  ======  ========  ===========  ==============
answer     m = 2   m = 3     m = 4        m = 5
=========  ======  ========  ===========  ==============
0          g_0     g_0       g_0          g_0
1          g_0     g_1       g_1          g_1
2          g_1     g_1       g_2          g_3
3          g_1     g_2       g_3          g_4
=========  ======  ========  ===========  ==============

so a binary campaign reads "2 or 3" as relevant, the usual cut of UMBRELA's scale.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Message = dict[str, str]
Scale = Sequence[tuple[int, str, str]]  # (grade value, label, description), ascending values


@dataclass(frozen=True)
class TopicText:
    """What the judge is told of the topic."""

    number: str
    title: str
    description: str = ""
    narrative: str = ""

    def query(self) -> str:
        return self.title.strip() or self.description.strip()

    def details(self) -> str:
        parts = []
        if self.description.strip() and self.description.strip() != self.query():
            parts.append(f"Description: {self.description.strip()}")
        if self.narrative.strip():
            parts.append(f"What counts as relevant: {self.narrative.strip()}")
        return "\n".join(parts)


def cut(text: str, max_chars: int) -> str:
    """The document text cut to ``max_chars`` characters (at a word boundary when one is near)."""
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    space = head.rfind(" ")
    return (head[:space] if space > max_chars * 0.8 else head) + " …"


UMBRELA_MEANINGS = (
    "0 = the passage has nothing to do with the query\n"
    "1 = the passage seems related to the query but does not answer it\n"
    "2 = the passage has some answer for the query, but it may be unclear or hidden among other "
    "information\n"
    "3 = the passage is dedicated to the query and contains the exact answer"
)


def _umbrela(topic: TopicText, text: str, scale: Scale) -> list[Message]:
    details = topic.details()
    return [
        {
            "role": "system",
            "content": "You are a search quality rater judging how relevant a passage is to a search query.",
        },
        {
            "role": "user",
            "content": (
                "Given a query and a passage, give the passage a score on an integer scale of 0 to 3:\n"
                f"{UMBRELA_MEANINGS}\n"
                "Use 1 when the passage is only partly about the topic, 2 when it says something important "
                "about the whole topic along with other material, 3 when it is entirely about the topic. "
                "If none of these fits, use 0.\n\n"
                f"Query: {topic.query()}\n" + (f"{details}\n" if details else "") + f"Passage: {text}\n\n"
                "Work through it in steps, silently:\n"
                "1. Consider what the searcher most likely wants.\n"
                "2. Judge how well the passage matches that intent (M).\n"
                "3. Judge how trustworthy the passage is (T).\n"
                "4. Weigh M and T and decide the final score (O), an integer.\n"
                "Answer with one line, exactly in the form: ##final score: N"
            ),
        },
    ]


def _basic(topic: TopicText, text: str, scale: Scale) -> list[Message]:
    return [
        {
            "role": "user",
            "content": (
                f"Query: {topic.query()}\nPassage: {text}\n\n"
                f"How relevant is the passage to the query?\n{UMBRELA_MEANINGS}\n"
                "Answer with one line: ##final score: N"
            ),
        }
    ]


def _scale(topic: TopicText, text: str, scale: Scale) -> list[Message]:
    levels = "\n".join(f"{v} = {label}" + (f": {desc}" if desc else "") for v, label, desc in scale)
    details = topic.details()
    return [
        {
            "role": "system",
            "content": "You are an assessor judging documents for a test collection.",
        },
        {
            "role": "user",
            "content": (
                f"Topic: {topic.query()}\n" + (f"{details}\n" if details else "") + f"\nDocument: {text}\n\n"
                f"Judge the document against the topic on this scale:\n{levels}\n"
                "Answer with one line, exactly in the form: ##final score: N"
            ),
        },
    ]


def spread(answer: int, top: int, scale: Scale) -> int:
    """The campaign grade for ``answer`` on a 0..``top`` scale (the table in this module's doc)."""
    m = len(scale)
    i = (2 * answer * (m - 1) + top) // (2 * top)  # round half up of answer * (m - 1) / top
    return scale[i][0]


@dataclass(frozen=True)
class Prompt:
    version: str
    summary: str
    render: Callable[[TopicText, str, Scale], list[Message]]
    own_scale: bool  # answers are the campaign's grade values rather than 0-3

    def answers(self, scale: Scale) -> tuple[int, ...]:
        """The answers the prompt allows."""
        return tuple(v for v, _, _ in scale) if self.own_scale else (0, 1, 2, 3)

    def to_grade(self, answer: int, scale: Scale) -> int:
        """The campaign grade of an allowed ``answer``."""
        return answer if self.own_scale else spread(answer, 3, scale)

    def messages(self, topic: TopicText, text: str, scale: Scale, max_chars: int) -> list[Message]:
        return self.render(topic, cut(text, max_chars), scale)


PROMPTS: dict[str, Prompt] = {
    p.version: p
    for p in (
        Prompt(
            "umbrela-1",
            "UMBRELA (Upadhyay et al. 2024): intent, match M, trust T, score 0-3",
            _umbrela,
            False,
        ),
        Prompt("scale-1", "the campaign's own grades with their labels and descriptions", _scale, True),
        Prompt("basic-1", "query, passage and the four 0-3 meanings; no steps", _basic, False),
    )
}
DEFAULT_PROMPT_VERSION = "umbrela-1"


def prompt_hash(messages: list[Message]) -> str:
    """A stable fingerprint of the rendered prompt (the request's messages)."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
