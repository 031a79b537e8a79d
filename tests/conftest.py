"""Shared fixtures: the reference data folder (skipped with a reason when absent)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The README writes WORKBENCH_REFDATA=../shared/refdata, relative to the folder the tests start in:
# made absolute once, here, so that a test that changes folder or starts a process elsewhere finds it.
if os.environ.get("WORKBENCH_REFDATA"):
    os.environ["WORKBENCH_REFDATA"] = str(Path(os.environ["WORKBENCH_REFDATA"]).resolve())


def refdata_dir() -> Path | None:
    value = os.environ.get("WORKBENCH_REFDATA")
    if not value:
        return None
    path = Path(value)
    return path if (path / "expected" / "reference.tsv.gz").is_file() else None


def kernels_or_skip() -> None:
    """The compiled kernels are optional for an install (no C compiler: numpy does the work), so a
    test of them skips without them, except under CI, which builds them: there their absence is a
    broken build and fails."""
    import trec.kernels

    if trec.kernels._lib is None:
        reason = "the compiled kernels are not built (pip install -e . builds them)"
        if os.environ.get("CI"):
            pytest.fail(f"CI builds the compiled kernels, yet {reason}")
        pytest.skip(reason)


@pytest.fixture(params=["kernel", "pyarrow"])
def fast_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The fast file readers a test goes through: the compiled kernel (trec.kernels), then pyarrow
    (``WORKBENCH_KERNELS=0``). Modules of the readers' tests use it for every test."""

    if request.param == "kernel":
        kernels_or_skip()
    monkeypatch.setenv("WORKBENCH_KERNELS", "1" if request.param == "kernel" else "0")
    return str(request.param)


@pytest.fixture(params=["compiled", "numpy"])
def engine_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways the engine computes: the compiled kernels (read, join and the per-topic sums of
    trec/_kernels.c), then numpy alone (``WORKBENCH_KERNELS=0``, an install with no C compiler).
    The worked examples and the reference-data tests run through both, so a formula or constant
    that drifts in either is caught by the same expected values."""
    if request.param == "compiled":
        kernels_or_skip()
    monkeypatch.setenv("WORKBENCH_KERNELS", "1" if request.param == "compiled" else "0")
    return str(request.param)


@pytest.fixture(scope="session")
def refdata() -> Path:
    path = refdata_dir()
    if path is None:
        pytest.skip(
            "reference data absent: set WORKBENCH_REFDATA to ../shared/refdata "
            "(the folder holding expected/reference.tsv.gz) to run the trec_eval/sample_eval comparisons"
        )
    return path


# One profile for the property tests everywhere, CI or a test run alone: a fixed example stream (a
# red build replays exactly on a laptop) and no per-example deadline (a busy machine's timing is not
# a property of the code; the benchmarks measure speed).
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("workbench", derandomize=True, deadline=None, print_blob=True)
_hypothesis_settings.load_profile("workbench")


# ------------------------------------------------------------------------- campaigns and people

import pytest  # noqa: E402

IMMEDIATE_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture(autouse=True)
def _jobs_in_request(settings: object, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Background tasks run inside the request in tests, uploads go to a temporary folder."""
    settings.TASKS = IMMEDIATE_TASKS  # type: ignore[attr-defined]
    uploads = tmp_path_factory.mktemp("uploads")
    settings.WORKBENCH_UPLOAD_DIR = uploads  # type: ignore[attr-defined]
    settings.FILE_UPLOAD_TEMP_DIR = str(uploads / "incoming")  # type: ignore[attr-defined]
    # personas log in hundreds of times: a fast hash keeps that cheap (never outside tests)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
    # client.login() authenticates without a request, which django-axes refuses: the lockout's own
    # tests (tests/test_login_throttling.py) turn it back on
    settings.AXES_ENABLED = False  # type: ignore[attr-defined]
    # jobs_worker run in the test process (call_command) leaves the test runner's priority alone
    settings.WORKBENCH_WORKER_NICE = 0  # type: ignore[attr-defined]
    # the process cache (sessions, scales) must not carry one test's campaign into the next
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def tasks_in_database(settings: object) -> None:
    """Tasks wait in the database (django-tasks-db) until a worker takes them, as in production:
    ``call_command("jobs_worker", "--batch")`` runs them in the test, ``worker_process`` elsewhere."""
    settings.TASKS = DATABASE_TASKS  # type: ignore[attr-defined]


def _uses_worker_processes(session: pytest.Session) -> bool:
    return any("worker_process" in getattr(item, "fixturenames", ()) for item in session.items)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A worker process must open the test database: on SQLite it is then a file, not in memory
    (only in sessions that start one)."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3" and _uses_worker_processes(request.session):
        db.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test.sqlite3")


# no random start-up delay, a quick poll and quick looks for stopped workers: tests wait on them
WORKER_OPTIONS = ("--no-startup-delay", "--interval", "0.1", "--check-every", "0.5", "-v", "2")


