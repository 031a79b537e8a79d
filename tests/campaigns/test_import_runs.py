"""Importing runs: ``runs_import`` / ``run_import`` and ``manage.py import_runs``, on either database."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from campaigns.errors import ImportRefused
from campaigns.models import Campaign, Group, Run, RunArrays, Topic
from campaigns.selectors import run_ranking, runs_check
from campaigns.services import run_import, runs_import
from campaigns.stored_runs import run_lines
from campaigns.validation import Code
from trec import read_run

pytestmark = pytest.mark.django_db

GOOD = """\
51 Q0 d1 1 0.5 bm25
51 Q0 long-docno-7 2 0.5 bm25
51 Q0 d3 3 0.1 bm25
52 Q0 d1 1 2.0 bm25
"""


@pytest.fixture
def campaign() -> Campaign:
    campaign = Campaign.objects.create(slug="c", name="C")
    Topic.objects.bulk_create(
        Topic(campaign=campaign, number=n, title=f"topic {n}") for n in ("51", "52", "53")
    )
    return campaign


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    return folder


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def lines_of(run: Run) -> list[tuple[str, int, str, float]]:
    """The run's stored lines as (topic, rank, docno, score), read from its block."""
    numbers = dict(Topic.objects.values_list("id", "number"))
    stored = run_lines(run.pk)
    topics = np.repeat(stored.topic_ids, stored.counts).tolist()
    starts = np.repeat(np.cumsum(stored.counts) - stored.counts, stored.counts)
    ranks = (np.arange(len(topics)) - starts + 1).tolist()
    lines = zip(topics, ranks, stored.docnos.tolist(), stored.scores.tolist(), strict=True)
    return sorted((numbers[t], r, d.decode(), s) for t, r, d, s in lines)


def snapshot() -> tuple[list[tuple[object, ...]], ...]:
    """Every row of the campaign tables, to show that a refused import changed nothing."""
    return (
        sorted(Run.objects.values_list("id", "tag", "group_id", "priority", "document_count")),
        sorted(Group.objects.values_list("id", "name")),
        sorted((r, bytes(d)) for r, d in RunArrays.objects.values_list("run_id", "data")),
    )


def test_a_run_is_stored_at_its_canonical_ranks(campaign: Campaign, runs_dir: Path) -> None:
    run = run_import(campaign=campaign, path=write(runs_dir, "bm25.run", GOOD), group="uni")
    assert (run.tag, run.original_filename, run.topic_count, run.document_count) == ("bm25", "bm25.run", 2, 4)
    assert (run.group.name if run.group else None, run.priority) == ("uni", 1)
    # the tie at 0.5 is broken by docno descending (strcmp): 'long-docno-7' > 'd1'
    assert lines_of(run) == [
        ("51", 1, "long-docno-7", 0.5),
        ("51", 2, "d1", 0.5),
        ("51", 3, "d3", 0.1),
        ("52", 1, "d1", 2.0),
    ]


def test_stored_runs_read_back_exactly_as_the_file_reads(campaign: Campaign, runs_dir: Path) -> None:
    rng = np.random.default_rng(5)
    # scores that only a double holds (float32 would merge them), docnos of mixed lengths and scripts
    docnos = [f"doc-{i}" + "x" * int(rng.integers(0, 5)) for i in range(300)] + ["été", "文書"]
    lines = []
    for topic in ("51", "53"):
        for rank, d in enumerate(rng.permutation(docnos).tolist(), start=1):
            lines.append(f"{topic} Q0 {d} {rank} {float(rng.random()) + 1e-12 * rank!r} exact")
    path = write(runs_dir, "exact.run", "\n".join(lines) + "\n")
    run = run_import(campaign=campaign, path=path)
    loaded, expected = run_ranking(run=run), read_run(path)
    assert loaded.topics == expected.topics == ("51", "53")
    assert np.array_equal(loaded.offsets, expected.offsets)
    assert loaded.docnos.tolist() == expected.docnos.tolist()
    assert loaded.scores.tolist() == expected.scores.tolist()  # bit for bit
    top = run_ranking(run=run, depth=10)
    assert top.ranking("53") == expected.ranking("53")[:10]


