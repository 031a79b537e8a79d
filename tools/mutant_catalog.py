"""The mutants of ``tools/mutants.py``: realistic small bugs, each with the tests that should catch it.

An entry: a unique id, its area (:data:`AREAS`), the file, an exact snippet found once in it, the
replacement, the pytest selection, and what the bug is. A mutant that cannot change behaviour, or
whose change nothing observable can tell apart, carries ``equivalent="why"`` and is not counted.

To add one: append a ``Mutant(...)`` to its area's list (or a new area's list, added to
:data:`AREAS` and :data:`MUTANTS`), run ``tools/mutants.py --id ID --show`` to see the diff, then
``tools/mutants.py --id ID``. ``tests/test_mutants.py`` checks that every snippet is still found
exactly once, so a snippet that moves with the code fails there first.
"""

from __future__ import annotations

from mutants import Mutant

# Selections shared by an area's mutants (one baseline run each).
MEASURES = (
    "tests/engine/test_worked_examples.py",
    "tests/engine/test_trec_eval_quicktest.py",
    "tests/engine/test_trec_eval_options.py",
    "tests/engine/test_rel_sums.py",
)
POOLING = ("tests/pooling/test_strategies.py", "tests/pooling/test_strategies_sampling.py")
ACCESS = "tests/test_access.py"  # every route by every persona: 4 minutes whole, so -k narrows it
BLIND = ("tests/judging/assess/",)
MACHINE = ("tests/llm/test_core.py", "tests/llm/test_network.py")
CSV = ("tests/test_csv_safety.py",)
MIGRATIONS = ("tests/test_migrations.py",)
JOBS = ("tests/jobs/test_jobs.py",)

# ----------------------------------------------------------------------------------------- measures

