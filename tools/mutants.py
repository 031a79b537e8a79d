"""Mutation run: plant one realistic bug at a time and check that the tests meant to guard it fail.

    .venv/bin/python tools/mutants.py --list               # the catalog, by area
    .venv/bin/python tools/mutants.py                      # every mutant, SQLite, one at a time
    .venv/bin/python tools/mutants.py --only access,csv    # some areas
    .venv/bin/python tools/mutants.py --id blind-colleague-label --show   # one mutant's diff
    .venv/bin/python tools/mutants.py --database-url postgres://postgres@127.0.0.1:5432/wb

Each mutant (:mod:`mutant_catalog`) names its area, a file, an exact snippet that must occur exactly
once in that file, the snippet's replacement (an off-by-one, a dropped check, a widened role, a
changed default...) and the pytest selection that should catch it. For each mutant the harness
copies the work tree (the files git knows, committed or not, plus the compiled ``trec/_kernels*.so``)
into a temporary folder, applies the one replacement, and runs its selection with
``-x -q -p no:cacheprovider``:

* killed: pytest exited 1 (a test failed);
* survived: pytest exited 0 (every selected test passed, and at least one ran);
* error: the snippet is not found exactly once, the tests could not be collected (an import or
  syntax error, no test selected), pytest stopped otherwise, or the selection already fails on the
  unmutated tree (the baseline, run once per distinct selection). An error is never a kill;
* timeout: the selection ran past ``--timeout``; counted as killed (a hang is seen), shown apart.

The kill ratio is killed / (killed + survived + error); a mutant with ``equivalent="why"`` (it
cannot change behaviour, or nothing observable can tell it apart) is not run and not counted.
The exit code is 1 when the ratio is below ``--min-kill``.

Why not mutmut or cosmic-ray: both generate mutants from operators over every expression (mutmut 3
through trampolines in a copied tree, cosmic-ray through its operator plug-ins and a session
database), thousands per module, run against one test command. What is asked here is the opposite:
a short curated list of bugs that matter (an access query missing its filter, a template showing a
pool's name, a migration default, a job-liveness branch skipped), in Python, templates and settings
alike, each with the tests that claim to guard it. Neither tool mutates templates, neither takes a
hand-written replacement, and a per-mutant test selection is not their model; a 300-line script
that does exactly this is simpler than bending them to it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]

KILLED, SURVIVED, ERROR, TIMEOUT, EQUIVALENT = "killed", "survived", "error", "timeout", "equivalent"
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider")
# files the tree needs that git does not track: the compiled kernels (built by pip install -e .)
UNTRACKED_NEEDED = ("trec/_kernels*.so", "trec/_kernels*.pyd")


@dataclass(frozen=True)
class Mutant:
    """One deliberate bug: ``original`` (found exactly once in ``file``) becomes ``replacement``."""

    id: str
    area: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]  # pytest arguments: files, folders, node ids, -k EXPRESSION
    bug: str  # what the bug is, in words
    equivalent: str = ""  # why it cannot be killed; such a mutant is not run nor counted

    def apply(self, text: str) -> str:
        """``text`` with the mutation; ValueError unless ``original`` occurs exactly once."""
        count = text.count(self.original)
        if count != 1:
            raise ValueError(f"{self.id}: the snippet occurs {count} times in {self.file}, not once")
        return text.replace(self.original, self.replacement)

    def diff(self, root: Path | None = None) -> str:
        before = ((ROOT if root is None else root) / self.file).read_text()
        after = self.apply(before)
        return "".join(
            difflib.unified_diff(
                before.splitlines(keepends=True), after.splitlines(keepends=True), self.file, self.file, n=2
            )
        )


@dataclass
class Outcome:
    mutant: Mutant
    status: str
    seconds: float = 0.0
    detail: str = ""  # the last lines pytest printed, or why it is an error
    log: str = field(default="", repr=False)


def check(mutants: Sequence[Mutant], root: Path | None = None) -> list[str]:
    """Every problem of the catalog against the tree at ``root`` (empty when it is sound)."""
    root = ROOT if root is None else root
    problems = []
    seen: Counter[str] = Counter(m.id for m in mutants)
    problems += [f"{i}: the id is used {n} times" for i, n in seen.items() if n > 1]
    for m in mutants:
        path = root / m.file
        if not path.is_file():
            problems.append(f"{m.id}: no file {m.file}")
            continue
        count = path.read_text().count(m.original)
        if count != 1:
            problems.append(f"{m.id}: the snippet occurs {count} times in {m.file}, not once")
        if m.original == m.replacement:
            problems.append(f"{m.id}: the replacement is the original")
        if not m.tests:
            problems.append(f"{m.id}: no tests named")
        for test, before in zip(m.tests, ("", *m.tests), strict=False):
            if test.startswith("-") or before in ("-k", "-m"):
                continue  # an option of pytest's (-k EXPRESSION narrows a selection)
            if not (root / test.split("::", 1)[0]).exists():
                problems.append(f"{m.id}: no test path {test}")
    return problems


def tree_files(root: Path) -> list[str]:
    """The files of the work tree: what git tracks or would track (uncommitted edits included),
    and the compiled kernels; without git, every file."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
        ).stdout.decode()
        names = [n for n in listed.split("\0") if n and (root / n).is_file()]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    for pattern in UNTRACKED_NEEDED:
        names += [str(p.relative_to(root)) for p in root.glob(pattern)]
    return sorted(set(names))