def test_a_refused_run_leaves_everything_stored_untouched(campaign: Campaign, runs_dir: Path) -> None:
    run_import(campaign=campaign, path=write(runs_dir, "first.run", GOOD), group="uni")
    before = snapshot()
    bad = write(runs_dir, "bad.run", "51 Q0 d1 1 1.0 other\n51 Q0 d1 2 nan other\n")
    with pytest.raises(ImportRefused) as exc:
        run_import(campaign=campaign, path=bad, group="new-group")
    assert snapshot() == before
    [report] = exc.value.reports
    assert [(f.code, f.line) for f in report.errors] == [(Code.NAN_SCORE, 2), (Code.DUPLICATE_DOCNO, 2)]
    assert any(line.startswith(f"{bad}:2: error: ") for line in exc.value.problems)


def test_one_bad_file_refuses_the_whole_batch_and_every_file_is_reported(
    campaign: Campaign, runs_dir: Path
) -> None:
    before = snapshot()
    paths = [
        write(runs_dir, "a.run", GOOD.replace("bm25", "a")),
        write(runs_dir, "b.run", "051 Q0 d1 1 1.0 b\n"),  # zero-padded topic
        write(runs_dir, "c.run", GOOD.replace("bm25", "c")),
        write(runs_dir, "d.run", "99 Q0 d1 1 1.0 d\n"),  # unknown topic
    ]
    with pytest.raises(ImportRefused) as exc:
        runs_import(campaign=campaign, paths=paths)
    assert snapshot() == before
    assert [r.ok for r in exc.value.reports] == [True, False, True, False]
    assert [(f.code, f.line) for f in exc.value.reports[1].errors] == [(Code.ZERO_PADDED_TOPIC, 1)]
    assert [(f.code, f.line) for f in exc.value.reports[3].errors] == [(Code.UNKNOWN_TOPIC, 1)]


def test_tags_must_be_new_to_the_campaign_and_to_the_batch(campaign: Campaign, runs_dir: Path) -> None:
    run_import(campaign=campaign, path=write(runs_dir, "bm25.run", GOOD))
    with pytest.raises(ImportRefused) as exc:
        run_import(campaign=campaign, path=write(runs_dir, "again.run", GOOD))
    assert "tag 'bm25' is already the tag of a run in campaign 'c'" in exc.value.reports[0].errors[0].message
    twins = [
        write(runs_dir, "x1.run", GOOD.replace("bm25", "x")),
        write(runs_dir, "x2.run", GOOD.replace("bm25", "x")),
    ]
    with pytest.raises(ImportRefused) as exc:
        runs_import(campaign=campaign, paths=twins)
    assert [r.ok for r in exc.value.reports] == [True, False]
    [clash] = exc.value.reports[1].errors
    assert (clash.code, clash.line, clash.message) == (Code.TAG_TAKEN, 1, "tag 'x' is also the tag of x1.run")
    assert list(Run.objects.values_list("tag", flat=True)) == ["bm25"]


def test_runs_need_the_campaigns_topics_first(runs_dir: Path) -> None:
    empty = Campaign.objects.create(slug="empty", name="Empty")
    with pytest.raises(ImportRefused, match="has no topics yet"):
        run_import(campaign=empty, path=write(runs_dir, "bm25.run", GOOD))


def test_the_document_limit_is_the_campaigns_unless_overridden(campaign: Campaign, runs_dir: Path) -> None:
    campaign.max_docs_per_topic = 2
    campaign.save()
    path = write(runs_dir, "bm25.run", GOOD)  # topic 51 has 3 documents
    with pytest.raises(ImportRefused) as exc:
        run_import(campaign=campaign, path=path)
    assert [(f.code, f.line) for f in exc.value.reports[0].errors] == [(Code.TOO_MANY_DOCS, 3)]
    assert run_import(campaign=campaign, path=path, max_docs=3).document_count == 4


