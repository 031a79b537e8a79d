"""The highlight box's placeholder suggests words of the topic's own statement that its title does
not already mark, instead of the same "kappa agreement" in every campaign."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from judging.assess.selectors import highlight_example
from tests.judging.assess.fixtures import assign, demo_pool, login


def test_the_example_skips_the_titles_words_their_forms_stopwords_and_short_words() -> None:
    # "pooling" is a form of the title's "pooling"; "how", "does", "the", "of" are stopwords;
    # "bias", "test" are the title's; "depth" and "reusability" are left
    title = "pooling bias test collections"
    description = "How does pooling depth bias the reusability of test collections?"
    assert highlight_example(title, description) == "depth reusability"
    # a word and its plural are one pick; the narrative is read after the description
    assert highlight_example("kappa", "Judges judge", "overlap studies") == "judges overlap"
    assert highlight_example("kappa", "", "") == ""


@pytest.mark.django_db
def test_the_assessor_page_suggests_words_of_the_topic_not_kappa_agreement(
    campaign: Campaign, assessor: Any
) -> None:
    pool = demo_pool(campaign)
    mine = assign(campaign, pool, [assessor], topic="401")["alice"]
    body = login(assessor).get(reverse("judging:assess", args=[mine.pk])).content.decode()
    assert 'placeholder="e.g. depth reusability"' in body  # demo topic 401's description
    assert "kappa agreement" not in body