def copy_tree(root: Path, files: Iterable[str], into: Path) -> None:
    for name in files:
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)


def child_env(database_url: str | None, worker: int) -> dict[str, str]:
    """The environment of a pytest run: SQLite unless a database URL is given (each parallel worker
    then gets its own database name, so their test databases do not collide)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if env.get("WORKBENCH_REFDATA"):  # a relative path would point elsewhere from the copy
        env["WORKBENCH_REFDATA"] = str(Path(env["WORKBENCH_REFDATA"]).resolve())
    if database_url:
        if worker:
            parts = urlsplit(database_url)
            database_url = urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}_m{worker}"))
        env["DATABASE_URL"] = database_url
    return env


def classify(code: int | None) -> str:
    """pytest's exit code as an outcome: 1 (tests failed) kills; 0 survives; None timed out;
    2 (interrupted: collection errors), 3 (internal error), 4 (usage), 5 (no tests) are errors."""
    if code is None:
        return TIMEOUT
    return {0: SURVIVED, 1: KILLED}.get(code, ERROR)


def run_pytest(
    where: Path, tests: Sequence[str], env: dict[str, str], timeout: float
) -> tuple[int | None, str]:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *PYTEST_ARGS, *tests],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return None, out
    return done.returncode, done.stdout + done.stderr


def _tail(log: str, lines: int = 3) -> str:
    return " | ".join(line.strip() for line in log.strip().splitlines()[-lines:])


def run_one(
    mutant: Mutant,
    root: Path,
    files: list[str],
    *,
    env: dict[str, str],
    timeout: float,
    keep: bool = False,
) -> Outcome:
    """Copy the tree, apply ``mutant``, run its tests (see the module's doc for the outcomes)."""
    start = time.monotonic()
    try:
        mutated = mutant.apply((root / mutant.file).read_text())
    except (OSError, ValueError) as exc:
        return Outcome(mutant, ERROR, 0.0, f"not applied: {exc}")
    where = Path(tempfile.mkdtemp(prefix=f"mutant-{mutant.id}-"))
    try:
        copy_tree(root, files, where)
        (where / mutant.file).write_text(mutated)
        code, log = run_pytest(where, mutant.tests, env, timeout)
    finally:
        if not keep:
            shutil.rmtree(where, ignore_errors=True)
    status = classify(code)
    detail = f"timed out after {timeout:g} s" if code is None else f"pytest exit {code}: {_tail(log)}"
    return Outcome(mutant, status, time.monotonic() - start, detail, log)


def baselines(
    mutants: Sequence[Mutant], root: Path, files: list[str], *, env: dict[str, str], timeout: float
) -> dict[tuple[str, ...], str]:
    """Each distinct selection run once on the unmutated tree: '' when it passes, else why not."""
    out: dict[tuple[str, ...], str] = {}
    where = Path(tempfile.mkdtemp(prefix="mutant-baseline-"))
    try:
        copy_tree(root, files, where)
        for tests in dict.fromkeys(m.tests for m in mutants):
            started = time.monotonic()
            code, log = run_pytest(where, tests, env, timeout)
            why = f"the unmutated tree already fails it (exit {code}): {_tail(log)}"
            out[tests] = "" if code == 0 else why
            state = "ok" if code == 0 else "FAILS"
            print(f"baseline {state:5} {time.monotonic() - started:6.1f}s  {' '.join(tests)}", flush=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return out


def run_all(
    mutants: Sequence[Mutant],
    *,
    root: Path | None = None,
    jobs: int = 1,
    database_url: str | None = None,
    timeout: float = 1200.0,
    baseline: bool = True,
    keep: bool = False,
    report: Callable[[Outcome, int, int], None] | None = None,
) -> list[Outcome]:
    """Run every non-equivalent mutant of ``mutants`` (equivalent ones come back as such).

    The tree is copied once first: the whole run sees the tree as it was when it started, however
    the work tree changes meanwhile."""
    root = ROOT if root is None else root
    files = tree_files(root)
    snapshot = Path(tempfile.mkdtemp(prefix="mutant-tree-"))
    try:
        copy_tree(root, files, snapshot)
        return _run_from(mutants, snapshot, files, jobs, database_url, timeout, baseline, keep, report)
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)


def _run_from(
    mutants: Sequence[Mutant],
    root: Path,
    files: list[str],
    jobs: int,
    database_url: str | None,
    timeout: float,
    baseline: bool,
    keep: bool,
    report: Callable[[Outcome, int, int], None] | None,
) -> list[Outcome]:
    live = [m for m in mutants if not m.equivalent]
    outcomes = [Outcome(m, EQUIVALENT, detail=m.equivalent) for m in mutants if m.equivalent]
    broken: dict[tuple[str, ...], str] = {}
    if baseline and live:
        broken = baselines(live, root, files, env=child_env(database_url, 0), timeout=timeout)
    todo = []
    for m in live:
        if broken.get(m.tests):
            outcomes.append(Outcome(m, ERROR, detail=broken[m.tests]))
        else:
            todo.append(m)
    total, done = len(todo), 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        free = list(range(max(1, jobs)))  # worker slots: each has its own database name
        futures: dict[Future[Outcome], int] = {}
        queue = list(todo)
        while queue or futures:
            while queue and free:
                slot = free.pop()
                m = queue.pop(0)
                env = child_env(database_url, slot)
                futures[pool.submit(run_one, m, root, files, env=env, timeout=timeout, keep=keep)] = slot
            finished = next(as_completed(futures))
            free.append(futures.pop(finished))
            outcome = finished.result()
            done += 1
            outcomes.append(outcome)
            if report:
                report(outcome, done, total)
    order = {m.id: i for i, m in enumerate(mutants)}
    return sorted(outcomes, key=lambda o: order[o.mutant.id])


def ratio(outcomes: Iterable[Outcome]) -> float:
    counted = [o for o in outcomes if o.status != EQUIVALENT]
    if not counted:
        return 1.0
    return sum(o.status in (KILLED, TIMEOUT) for o in counted) / len(counted)


def table(outcomes: Sequence[Outcome]) -> str:
    """Per area: killed (timeouts included) / counted, survived, errors, equivalent; then the total."""
    areas = list(dict.fromkeys(o.mutant.area for o in outcomes))
    rows: list[tuple[str, ...]] = [("area", "killed", "survived", "error", "equivalent", "ratio")]

    def row(name: str, group: Sequence[Outcome]) -> tuple[str, ...]:
        n = Counter(o.status for o in group)
        counted = len(group) - n[EQUIVALENT]
        killed = n[KILLED] + n[TIMEOUT]
        return (
            name,
            f"{killed}/{counted}",
            str(n[SURVIVED]),
            str(n[ERROR]),
            str(n[EQUIVALENT]),
            f"{ratio(group):.0%}",
        )

    rows += [row(a, [o for o in outcomes if o.mutant.area == a]) for a in areas]
    rows.append(row("all", outcomes))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = zip(r, widths, strict=True)
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells)))
    return "\n".join(lines)


def _progress(outcome: Outcome, done: int, total: int) -> None:
    m = outcome.mutant
    print(f"[{done}/{total}] {outcome.status:8} {outcome.seconds:6.1f}s  {m.area}/{m.id}", flush=True)
    if outcome.status in (SURVIVED, ERROR):
        print(f"      {outcome.detail}", flush=True)


def select(mutants: Sequence[Mutant], only: Sequence[str], ids: Sequence[str]) -> list[Mutant]:
    areas = {a for spec in only for a in spec.split(",") if a}
    wanted = {i for spec in ids for i in spec.split(",") if i}
    unknown = (areas - {m.area for m in mutants}) | (wanted - {m.id for m in mutants})
    if unknown:
        raise SystemExit(f"unknown area or id: {', '.join(sorted(unknown))}")
    return [m for m in mutants if (not areas or m.area in areas) and (not wanted or m.id in wanted)]


def main(argv: Sequence[str] | None = None, catalog: Sequence[Mutant] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="areas (comma-separated, repeatable)")
    parser.add_argument("--id", action="append", default=[], help="mutant ids (comma-separated, repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--show", action="store_true", help="print the selected mutants' diffs and stop")
    parser.add_argument("--check", action="store_true", help="check every snippet against the tree and stop")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--database-url", help="run on this database (default: SQLite)")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per pytest run")
    parser.add_argument("--min-kill", type=float, default=0.95, help="exit 1 below this kill ratio")
    parser.add_argument("--no-baseline", action="store_true", help="skip running the selections unmutated")
    parser.add_argument("--keep", action="store_true", help="keep each mutant's copy (for debugging)")
    args = parser.parse_args(argv)

    if catalog is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from mutant_catalog import MUTANTS

        catalog = MUTANTS
    chosen = select(catalog, args.only, args.id)
    if args.check:
        problems = check(catalog)
        print("\n".join(problems) or f"{len(catalog)} mutants, every snippet found exactly once")
        return 1 if problems else 0
    if args.list:
        for m in chosen:
            note = f"  [equivalent: {m.equivalent}]" if m.equivalent else ""
            print(f"{m.area:14} {m.id:40} {m.file}: {m.bug}{note}")
        print(f"{len(chosen)} mutants")
        return 0
    if args.show:
        for m in chosen:
            print(f"# {m.id} ({m.area}): {m.bug}\n# tests: {' '.join(m.tests)}\n{m.diff()}")
        return 0
    print(f"{len(chosen)} mutants, {args.jobs} at a time, on {args.database_url or 'SQLite'}", flush=True)
    outcomes = run_all(
        chosen,
        jobs=args.jobs,
        database_url=args.database_url,
        timeout=args.timeout,
        baseline=not args.no_baseline,
        keep=args.keep,
        report=_progress,
    )
    print()
    print(table(outcomes))
    for o in outcomes:
        if o.status in (SURVIVED, ERROR):
            print(f"{o.status}: {o.mutant.area}/{o.mutant.id} ({o.mutant.file}): {o.mutant.bug}; {o.detail}")
    for o in outcomes:
        if o.status == EQUIVALENT:
            print(f"equivalent: {o.mutant.area}/{o.mutant.id}: {o.detail}")
    got = ratio(outcomes)
    print(f"kill ratio {got:.1%} (at least {args.min_kill:.0%} asked)")
    return 0 if got >= args.min_kill else 1


if __name__ == "__main__":
    sys.exit(main())