def test_priorities_count_up_within_a_group(campaign: Campaign, runs_dir: Path) -> None:
    paths = [write(runs_dir, f"{t}.run", GOOD.replace("bm25", t)) for t in ("p", "q")]
    runs_import(campaign=campaign, paths=paths, group="team")
    run_import(campaign=campaign, path=write(runs_dir, "r.run", GOOD.replace("bm25", "r")), group="team")
    run_import(campaign=campaign, path=write(runs_dir, "s.run", GOOD.replace("bm25", "s")), group="solo")
    priorities = Run.objects.order_by("tag").values_list("tag", "group__name", "priority")
    assert list(priorities) == [("p", "team", 1), ("q", "team", 2), ("r", "team", 3), ("s", "solo", 1)]
    before = snapshot()
    with pytest.raises(ImportRefused, match="already has runs at those priorities: q \\(2\\)"):
        run_import(
            campaign=campaign,
            path=write(runs_dir, "t.run", GOOD.replace("bm25", "t")),
            group="team",
            priority=2,
        )
    assert snapshot() == before


def test_warnings_are_kept_with_the_run(campaign: Campaign, runs_dir: Path) -> None:
    # topic 53 is missing and the rank column contradicts the scores: warnings, stored, not blocking
    path = write(runs_dir, "w.run", "51 Q0 d1 1 1.0 w\n51 Q0 d2 2 3.0 w\n52 Q0 d1 1 1.0 w\n")
    run = run_import(campaign=campaign, path=path)
    assert [w.rsplit("[", 1)[1] for w in run.warnings] == [
        f"{Code.MISSING_TOPICS}]",
        f"{Code.RANK_CONTRADICTS_SCORE}]",
    ]
    assert run.warnings[1].startswith(f"{path}:1: warning: rank 1 with score 1.0")


def test_submission_details_are_recorded(campaign: Campaign, runs_dir: Path) -> None:
    when = timezone.now() - timedelta(days=3)
    path = write(runs_dir, "tmp123.run", GOOD)
    run = run_import(campaign=campaign, path=path, submitted_at=when, filename="bm25-final.txt")
    assert (run.submitted_at, run.original_filename) == (when, "bm25-final.txt")


def test_progress_reaches_the_total(campaign: Campaign, runs_dir: Path) -> None:
    paths = [write(runs_dir, f"{t}.run", GOOD.replace("bm25", t)) for t in ("a", "b", "c")]
    calls: list[tuple[str, int, int]] = []
    runs_import(
        campaign=campaign, paths=paths, progress=lambda phase, done, total: calls.append((phase, done, total))
    )
    assert calls == [("importing runs", done, 3) for done in (1, 2, 3)]


def test_the_validation_report_is_available_without_importing(campaign: Campaign, runs_dir: Path) -> None:
    run_import(campaign=campaign, path=write(runs_dir, "bm25.run", GOOD))
    before = snapshot()
    reports = runs_check(
        campaign=campaign,
        paths=[write(runs_dir, "new.run", GOOD.replace("bm25", "new")), write(runs_dir, "old.run", GOOD)],
    )
    assert [[f.code for f in r.errors] for r in reports] == [[], [Code.TAG_TAKEN]]
    assert snapshot() == before


def test_import_runs_command_stores_the_runs(campaign: Campaign, runs_dir: Path) -> None:
    paths = [str(write(runs_dir, f"{t}.run", GOOD.replace("bm25", t))) for t in ("a", "b")]
    out, err = io.StringIO(), io.StringIO()
    call_command("import_runs", "c", *paths, "--group", "team", "--progress", "on", stdout=out, stderr=err)
    assert "2 runs imported (8 ranked documents)" in out.getvalue()
    assert "importing runs [" in err.getvalue()  # the bar, forced on though stderr is no terminal
    assert sorted(Run.objects.values_list("tag", "priority")) == [("a", 1), ("b", 2)]


def test_import_runs_command_exits_2_with_the_report(campaign: Campaign, runs_dir: Path) -> None:
    good = write(runs_dir, "good.run", GOOD)
    bad = write(runs_dir, "bad.run", "51 Q0 d1 1 1.0 x\n51 Q0 d2 2 inf x\n52 Q0 d3 3 1.0 y\n")
    err = io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("import_runs", "c", str(good), str(bad), "--max-docs", "5", stderr=err)
    assert exc.value.returncode == 2
    report = err.getvalue().splitlines()
    assert f"{bad}:2: error: score 'inf' is infinite [{Code.INFINITE_SCORE}]" in report
    assert any(line.startswith(f"{bad}:3: error: tag 'y' differs") for line in report)
    assert not Run.objects.exists()


# ------------------------------------------------------------------------------- the stored block


def test_each_run_is_stored_as_one_block_and_nothing_else(campaign: Campaign, runs_dir: Path) -> None:
    from django.db import connection

    runs = runs_import(
        campaign=campaign,
        paths=[write(runs_dir, f"{t}.run", GOOD.replace("bm25", t)) for t in ("a", "b")],
    ).runs
    assert sorted(RunArrays.objects.values_list("run_id", flat=True)) == sorted(r.pk for r in runs)
    # the line rows of earlier versions are gone from the schema (campaigns 0006)
    assert "pooling_rundocument" not in connection.introspection.table_names()
    assert lines_of(runs[1]) == [
        ("51", 1, "long-docno-7", 0.5),
        ("51", 2, "d1", 0.5),
        ("51", 3, "d3", 0.1),
        ("52", 1, "d1", 2.0),
    ]


def test_a_run_without_a_block_reads_as_no_lines(campaign: Campaign) -> None:
    """Only code outside the import creates such a run (a fixture, the admin): it ranks nothing."""
    run = Run.objects.create(campaign=campaign, tag="empty", submitted_at=timezone.now())
    ranking = run_ranking(run=run)
    assert (ranking.topics, len(ranking)) == ((), 0)


def test_blocks_are_read_in_batches_in_the_order_asked(campaign: Campaign, runs_dir: Path) -> None:
    """``run_blocks``: each run's own block, in the order of the pks given (not the database's),
    across batch boundaries, None for a run without one, in one query per batch."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.stored_runs import lines_from_block, run_block, run_blocks

    # each run scores its last line differently, so that every block is its own
    texts = {t: GOOD.replace("bm25", t).replace("2.0", f"{2 + i}.0") for i, t in enumerate("abcde")}
    runs = runs_import(
        campaign=campaign, paths=[write(runs_dir, f"{t}.run", x) for t, x in texts.items()]
    ).runs
    empty = Run.objects.create(campaign=campaign, tag="empty", submitted_at=timezone.now())
    asked = [runs[3].pk, empty.pk, runs[0].pk, runs[4].pk, runs[2].pk, runs[1].pk]
    with CaptureQueriesContext(connection) as queries:
        got = list(run_blocks(asked, batch=4))
    expected = [run_block(pk) for pk in asked]
    assert got == expected
    assert expected[1] is None and len({b for b in expected if b is not None}) == 5
    if connection.vendor == "sqlite":  # PostgreSQL's blocks go through psycopg's own cursor
        assert len(queries) == 2
    assert lines_from_block(got[0]).scores.tolist() == [0.5, 0.5, 0.1, 5.0]  # run d's


def test_a_deleted_topic_leaves_the_runs_arrays_too(campaign: Campaign, runs_dir: Path) -> None:
    run = run_import(campaign=campaign, path=write(runs_dir, "a.run", GOOD))
    Topic.objects.filter(campaign=campaign, number="52").delete()
    ranking = run_ranking(run=run)
    assert ranking.topics == ("51",)
    assert len(ranking) == 3


def test_a_docno_twice_in_a_topic_is_refused_before_anything_is_written(
    campaign: Campaign, runs_dir: Path
) -> None:
    """Validation is what keeps a docno once per (run, topic) in the stored block."""
    before = snapshot()
    with pytest.raises(ImportRefused) as refused:
        run_import(campaign=campaign, path=write(runs_dir, "dup.run", GOOD + "52 Q0 d1 2 1.0 bm25\n"))
    problems = "\n".join(line for r in refused.value.reports for line in r.render())
    assert "dup.run:5: error: docno 'd1' is listed again" in problems
    assert snapshot() == before


def test_a_block_is_read_in_place_and_any_other_archive_through_numpy() -> None:
    """Blocks written by ``arrays_blob`` are viewed where they lie in the decompressed buffer; a
    compressed or foreign .npz falls back to ``np.load`` with the same arrays."""
    import io

    import numpy as np

    from campaigns.stored_runs import _npz_views, arrays_blob, lines_from_block

    topic_ids, counts = np.array([3, 7]), np.array([2, 1])
    docnos, scores = np.array([b"d-1", b"d-22", b"x"]), np.array([0.1 + 0.2, -1e-300, 5.0])
    lines = lines_from_block(arrays_blob(topic_ids, counts, docnos, scores))
    for got, want in ((lines.topic_ids, topic_ids), (lines.counts, counts), (lines.docnos, docnos)):
        assert got.tolist() == want.tolist()
    assert lines.scores.tobytes() == scores.tobytes()  # bit for bit
    top = lines_from_block(arrays_blob(topic_ids, counts, docnos, scores), depth=1)
    assert top.docnos.tolist() == [b"d-1", b"x"] and top.counts.tolist() == [1, 1]
    packed = io.BytesIO()
    np.savez_compressed(packed, topic_ids=topic_ids, counts=counts, docnos=docnos, scores=scores)
    assert _npz_views(packed.getvalue()) is None  # deflated members: not viewable in place
    other = lines_from_block(packed.getvalue())
    assert other.docnos.tolist() == docnos.tolist() and other.scores.tobytes() == scores.tobytes()


def test_the_short_header_reading_equals_numpys_and_leaves_other_headers_to_it() -> None:
    """Headers np.savez writes for 1-d arrays are read by a pattern; every other header (2-d,
    big-endian, Fortran order...) still through np.lib.format, with the same arrays either way."""
    import io

    import numpy as np

    from campaigns.stored_runs import _SIMPLE_HEADER, _npz_views

    def npy(arr: np.ndarray) -> bytes:
        out = io.BytesIO()
        np.save(out, arr)
        return out.getvalue()

    for arr in (np.arange(7), np.array([b"d1", b"doc-22"]), np.array([0.5, -0.0]), np.zeros(0, "S1")):
        found = _SIMPLE_HEADER.match(npy(arr))
        assert found is not None and len(found[0]) == 10 + int.from_bytes(found[1], "little")
    for arr in (np.arange(6).reshape(2, 3), np.arange(3, dtype=">i8"), np.asfortranarray(np.ones((2, 2)))):
        found = _SIMPLE_HEADER.match(npy(arr))
        assert found is None or found[2].startswith(b">"), arr  # not the 1-d little-endian pattern
    arrays = {
        "topic_ids": np.array([4, 9], dtype=">i8"),  # big-endian: numpy's own reader
        "counts": np.array([1, 1]),
        "docnos": np.array([b"a", b"bb"]),
        "scores": np.array([1.25, 0.1 + 0.2]),
    }
    archive = io.BytesIO()
    np.savez(archive, **arrays)  # type: ignore[arg-type]  # numpy's stub types allow_pickle here
    views = _npz_views(archive.getvalue())
    assert views is not None
    for name, want in arrays.items():
        assert views[name].dtype == want.dtype and views[name].tobytes() == want.tobytes(), name