measures = [
    Mutant(
        "map-precision-off-by-one",
        "measures",
        "engine/measures/trec_eval.py",
        "prec = ctx.rel_ordinal / ctx.rel_rank",
        "prec = ctx.rel_ordinal / (ctx.rel_rank + 1)",
        MEASURES,
        "AP divides the relevant count at rank k by k + 1 (numpy path)",
    ),
    Mutant(
        "p-at-k-strict-cutoff",
        "measures",
        "engine/measures/trec_eval.py",
        "top = ctx.rel_segment[ctx.rel_rank <= int(k)]",
        "top = ctx.rel_segment[ctx.rel_rank < int(k)]",
        MEASURES,
        "P@k leaves out the document at rank k (numpy path)",
    ),
    Mutant(
        "cutoffs-wrong-constant",
        "measures",
        "engine/measures/base.py",
        "CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)",
        "CUTOFFS = (5, 10, 15, 20, 30, 50, 200, 500, 1000)",
        MEASURES,
        "trec_eval's P/ndcg_cut cutoffs lose 100 and gain 50",
    ),
    Mutant(
        "rprec-index-off-by-one",
        "measures",
        "engine/measures/trec_eval.py",
        "idx = np.minimum(ctx.offsets[:-1] + R, ctx.offsets[1:]) - 1",
        "idx = np.minimum(ctx.offsets[:-1] + R, ctx.offsets[1:] - 1)",
        MEASURES,
        "Rprec reads the relevant count at rank R + 1 (numpy path)",
    ),
    Mutant(
        "dcg-natural-log",
        "measures",
        "engine/measures/trec_eval.py",
        "terms = ctx.rel[pos].astype(np.float64) / np.log2(rank + 1.0)",
        "terms = ctx.rel[pos].astype(np.float64) / np.log(rank + 1.0)",
        MEASURES,
        "ndcg's discount is ln(rank + 1), not log2 (numpy path)",
    ),
    Mutant(
        "ideal-dcg-discount-from-rank-0",
        "measures",
        "engine/measures/trec_eval.py",
        "np.log2(np.arange(2, len(g) + 2, dtype=np.float64))",
        "np.log2(np.arange(1, len(g) + 1, dtype=np.float64) + 0.5)",
        MEASURES,
        "the ideal DCG discounts rank i by log2(i + 0.5)",
    ),
    Mutant(
        "compiled-discount-table",
        "measures",
        "engine/measures/base.py",
        "_DISCOUNTS = np.log2(np.arange(1001, dtype=np.float64) + 1.0)",
        "_DISCOUNTS = np.log2(np.arange(1001, dtype=np.float64) + 2.0)",
        MEASURES,
        "the discount table the compiled pass reads is shifted by one rank",
    ),
    Mutant(
        "bpref-denominator-r",
        "measures",
        "engine/measures/trec_eval.py",
        "1.0 - np.minimum(nonrel_above, R) / np.minimum(N, R)",
        "1.0 - np.minimum(nonrel_above, R) / R",
        MEASURES,
        "bpref divides by R instead of min(N, R) (numpy path)",
    ),
    Mutant(
        "infap-epsilon-once",
        "measures",
        "engine/measures/trec_eval.py",
        "(ra + INFAP_EPSILON) / (ra + nonrel_above + 2 * INFAP_EPSILON)",
        "(ra + INFAP_EPSILON) / (ra + nonrel_above + INFAP_EPSILON)",
        MEASURES,
        "infAP's smoothing adds ε once to the denominator, not 2ε (numpy path)",
    ),
    Mutant(
        "infap-pooled-means-judged",
        "measures",
        "engine/measures/trec_eval.py",
        "pooled_above = ctx.before_rel(ctx.rel != NONPOOL)",
        "pooled_above = ctx.before_rel(ctx.rel >= 0)",
        MEASURES,
        "infAP counts only judged documents above as pooled, not pooled-unjudged ones (numpy path)",
    ),
    Mutant(
        "infap-epsilon-constant",
        "measures",
        "engine/measures/base.py",
        "INFAP_EPSILON = 0.00001",
        "INFAP_EPSILON = 0.0001",
        MEASURES,
        "infAP's ε is 1e-4 instead of trec_eval's 1e-5 (both paths)",
    ),
    Mutant(
        "relevant-means-above-level",
        "measures",
        "engine/measures/base.py",
        "        return self.rel >= self.level",
        "        return self.rel > self.level",
        MEASURES,
        "relevant means rel > level, not rel >= level (-l)",
    ),
    Mutant(
        "num-rel-strict-level",
        "measures",
        "engine/evaluate.py",
        "num_rel=count(rels >= level),",
        "num_rel=count(rels > level),",
        MEASURES,
        "R counts grades above the level only",
    ),
    Mutant(
        "judged-only-keeps-unjudged",
        "measures",
        "engine/evaluate.py",
        "judged = np.flatnonzero(rel >= 0)",
        "judged = np.flatnonzero(rel >= -1)",
        MEASURES,
        "-J keeps pooled-but-unjudged documents in the condensed list",
    ),
    Mutant(
        "max-docs-off-by-one",
        "measures",
        "engine/evaluate.py",
        "keep &= rank0 < options.max_docs",
        "keep &= rank0 <= options.max_docs",
        MEASURES,
        "-M N keeps N + 1 documents per topic",
    ),
    Mutant(
        "num-rel-sum-becomes-mean",
        "measures",
        "engine/measures/trec_eval.py",
        'register(Family("num_rel", _num_rel, _num_rel.__doc__ or "", aggregate=total, integer=True))',
        'register(Family("num_rel", _num_rel, _num_rel.__doc__ or "", integer=True))',
        MEASURES,
        "num_rel's 'all' line is the mean over topics instead of the sum",
    ),
    Mutant(
        "output-integers-as-floats",
        "measures",
        "engine/output.py",
        "        return str(round(value))",
        '        return f"{value:.{digits}f}"',
        MEASURES,
        "num_ret, num_rel... print as 4-decimal floats instead of trec_eval's %ld",
    ),
    Mutant(
        "output-measure-column-width",
        "measures",
        "engine/output.py",
        'label = f"{name:<22}" if trec_eval_layout else name',
        'label = f"{name:<20}" if trec_eval_layout else name',
        MEASURES,
        "--trec-eval-layout pads the measure column to 20 characters, not 22",
    ),
    Mutant(
        "output-nan-positive",
        "measures",
        "engine/output.py",
        'NAN_TEXT = "-nan"',
        'NAN_TEXT = "nan"',
        MEASURES,
        "0/0 prints nan where trec_eval (glibc) prints -nan",
    ),
]

# ------------------------------------------------------------------------------------------ pooling

pooling = [
    Mutant(
        "depth-cut-one-deeper",
        "pooling",
        "pooling/strategies/rankings.py",
        "kept[r, codes[r]] = counts if limit is None else np.minimum(counts, limit)",
        "kept[r, codes[r]] = counts if limit is None else np.minimum(counts, limit + 1)",
        POOLING,
        "a depth-k pool takes each run's top k + 1",
    ),
    Mutant(
        "depth-order-fewer-votes-first",
        "pooling",
        "pooling/strategies/fixed.py",
        "kept = take_in_order(topic, best, [-votes, ids])",
        "kept = take_in_order(topic, best, [votes, ids])",
        POOLING,
        "depth pool's judging order puts documents fewer runs agree on first among equal best ranks",
    ),
    Mutant(
        "per-topic-budget-off-by-one",
        "pooling",
        "pooling/strategies/fixed.py",
        "keep &= pos_in_topic < budget",
        "keep &= pos_in_topic <= budget",
        POOLING,
        "a per-topic budget of N keeps N + 1 documents",
    ),
    Mutant(
        "total-budget-by-position-first",
        "pooling",
        "pooling/strategies/fixed.py",
        "turn = np.lexsort([st, within, sl])",
        "turn = np.lexsort([st, sl, within])",
        POOLING,
        "a global budget is spent topic turn by turn ignoring the rank level",
    ),
    Mutant(
        "select-runs-ignores-per-group",
        "pooling",
        "pooling/strategies/fixed.py",
        "chosen.update(ranked[:per_group])",
        "chosen.update(ranked[:1])",
        POOLING,
        "runs per group is always 1",
    ),
    Mutant(
        "select-runs-priority-reversed",
        "pooling",
        "pooling/strategies/fixed.py",
        "key=lambda n: (n not in priorities, priorities.get(n, 0), n)",
        "key=lambda n: (n not in priorities, -priorities.get(n, 0), n)",
        POOLING,
        "a group's lowest-priority run is pooled first",
    ),
    Mutant(
        "rrf-zero-based-rank",
        "pooling",
        "pooling/strategies/fixed.py",
        "contrib = 1.0 / (rrf_k + rank)",
        "contrib = 1.0 / (rrf_k + rank - 1.0)",
        POOLING,
        "RRF with 0-based ranks (k + r - 1)",
    ),
    Mutant(
        "rbp-weight-exponent",
        "pooling",
        "pooling/strategies/fixed.py",
        "contrib = (1.0 - rbp_p) * rbp_p ** (rank - 1.0)",
        "contrib = (1.0 - rbp_p) * rbp_p**rank",
        POOLING,
        "RBP method A weights rank r by p^r instead of p^(r-1)",
    ),
    Mutant(
        "sample-size-no-floor-of-one",
        "pooling",
        "pooling/strategies/sampling.py",
        "    n = np.where((rates > 0) & (population > 0), np.maximum(n, 1), n)\n",
        "",
        POOLING,
        "a stratum whose rate rounds to 0 documents is left out of the sample",
    ),
    Mutant(
        "sample-size-rounds-down",
        "pooling",
        "pooling/strategies/sampling.py",
        "return np.floor(x + 0.5).astype(np.int64)",
        "return np.floor(x).astype(np.int64)",
        POOLING,
        "rate x N is rounded down instead of half up",
    ),
    Mutant(
        "inclusion-probability-off-by-one",
        "pooling",
        "pooling/strategies/sampling.py",
        "return sampled, size[cell] / np.maximum(population[cell], 1)",
        "return sampled, size[cell] / np.maximum(population[cell] + 1, 1)",
        POOLING,
        "inclusion probability n / (N + 1) instead of n / N",
    ),
    Mutant(
        "seed-ignored",
        "pooling",
        "pooling/strategies/sampling.py",
        "rng = _generator(design.seed)",
        "rng = _generator(0)",
        POOLING,
        "every sample is drawn with seed 0 whatever the seed asked",
    ),
    Mutant(
        "stratum-boundary-off-by-one",
        "pooling",
        "pooling/strategies/sampling.py",
        'stratum = np.searchsorted(bounds, best, side="left")',
        'stratum = np.searchsorted(bounds, best, side="right")',
        POOLING,
        "a document at a stratum's last rank (10 of 10,30,100) falls into the next stratum",
    ),
    Mutant(
        "allocation-smallest-remainder",
        "pooling",
        "pooling/strategies/sampling.py",
        "pick = room[np.lexsort([room, -frac])][:short]",
        "pick = room[np.lexsort([room, frac])][:short]",
        POOLING,
        "largest-remainder rounding gives the spare documents to the smallest remainders",
    ),
    Mutant(
        "allocation-rounds-to-nearest",
        "pooling",
        "pooling/strategies/sampling.py",
        "n = np.floor(share + 1e-9).astype(np.int64)",
        "n = np.round(share).astype(np.int64)",
        POOLING,
        "the allocation rounds each share to the nearest instead of flooring before largest remainder",
    ),
]

# ------------------------------------------------------------------------------------------- access

access = [
    Mutant(
        "any-role-passes",
        "access",
        "campaigns/access.py",
        "if wanted and not held & set(wanted):",
        "if wanted and not held:",
        (ACCESS, "-k", "refused_organizer_work"),
        "any member passes a check that wants a particular role",
    ),
    Mutant(
        "outsider-told-403",
        "access",
        "campaigns/access.py",
        "    held = roles(user, campaign)\n"
        "    if not held:\n"
        "        raise NotVisible(f\"no campaign '{slug}'\")\n",
        "    held = roles(user, campaign)\n",
        (ACCESS, "-k", "outsider_is_not_told"),
        "a non-member is told the campaign exists (403 instead of 404)",
    ),
    Mutant(
        "campaign-list-unfiltered",
        "access",
        "campaigns/access.py",
        "return Campaign.objects.filter(memberships__user=user).distinct()",
        "return Campaign.objects.all()",
        (ACCESS, "-k", "campaign_lists_show_only"),
        "the campaign list query misses its membership filter",
    ),
    Mutant(
        "organizer-pages-for-adjudicators",
        "access",
        "campaigns/views.py",
        "organizer_page = campaign_page(ORGANIZER)",
        "organizer_page = campaign_page(ORGANIZER, Membership.Role.ADJUDICATOR)",
        (ACCESS, "-k", "refused_organizer_work"),
        "organizer pages widened to adjudicators",
    ),
    Mutant(
        "organizer-api-for-any-member",
        "access",
        "campaigns/apis.py",
        "return access.campaign_for(request.user, slug, ORGANIZER)",
        "return access.campaign_for(request.user, slug)",
        (ACCESS, "-k", "refused_organizer_work"),
        "the organizer API views check membership only",
    ),
    Mutant(
        "jobs-readable-by-any-role",
        "access",
        "campaigns/access.py",
        "return job if has_role(user, job.campaign, *readers) else None",
        "return job if has_role(user, job.campaign, *Role.values) else None",
        (ACCESS, "-k", "members_cannot_see or lose_their_role"),
        "every member of a campaign reads its jobs, whatever their kind's readers",
    ),
    Mutant(
        "job-of-no-campaign-for-everyone",
        "access",
        "campaigns/access.py",
        "return job if job.created_by_id == user.pk else None",
        "return job",
        ("tests/jobs/test_jobs.py::test_a_job_of_no_campaign_is_its_creators_alone",),
        "a job outside any campaign is readable by any logged-in user",
    ),
    Mutant(
        "raw-exports-for-adjudicators",
        "access",
        "judging/exports.py",
        "return READERS if kind in ADJUDICATOR_KINDS else (Role.ORGANIZER,)",
        "return READERS",
        ("tests/judging/reports/test_views.py",),
        "adjudicators download every export, assessors' own labels and the pool included",
    ),
    Mutant(
        "reassign-to-a-non-assessor",
        "access",
        "judging/services/assignments.py",
        "    if not has_role(assessor, campaign, Role.ASSESSOR):\n"
        "        raise JudgingRefused(f\"'{assessor.username}' is not an assessor of this campaign\")\n",
        "",
        ("tests/judging/test_people_and_reassign.py",),
        "an assignment can be moved to someone who is not an assessor of the campaign",
    ),
    Mutant(
        "home-leaderboards-for-members",
        "access",
        "metrics/leaderboards.py",
        "        if not access.has_role(user, campaign, Membership.Role.ORGANIZER):\n            continue\n",
        "",
        ("tests/metrics/test_home_page.py",),
        "the home page shows every member the campaign's leaderboard (runs and scores)",
    ),
]