class WorkerProcess:
    """A ``manage.py jobs_worker`` process on the test database (see the ``worker_process`` fixture)."""

    def __init__(self, proc: Any, log: Path) -> None:
        self.proc = proc
        self.log = log

    @property
    def pid(self) -> int:
        return int(self.proc.pid)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_started(self, timeout: float = 60.0) -> None:
        """Wait until the worker has set Django up and begun polling for tasks (its log says so)."""
        import time

        deadline = time.monotonic() + timeout
        while "Starting worker" not in self.output():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker {self.pid} did not start: {self.output()[-2000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        """``kill -9``: no cleanup of any kind."""
        import signal

        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        import subprocess

        if self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: db_worker ends after its current task
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def worker_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a worker process that opens the test database (committed rows only:
    tests that start one use ``transactional_db`` or ``live_server``)."""
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "WORKBENCH_SQLITE_PATH")}
    if connection.vendor == "postgresql":
        from urllib.parse import quote

        auth = quote(db["USER"] or "") + (":" + quote(db["PASSWORD"]) if db.get("PASSWORD") else "")
        host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
        env["DATABASE_URL"] = f"postgres://{auth}@{host}:{port}/{db['NAME']}"
    else:
        env["WORKBENCH_SQLITE_PATH"] = str(db["NAME"])
    env["WORKBENCH_UPLOAD_DIR"] = str(settings.WORKBENCH_UPLOAD_DIR)
    env["WORKBENCH_TASKS"] = "database"
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return {**env, **(extra or {})}


@pytest.fixture
def worker_process(
    tasks_in_database: None, transactional_db: None, tmp_path: Path
) -> Iterator[Callable[..., WorkerProcess]]:
    """``start(env=None)`` starts a real ``manage.py jobs_worker`` process on the test database;
    every one still running is stopped after the test, before the database is emptied."""
    import subprocess
    import sys

    from django.conf import settings
    from django.db import connection

    name = str(connection.settings_dict["NAME"])
    if connection.vendor == "sqlite" and (":memory:" in name or "mode=memory" in name):
        pytest.fail("the SQLite test database is in memory: a worker process cannot open it")
    started: list[WorkerProcess] = []

    def start(env: dict[str, str] | None = None) -> WorkerProcess:
        log = tmp_path / f"worker-{len(started) + 1}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "manage.py", "jobs_worker", *WORKER_OPTIONS],
                cwd=settings.BASE_DIR,
                env=worker_env(env),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        worker = WorkerProcess(proc, log)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


PASSWORD = "persona-password"


def _user(username: str) -> object:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=PASSWORD)


@pytest.fixture
def campaign(db: None) -> object:
    from campaigns.services import campaign_create

    return campaign_create(slug="trec-demo", name="TREC demo")


@pytest.fixture
def organizer(campaign: object) -> object:
    from django.contrib.auth.models import Permission

    from campaigns.services import membership_add

    user = _user("olga")
    user.user_permissions.add(  # type: ignore[attr-defined]
        Permission.objects.get(codename="add_campaign", content_type__app_label="campaigns")
    )
    membership_add(campaign=campaign, user=user, roles=["organizer"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def assessor(campaign: object) -> object:
    from campaigns.services import membership_add

    user = _user("alice")
    membership_add(campaign=campaign, user=user, roles=["assessor"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def co_assessor(campaign: object) -> object:
    from campaigns.services import membership_add

    user = _user("bob")
    membership_add(campaign=campaign, user=user, roles=["assessor"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def adjudicator(campaign: object) -> object:
    from campaigns.services import membership_add

    user = _user("ada")
    membership_add(campaign=campaign, user=user, roles=["adjudicator"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def outsider(db: None) -> object:
    """Logged in, but with no role in the campaign."""
    return _user("oscar")


# --------------------------------------------------------------------------- the demo collection


def demo_dir() -> Path:
    from django.conf import settings

    return Path(settings.WORKBENCH_DEMO_DIR)


def demo_run_paths() -> list[Path]:
    return sorted((demo_dir() / "runs").glob("*.run"))


def demo_runs() -> list[Any]:
    """The demo runs as the format layer reads them, named by tag like stored runs."""
    from trec import read_run

    runs = [read_run(p) for p in demo_run_paths()]
    return [read_run(p, name=r.tag) for p, r in zip(demo_run_paths(), runs, strict=True)]


@pytest.fixture
def loaded(campaign: Any) -> Any:
    """``campaign`` with the demo collection's 5 topics and 4 runs (group 'demo') imported."""
    from campaigns.services import runs_import, topics_import

    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths(), group="demo")
    return campaign


_CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=|"csrfToken": ?|csrftoken=)"?[A-Za-z0-9]+')


def without_csrf(body: str) -> str:
    """A page without its CSRF tokens: random letters and digits, in which a short word looked
    for ("Q0") turns up in about one page in fifty."""
    return _CSRF.sub("", body)


ROOT = Path(__file__).resolve().parent.parent


def python_stdout(*args: str, env: dict[str, str]) -> str:
    """What ``python ARGS`` prints, run from the project's root in a process of its own with
    ``env`` (a fresh interpreter: what a new process imports, and how it starts)."""
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout
