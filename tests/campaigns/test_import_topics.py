"""Importing topics: ``topics_import`` and ``manage.py import_topics``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from campaigns.errors import ImportRefused
from campaigns.models import Campaign, Topic
from campaigns.services import topics_import

pytestmark = pytest.mark.django_db

TREC_TOPICS = """\
<top>
<num> Number: 051
<title> Airbus Subsidies
<desc> Description:
Document will discuss government assistance to Airbus.
<narr> Narrative:
A relevant document will cite or discuss assistance.
</top>

<top>
<num> Number: 52
<title> South African Sanctions
</top>
"""


@pytest.fixture
def campaign() -> Campaign:
    return Campaign.objects.create(slug="trec1", name="TREC-1")


def stored(campaign: Campaign) -> list[tuple[str, str, str, str]]:
    return list(
        Topic.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("number", "title", "description", "narrative")
    )


def test_trec_topics_keep_their_numbers_as_written(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "topics.txt").write_text(TREC_TOPICS)
    result = topics_import(campaign=campaign, path=tmp_path / "topics.txt")
    assert (result.created, result.updated, result.unchanged) == (2, 0, 0)
    assert stored(campaign) == [
        (
            "051",
            "Airbus Subsidies",
            "Document will discuss government assistance to Airbus.",
            "A relevant document will cite or discuss assistance.",
        ),
        ("52", "South African Sanctions", "", ""),
    ]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("t.tsv", "051\tAirbus Subsidies\tgovernment help\n52\tSanctions\n"),
        (
            "t.jsonl",
            '{"qid": "051", "title": "Airbus Subsidies", "description": "government help"}\n'
            '{"qid": "52", "title": "Sanctions"}\n',
        ),
    ],
)
def test_tsv_and_jsonl_topics(tmp_path: Path, campaign: Campaign, name: str, content: str) -> None:
    (tmp_path / name).write_text(content)
    topics_import(campaign=campaign, path=tmp_path / name)
    assert stored(campaign) == [
        ("051", "Airbus Subsidies", "government help", ""),
        ("52", "Sanctions", "", ""),
    ]


def test_a_second_import_updates_changed_texts_and_removes_nothing(
    tmp_path: Path, campaign: Campaign
) -> None:
    (tmp_path / "a.tsv").write_text("1\tfirst\n2\tsecond\n3\tthird\n")
    (tmp_path / "b.tsv").write_text("2\tsecond\n3\tthird, revised\n4\tfourth\n")
    topics_import(campaign=campaign, path=tmp_path / "a.tsv")
    result = topics_import(campaign=campaign, path=tmp_path / "b.tsv")
    assert (result.created, result.updated, result.unchanged) == (1, 1, 1)
    assert [(n, t) for n, t, _, _ in stored(campaign)] == [
        ("1", "first"),
        ("2", "second"),
        ("3", "third, revised"),
        ("4", "fourth"),
    ]


def test_a_bad_file_is_refused_and_leaves_the_topics_as_they_were(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "a.tsv").write_text("1\tfirst\n")
    topics_import(campaign=campaign, path=tmp_path / "a.tsv")
    (tmp_path / "bad.tsv").write_text("1\tchanged\n2\tnew\nno title here\n")
    with pytest.raises(ImportRefused) as exc:
        topics_import(campaign=campaign, path=tmp_path / "bad.tsv")
    assert exc.value.problems[0].startswith(f"{tmp_path / 'bad.tsv'}:3: ")
    assert stored(campaign) == [("1", "first", "", "")]


def test_a_topic_defined_twice_is_refused(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "dup.tsv").write_text("1\tfirst\n1\tagain\n")
    with pytest.raises(ImportRefused, match="defined twice"):
        topics_import(campaign=campaign, path=tmp_path / "dup.tsv")
    assert stored(campaign) == []


def test_topic_ids_no_run_could_name_are_refused(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "t.jsonl").write_text(
        '{"qid": "4 01", "title": "spaced"}\n{"qid": "' + "9" * 65 + '", "title": "long"}\n'
    )
    with pytest.raises(ImportRefused) as exc:
        topics_import(campaign=campaign, path=tmp_path / "t.jsonl")
    assert [p.split(": ", 1)[1] for p in exc.value.problems] == [
        f"topic id '{'9' * 60}' is longer than 64 characters",
        "topic id '4 01' contains whitespace",
    ]
    assert stored(campaign) == []


def test_import_topics_command_creates_the_campaign_when_asked(tmp_path: Path) -> None:
    (tmp_path / "topics.txt").write_text(TREC_TOPICS)
    out = io.StringIO()
    call_command("import_topics", "new-campaign", str(tmp_path / "topics.txt"), "--create", stdout=out)
    assert "2 topics created" in out.getvalue()
    assert Campaign.objects.get(slug="new-campaign").topics.count() == 2


def test_import_topics_command_exits_2_for_an_unknown_campaign(tmp_path: Path) -> None:
    (tmp_path / "topics.txt").write_text(TREC_TOPICS)
    err = io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("import_topics", "nowhere", str(tmp_path / "topics.txt"), stderr=err)
    assert exc.value.returncode == 2
    assert "no campaign 'nowhere'" in err.getvalue()


def test_a_refused_import_with_create_leaves_no_campaign_behind(tmp_path: Path) -> None:
    (tmp_path / "bad.tsv").write_text("just one column\n")
    err = io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("import_topics", "fresh", str(tmp_path / "bad.tsv"), "--create", stderr=err)
    assert exc.value.returncode == 2
    assert f"{tmp_path / 'bad.tsv'}:1: expected 'qid<TAB>title'" in err.getvalue()
    assert not Campaign.objects.filter(slug="fresh").exists()


def test_topic_ids_that_are_not_plain_tokens_are_refused_with_file_and_line(
    tmp_path: Path, campaign: Campaign
) -> None:
    (tmp_path / "t.tsv").write_text(
        "051\tok\n../../etc\tpath\n# note\n<b>\tmarkup\n..\tdots\nq.1_a-2\tfine\n/etc\troot\n"
        "10.2452/401-AH\tCLEF\n"
    )
    with pytest.raises(ImportRefused) as exc:
        topics_import(campaign=campaign, path=tmp_path / "t.tsv")
    rule = "is not a plain token (letters, digits, '.', '_', '-', ':' and '/' between non-dot parts only)"
    assert exc.value.problems == [
        f"{tmp_path / 't.tsv'}:2: topic id '../../etc' {rule}",
        f"{tmp_path / 't.tsv'}:4: topic id '<b>' {rule}",
        f"{tmp_path / 't.tsv'}:5: topic id '..' {rule}",
        f"{tmp_path / 't.tsv'}:7: topic id '/etc' {rule}",
    ]
    assert stored(campaign) == []


def test_a_refused_topic_id_in_a_trec_file_names_the_line_of_its_block(
    tmp_path: Path, campaign: Campaign
) -> None:
    (tmp_path / "t.trec").write_text(TREC_TOPICS.replace("Number: 52", "Number: 5>2"))
    with pytest.raises(ImportRefused) as exc:
        topics_import(campaign=campaign, path=tmp_path / "t.trec")
    assert exc.value.problems[0].startswith(f"{tmp_path / 't.trec'}:10: topic id '5>2' is not a plain token")


def test_clef_and_ntcir_style_topic_ids_are_kept_whole(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "t.tsv").write_text("10.2452/401-AH\tCLEF\nNTCIR:0001\tNTCIR\n051\tTREC\n")
    topics_import(campaign=campaign, path=tmp_path / "t.tsv")
    assert [row[0] for row in stored(campaign)] == ["051", "10.2452/401-AH", "NTCIR:0001"]


def test_a_second_import_lists_the_topics_whose_text_it_replaced(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "a.tsv").write_text("1\tfirst\n2\tsecond\tabout two\n3\tthird\n")
    (tmp_path / "b.tsv").write_text("3\tthird, revised\n2\tsecond\tabout 2\n1\tfirst\n")
    assert topics_import(campaign=campaign, path=tmp_path / "a.tsv").changed == {}
    result = topics_import(campaign=campaign, path=tmp_path / "b.tsv")
    assert result.changed == {"3": ["title"], "2": ["description"]}