# ------------------------------------------------------------------------------------ blind judging

blind = [
    Mutant(
        "colleague-judgments-as-mine",
        "blind",
        "judging/assess/selectors.py",
        "    return Judgment.objects.filter(\n        assessor_id=assignment.assessor_id,\n"
        "        topic_id=assignment.topic_id,\n        docno__in=",
        "    return Judgment.objects.filter(\n        topic_id=assignment.topic_id,\n        docno__in=",
        BLIND,
        "the assignment's state lists any assessor's judgment of an item as mine",
    ),
    Mutant(
        "colleague-judgment-with-the-document",
        "blind",
        "judging/assess/selectors.py",
        "        Judgment.objects.filter(\n"
        "            assessor_id=assignment.assessor_id, topic_id=assignment.topic_id, docno=item.docno\n"
        "        )",
        "        Judgment.objects.filter(topic_id=assignment.topic_id, docno=item.docno)",
        BLIND,
        "the document shown carries a colleague's grade and comment",
    ),
    Mutant(
        "anyones-assignment-opens",
        "blind",
        "judging/assess/selectors.py",
        ".filter(pk=pk, assessor_id=user.pk)",
        ".filter(pk=pk)",
        BLIND,
        "a member opens a colleague's assignment (and sees their labels)",
    ),
    Mutant(
        "judging-without-the-assessor-role",
        "blind",
        "judging/assess/selectors.py",
        "    if not (assignment.held_assessor or superuser):\n"
        '        raise access.AccessDenied("judging needs the assessor role in this campaign")\n',
        "",
        BLIND,
        "someone demoted from assessor keeps judging their old assignment",
    ),
    Mutant(
        "home-lists-assignments-of-demoted",
        "blind",
        "judging/assess/selectors.py",
        "        if not access.has_role(user, a.campaign, Role.ASSESSOR):\n            continue\n",
        "",
        BLIND,
        "the assessor home page lists assignments of campaigns where the user is no longer an assessor",
    ),
    Mutant(
        "items-in-pool-rank-order",
        "blind",
        "judging/services/assignments.py",
        "docnos = [docnos[i] for i in rng.permutation(len(docnos))]",
        "docnos = list(docnos)",
        ("tests/judging/test_organize.py", "tests/judging/assess/"),
        "a random-order assignment deals documents in the pool's rank order (the runs' ranks leak)",
    ),
    Mutant(
        "pool-name-on-the-judging-page",
        "blind",
        "judging/templates/judging/assess.html",
        '<span id="assignment-part">part {{ this_assignment.part }} of {{ this_assignment.parts }} '
        "of this topic</span>",
        '<span id="assignment-part">{{ this_assignment.assignment.pool.name }}</span>',
        BLIND,
        "the judging page tells apart two assignments of a topic by the pool's name (it may name runs)",
    ),
    Mutant(
        "pool-name-on-the-home-page",
        "blind",
        "judging/templates/judging/assess_home.html",
        '<span class="part muted">part {{ row.part }} of {{ row.parts }}</span>',
        '<span class="part muted">{{ row.assignment.pool.name }}</span>',
        BLIND,
        "the assessor's home page names the pool of each assignment",
    ),
]

# ---------------------------------------------------------------------------- machine-judge limits

machine = [
    Mutant(
        "consecutive-failures-limit",
        "machine",
        "judging/llm/runner.py",
        "MAX_CONSECUTIVE_FAILURES = 5",
        "MAX_CONSECUTIVE_FAILURES = 50",
        MACHINE,
        "a failing endpoint is asked 50 times in a row before the run stops",
    ),
    Mutant(
        "failures-in-a-row-never-reset",
        "machine",
        "judging/llm/runner.py",
        "in_a_row = 0 if call.answered else in_a_row + 1",
        "in_a_row = in_a_row if call.answered else in_a_row + 1",
        MACHINE,
        "an answer does not reset the count of failures in a row: scattered failures stop the run",
    ),
    Mutant(
        "run-goes-on-after-stopping-early",
        "machine",
        "judging/llm/runner.py",
        "                    if early:\n"
        "                        exhausted = True\n"
        "                        break\n",
        "",
        MACHINE,
        "a run that decided to stop early keeps submitting documents",
    ),
    Mutant(
        "403-not-fatal",
        "machine",
        "judging/llm/client.py",
        "FATAL = frozenset({401, 403})",
        "FATAL = frozenset({401})",
        MACHINE,
        "a 403 (key refused) does not stop the run",
    ),
    Mutant(
        "refused-key-retried",
        "machine",
        "judging/llm/client.py",
        "if status not in RETRIED:",
        "if status not in RETRIED and status not in FATAL:",
        MACHINE,
        "401/403 are retried like a 5xx",
    ),
    Mutant(
        "max-documents-one-more",
        "machine",
        "judging/llm/runner.py",
        "todo = todo[: config.max_documents]",
        "todo = todo[: config.max_documents + 1]",
        MACHINE,
        "a judge limited to N documents judges N + 1",
    ),
    Mutant(
        "loopback-not-named",
        "machine",
        "judging/llm/network.py",
        '    if ip.is_loopback:\n        return "loopback"\n',
        "",
        MACHINE,
        "the loopback check is dropped (other checks may still refuse 127.0.0.1)",
    ),
    Mutant(
        "shared-range-allowed",
        "machine",
        "judging/llm/network.py",
        '    if ip in _SHARED:\n        return "shared (carrier-grade NAT)"\n',
        "",
        MACHINE,
        "100.64.0.0/10 is not refused by name",
    ),
    Mutant(
        "six-to-four-not-unwrapped",
        "machine",
        "judging/llm/network.py",
        "out = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]",
        "out = [a for a in (ip.ipv4_mapped,) if a is not None]",
        MACHINE,
        "a 6to4 address carrying 127.0.0.1 is not looked inside",
    ),
    Mutant(
        "guard-skipped",
        "machine",
        "judging/llm/network.py",
        "    if not allow_private:\n        for address in addresses:",
        "    if allow_private:\n        for address in addresses:",
        MACHINE,
        "the address guard runs only for endpoints that allow private addresses",
    ),
    Mutant(
        "redirects-followed",
        "machine",
        "judging/llm/network.py",
        "        follow_redirects=False,",
        "        follow_redirects=True,",
        MACHINE,
        "the judge follows redirects (to any address)",
    ),
    Mutant(
        "proxy-from-environment",
        "machine",
        "judging/llm/network.py",
        "        trust_env=False,\n    )",
        "        trust_env=True,\n    )",
        MACHINE,
        "the judge's client takes a proxy from the environment (which connects past the guard)",
        equivalent=(
            "the client is given its transport (guarded_transport, itself trust_env=False), and httpx "
            "reads proxies from the environment only when it builds its own (Client.__init__: "
            "allow_env_proxies = trust_env and transport is None); the flag has nothing left to "
            "change. The transport's own trust_env=False is what matters, and "
            "test_no_proxy_from_the_environment_carries_a_request guards the whole"
        ),
    ),
]

# ----------------------------------------------------------------------------------------- CSV

csv_safety = [
    Mutant(
        "minus-not-a-formula",
        "csv",
        "trec/csvout.py",
        'FORMULA_STARTS = ("=", "+", "-", "@", "\\t", "\\r")',
        'FORMULA_STARTS = ("=", "+", "@", "\\t", "\\r")',
        CSV,
        "a cell starting with '-' (-2+3+cmd|...) is not quoted",
    ),
    Mutant(
        "tab-not-a-formula",
        "csv",
        "trec/csvout.py",
        'FORMULA_STARTS = ("=", "+", "-", "@", "\\t", "\\r")',
        'FORMULA_STARTS = ("=", "+", "-", "@")',
        CSV,
        "a leading tab or carriage return can hide a formula",
    ),
    Mutant(
        "number-prefix-passes",
        "csv",
        "trec/csvout.py",
        "and not _NUMBER.fullmatch(value)",
        "and not _NUMBER.match(value)",
        CSV,
        "a cell that merely starts like a number (-2+3+cmd) is left unquoted",
    ),
    Mutant(
        "comment-not-neutralised",
        "csv",
        "judging/exports.py",
        "                neutralise(j.comment),",
        "                j.comment,",
        CSV,
        "an assessor's comment '-1' or '=1+1' reaches the export as a number or formula",
    ),
    Mutant(
        "judgments-export-plain-csv",
        "csv",
        "judging/exports.py",
        "from trec.csvout import SafeWriter, neutralise",
        "from csv import writer as SafeWriter\n\nfrom trec.csvout import neutralise",
        CSV,
        "the judgments export writes with csv.writer (no formula quoting)",
    ),
    Mutant(
        "evaluation-download-plain-csv",
        "csv",
        "engine/output.py",
        "from trec.csvout import SafeWriter",
        "from csv import writer as SafeWriter",
        CSV,
        "evaluate/compare CSV and the downloads write with csv.writer",
    ),
    Mutant(
        "simulation-csv-plain",
        "csv",
        "pooling/cli.py",
        "from trec.csvout import SafeWriter",
        "from csv import writer as SafeWriter",
        CSV,
        "the pool simulation CSV writes with csv.writer",
    ),
    Mutant(
        "login-links-csv-plain",
        "csv",
        "judging/views.py",
        "from trec.csvout import SafeWriter",
        "from csv import writer as SafeWriter",
        CSV,
        "the revealed login links CSV (usernames, emails) writes with csv.writer",
    ),
]

# ---------------------------------------------------------------------------------------- migrations

migrations = [
    Mutant(
        "retries-default-without-migration",
        "migrations",
        "judging/models.py",
        "max_retries = models.PositiveSmallIntegerField(default=4)",
        "max_retries = models.PositiveSmallIntegerField(default=3)",
        MIGRATIONS,
        "a machine judge's retry default changes with no migration",
    ),
    Mutant(
        "iprob-default-without-migration",
        "migrations",
        "pooling/models.py",
        "iprob = models.FloatField(default=1.0)",
        "iprob = models.FloatField(default=0.5)",
        MIGRATIONS,
        "a pool document's inclusion probability default changes with no migration",
    ),
    Mutant(
        "priority-default-without-migration",
        "migrations",
        "campaigns/models.py",
        "priority = models.PositiveIntegerField(default=1)",
        "priority = models.PositiveIntegerField(default=0)",
        MIGRATIONS,
        "a run's judging priority default changes with no migration",
    ),
    Mutant(
        "order-default-without-migration",
        "migrations",
        "judging/models.py",
        "order = models.CharField(max_length=10, choices=Order.choices, default=Order.RANDOM)",
        "order = models.CharField(max_length=10, choices=Order.choices, default=Order.DOCNO)",
        MIGRATIONS,
        "assignments default to docno order with no migration",
    ),
    Mutant(
        "endpoint-migration-drops-the-reason",
        "migrations",
        "judging/migrations/0005_machine_judge_endpoint.py",
        'judge.save(update_fields=["endpoint", "unusable_reason"])',
        'judge.save(update_fields=["endpoint"])',
        ("tests/judging/test_machine_endpoint_migration.py",),
        "the data migration to declared endpoints forgets why a judge cannot judge",
    ),
]

# ----------------------------------------------------------------------------------- interrupted jobs

jobs = [
    Mutant(
        "live-job-failed",
        "jobs",
        "jobs/services.py",
        "if not liveness.job_held(job.id, job_folder(job.id)) and _job_interrupted(job):",
        "if _job_interrupted(job):",
        JOBS,
        "a running job whose worker holds its lock is failed as interrupted",
    ),
    Mutant(
        "split-job-failed-as-interrupted",
        "jobs",
        "jobs/services.py",
        "running = list(Job.objects.filter(status=Job.Status.RUNNING, parts__isnull=True))",
        "running = list(Job.objects.filter(status=Job.Status.RUNNING))",
        JOBS,
        "a job that lives on in its parts is failed because its own lock is free",
        equivalent=(
            "_job_interrupted itself refuses a job that has parts (its .exclude(...), which "
            "split-race-not-excluded attacks): without this filter such a job is listed and "
            "checked, and left alone; the filter saves the look, it decides nothing"
        ),
    ),
    Mutant(
        "split-race-not-excluded",
        "jobs",
        "jobs/services.py",
        '            .exclude(pk__in=Job.objects.filter(parent_id=job.pk).values("parent_id"))\n',
        "",
        JOBS,
        "a job that split after it was listed is failed",
    ),
    Mutant(
        "ended-job-failed-again",
        "jobs",
        "jobs/services.py",
        "Job.objects.filter(pk=job.pk, status=job.status)",
        "Job.objects.filter(pk=job.pk)",
        JOBS,
        "a job that finished between the listing and the check is overwritten as failed",
    ),
    Mutant(
        "task-result-left-running",
        "jobs",
        "jobs/services.py",
        "            _task_result_fail(job.task_id, reason, now)\n",
        "",
        JOBS,
        "an interrupted job's task result stays running",
    ),
    Mutant(
        "interrupted-part-leaves-parent-running",
        "jobs",
        "jobs/services.py",
        "            if parent is not None:\n"
        "                reading = progress.Reading(job.phase, job.done, job.total)",
        "            if parent is not None and job.errors:\n"
        "                reading = progress.Reading(job.phase, job.done, job.total)",
        JOBS,
        "an interrupted part does not fail the job it is a part of",
    ),
    Mutant(
        "interrupted-uploads-kept",
        "jobs",
        "jobs/services.py",
        "            shutil.rmtree(job_folder(job.id), ignore_errors=True)\n    if changed:",
        "    if changed:",
        JOBS,
        "an interrupted job's uploads stay on disk",
    ),
    Mutant(
        "claimed-task-no-grace",
        "jobs",
        "jobs/services.py",
        "status=TaskResultStatus.RUNNING, started_at__lt=timezone.now() - CLAIM_GRACE",
        "status=TaskResultStatus.RUNNING, started_at__lt=timezone.now()",
        JOBS,
        "a task claimed a moment ago, before its worker took the job's lock, is failed",
    ),
    Mutant(
        "claimed-task-never-failed",
        "jobs",
        "jobs/services.py",
        "    for job in running + never_started:",
        "    for job in running:",
        JOBS,
        "a task whose worker died between claiming it and taking the lock stays queued forever",
    ),
    Mutant(
        "failed-job-runs-again",
        "jobs",
        "jobs/execution.py",
        "claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(",
        "claimed = Job.objects.filter(pk=job_id).update(",
        JOBS,
        "a task delivered again runs a job that already ended (failed as interrupted, or done)",
    ),
    Mutant(
        "part-of-an-ended-job-runs",
        "jobs",
        "jobs/execution.py",
        "if job.parent is not None and job.parent.status != Job.Status.RUNNING:",
        "if job.parent is not None and job.parent.status == Job.Status.DONE:",
        JOBS,
        "a part of a job that failed (another part interrupted) still runs",
    ),
]

AREAS = ("measures", "pooling", "access", "blind", "machine", "csv", "migrations", "jobs")
MUTANTS: list[Mutant] = [*measures, *pooling, *access, *blind, *machine, *csv_safety, *migrations, *jobs]
