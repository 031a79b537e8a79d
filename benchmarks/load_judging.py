"""Load test of judging: many assessors logging in and judging through the real HTTP endpoints at once.

Builds a campaign in a fresh database (one topic of ``--docs`` pooled documents per assessor),
starts the workbench as deployed, and runs ``--assessors`` simulated assessors, each in its own
thread with its own session and keep-alive connection, arriving evenly over ``--arrival`` seconds:

- **log in** through the login form (GET the form, POST the password: the POST is "login");
- **open the judging page** (the HTML, with the assignment's state in it), then fetch the next
  document as the page reads one ahead ("next");
- for every document: read it (a random pause, ``--think`` seconds on average), then **save** the
  judgment. As the judging page does, each save asks for the document after the next one, which
  its answer carries: the next document is already there when the key is pressed, so
  **save-and-next** (what the assessor waits for after a key: the save confirmed and the next
  document on hand) is the save alone, plus a fetch whenever the next document did not come with
  an earlier answer. ``--client plain`` is a client that reads nothing ahead: save, then fetch the
  next document (save-and-next is both). A share of the saves (``--double``) is sent twice, as a
  double click or a retry would.

Reported: the p50/p95/p99 of login, save, next and save-and-next, throughput, errors and timeouts
(30 s); then the database is checked: every judgment stored exactly once with the grade sent, one
history event per judgment. ``--scenario`` runs the standard set and prints one markdown table:

- ``pg-50``, ``pg-200``: PostgreSQL under gunicorn started as README "Deploying" says (production
  mode behind a stand-in proxy: the client sends ``X-Forwarded-Proto: https``; the gunicorn
  options are read from README's command line) with one idle ``jobs_worker``; 50 assessors x 60
  documents, and 200 x 30 documents arriving within 60 s;
- ``pg-50-busy``: the 50 with two ``jobs_worker`` processes kept busy: one evaluating the campaign's
  100 runs (50 topics x 1000 documents) against the judgments, again as soon as it finishes, the
  other running a machine judge on every pooled document against a fake OpenAI-compatible server
  on loopback (``WORKBENCH_JUDGE_ENDPOINTS``; 0.2 s an answer);
- ``sqlite-25``: the embedded default: SQLite under ``manage.py runserver`` and a ``jobs_worker``,
  as ``./workbench.sh serve`` starts them after its setup; 25 assessors x 60 documents.

    python benchmarks/load_judging.py --scenario all          # the README table
    python benchmarks/load_judging.py --assessors 10 --docs 20 --think 0.2

Requires PostgreSQL (``--postgres``, default the local server) and gunicorn. Only loopback is used.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
LOAD_DB = "workbench_load"
PASSWORD = "load-test-password"
TIMEOUT = 30.0
SECRET = "load-test-secret-key-" + "x" * 40
# the goals: p95 / p99 of save-and-next in ms (None: not set)
GOALS: dict[str, tuple[float, float | None]] = {
    "pg-50": (50.0, None),
    "pg-200": (100.0, 250.0),
    "pg-50-busy": (100.0, None),
    "sqlite-25": (100.0, None),
}
SCENARIOS: dict[str, dict[str, Any]] = {
    "pg-50": {"server": "gunicorn", "assessors": 50, "docs": 60, "arrival": 0.0, "busy": False},
    "pg-200": {"server": "gunicorn", "assessors": 200, "docs": 30, "arrival": 60.0, "busy": False},
    "pg-50-busy": {"server": "gunicorn", "assessors": 50, "docs": 60, "arrival": 0.0, "busy": True},
    "sqlite-25": {"server": "runserver", "assessors": 25, "docs": 60, "arrival": 0.0, "busy": False},
}
BUSY_RUNS, BUSY_DEPTH = 100, 1000


def readme_gunicorn_options() -> list[str]:
    """The options of README "Deploying"'s gunicorn command line, ``--bind`` left out."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Deploying") :]
    line = next(ln for ln in section.splitlines() if ln.startswith("gunicorn workbench.wsgi"))
    words = shlex.split(line.split("#")[0].replace("&", ""))[2:]
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word == "--bind":
            skip = True
        else:
            out.append(word)
    return out


# ------------------------------------------------------------------------------------ the data


def fresh_postgres(server_url: str) -> str:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {LOAD_DB} WITH (FORCE)")
        con.execute(f"CREATE DATABASE {LOAD_DB}")
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{LOAD_DB}"))


def setup_campaign(assessors: int, docs: int, workdir: Path, busy: bool) -> list[tuple[str, int]]:
    """The campaign, through the services: returns (username, assignment id) per assessor. Busy:
    100 more runs to evaluate, and a machine judge assigned every pooled document."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workbench.settings")
    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from campaigns.models import Document, Membership, Topic
    from campaigns.services import campaign_create, runs_import, topics_import
    from judging.services import assignments_create
    from pooling.services import pool_build, pool_commit
    from pooling.spec import PoolSpec

    call_command("migrate", verbosity=0)
    topics = workdir / "topics.tsv"
    topics.write_text("".join(f"{t}\tload topic {t}\n" for t in range(1, assessors + 1)))
    run = workdir / "load.run"
    with run.open("w") as lines:
        for t in range(1, assessors + 1):
            for r in range(1, docs + 1):
                lines.write(f"{t} Q0 LOAD-{t:03d}-{r:04d} {r} {1000 - r / 10:.3f} load\n")
    campaign = campaign_create(slug="load", name="Load test")
    topics_import(campaign=campaign, path=topics)
    runs_import(campaign=campaign, paths=[run])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="all", spec=PoolSpec("depth", depth=docs)))
    text = " ".join(["pooling relevance assessor judgment document evaluation"] * 40)
    Document.objects.bulk_create(
        Document(campaign=campaign, docno=f"LOAD-{t:03d}-{r:04d}", title=f"Document {t}/{r}", text=text)
        for t in range(1, assessors + 1)
        for r in range(1, docs + 1)
    )
    hashed = make_password(PASSWORD)  # one hash for all (Argon2id): creating the accounts stays quick
    users = User.objects.bulk_create(
        User(username=f"assessor{i:03d}", password=hashed) for i in range(assessors)
    )
    Membership.objects.bulk_create(Membership(campaign=campaign, user=u, role="assessor") for u in users)
    out = []
    for user, topic in zip(users, Topic.objects.filter(campaign=campaign).order_by("id"), strict=True):
        (assignment,) = assignments_create(
            campaign=campaign, pool=pool, assessors=[user], topics=[topic], order="docno"
        )
        out.append((user.username, assignment.pk))
    if busy:
        busy_setup(campaign, pool, workdir, assessors)
    return out


def busy_setup(campaign: Any, pool: Any, workdir: Path, topics: int) -> None:
    """100 runs of ``topics`` x 1000 documents to evaluate, and the machine judge (not started)."""
    from campaigns.services import runs_import
    from judging.llm.config import JudgeConfig
    from judging.services import assignments_create
    from judging.services.machine import declared_endpoints, machine_judge_create

    rng = random.Random(7)
    paths = []
    for k in range(BUSY_RUNS):
        path = workdir / f"busy{k:03d}.run"
        with path.open("w") as lines:
            for t in range(1, topics + 1):
                order = list(range(1, BUSY_DEPTH + 1))
                rng.shuffle(order)
                lines.writelines(
                    f"{t} Q0 LOAD-{t:03d}-{r:04d} {rank} {BUSY_DEPTH - rank} busy{k:03d}\n"
                    for rank, r in enumerate(order, 1)
                )
        paths.append(path)
    runs_import(campaign=campaign, paths=paths)
    config = JudgeConfig(declared_endpoints()["fake"], "fake-1", requests_per_minute=100_000, concurrency=2)
    judge = machine_judge_create(campaign=campaign, username="machine", config=config)
    assignments_create(campaign=campaign, pool=pool, assessors=[judge.user], order="docno")


def busy_start() -> None:
    """Queue the machine judge's run and the first evaluation (the workers pick them up)."""
    from django.contrib.auth.models import User

    from campaigns.models import Campaign
    from judging.models import MachineJudge
    from judging.services.machine import machine_judging_start

    owner = User.objects.create_user("load-organizer", password=None)
    machine_judging_start(judge=MachineJudge.objects.get(user__username="machine"), user=owner)
    evaluation_again(Campaign.objects.get(slug="load"), owner)


def evaluation_again(campaign: Any, user: Any) -> Any:
    from metrics.services import evaluation_enqueue
    from metrics.sources import JudgmentSource

    return evaluation_enqueue(campaign=campaign, source=JudgmentSource(kind="consensus"), user=user)


def keep_evaluating(stop: threading.Event, counts: dict[str, int]) -> None:
    """Re-queue the evaluation of the 100 runs as soon as the last one finished (a live leaderboard)."""
    from django.contrib.auth.models import User
    from django.db import connection

    from campaigns.models import Campaign
    from jobs.models import Job
    from metrics.evaluations import EVALUATE_JOB

    campaign = Campaign.objects.get(slug="load")
    owner = User.objects.get(username="load-organizer")
    try:
        while not stop.wait(0.5):
            if not Job.objects.filter(kind=EVALUATE_JOB, status__in=("queued", "running")).exists():
                evaluation_again(campaign, owner)
        counts["evaluations"] = Job.objects.filter(kind=EVALUATE_JOB, status="done").count()
        counts["machine"] = _machine_judged()
    finally:
        connection.close()


def _machine_judged() -> int:
    from judging.models import Judgment

    return Judgment.objects.filter(assessor__username="machine").count()


class FakeLLM:
    """An OpenAI-compatible chat-completions server on loopback: every answer '##final score: 1'
    after ``delay`` seconds (a model's latency)."""

    def __init__(self, delay: float = 0.2) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                time.sleep(delay)
                body = json.dumps(
                    {
                        "id": "load",
                        "object": "chat.completion",
                        "model": "fake-1",
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": "##final score: 1"},
                             "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107},
                    }
                ).encode()  # fmt: skip
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# ------------------------------------------------------------------------------------ the client


@dataclass
class Assessor:
    username: str
    assignment: int
    cookies: dict[str, str] = field(default_factory=dict)
    login_ms: list[float] = field(default_factory=list)
    page_ms: list[float] = field(default_factory=list)
    save_ms: list[float] = field(default_factory=list)
    next_ms: list[float] = field(default_factory=list)
    save_and_next_ms: list[float] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    timeouts: int = 0


class Http:
    """One keep-alive connection with a cookie jar: an assessor's browser tab behind the proxy."""

    def __init__(self, host: str, port: int, who: Assessor, proxy_https: bool) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
        self.who = who
        self.extra = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"} if proxy_https else {}
        self.origin = f"{'https' if proxy_https else 'http'}://{host}:{port}"

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        hdrs = {**self.extra, **(headers or {})}
        if method != "GET":
            hdrs["Origin"] = self.origin
        if self.who.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.who.cookies.items())
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=hdrs)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if attempt:
                    raise
                self.conn.close()  # a keep-alive connection the server closed: reconnect once
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.who.cookies[name.strip()] = rest.split(";")[0]
        return response.status, data


STATE = re.compile(rb'<script id="assess-state" type="application/json">(.*?)</script>', re.S)


def run_assessor(
    host: str, port: int, who: Assessor, args: argparse.Namespace, seed: int, start_at: float, proxy: bool
) -> None:
    rng = random.Random(seed)
    time.sleep(max(0.0, start_at - time.perf_counter()))
    web = Http(host, port, who, proxy)
    api = f"/api/judging/assignments/{who.assignment}"
    try:
        status, page = web.request("GET", "/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert status == 200 and token, f"login page: {status}"
        form = urlencode(
            {"username": who.username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1).decode()}
        )
        t0 = time.perf_counter()
        status, _ = web.request(
            "POST", "/accounts/login/", form.encode(), {"Content-Type": "application/x-www-form-urlencoded"}
        )
        who.login_ms.append((time.perf_counter() - t0) * 1000)
        assert status == 302, f"login refused ({status})"
        t0 = time.perf_counter()
        status, html = web.request("GET", f"/judging/assignments/{who.assignment}/")
        who.page_ms.append((time.perf_counter() - t0) * 1000)
        found = STATE.search(html)
        assert status == 200 and found, f"judging page: {status}"
        items = json.loads(found.group(1))["items"]
        held = {items[0]["position"]}  # the page comes with its first document
        headers = {"Content-Type": "application/json", "X-CSRFToken": who.cookies["csrftoken"]}

        def fetch(position: int) -> float:
            t = time.perf_counter()
            code, _ = web.request("GET", f"{api}/items/{position}/")
            ms = (time.perf_counter() - t) * 1000
            who.next_ms.append(ms)
            if code != 200:
                who.errors.append(f"document {position}: {code}")
            else:
                held.add(position)
            return ms

        if args.client == "page" and len(items) > 1:
            fetch(items[1]["position"])  # the page reads one ahead when it opens
        for i, item in enumerate(items):
            time.sleep(rng.uniform(0.5 * args.think, 1.5 * args.think))  # reading the document
            grade = rng.choice((0, 0, 1, 2))
            data: dict[str, Any] = {
                "position": item["position"],
                "grade": grade,
                "active_ms": rng.randint(500, 9000),
            }
            ahead = items[i + 2]["position"] if args.client == "page" and i + 2 < len(items) else None
            if ahead is not None:
                data["document"] = ahead
            payload = json.dumps(data).encode()
            start = time.perf_counter()
            status, body = web.request("POST", f"{api}/judgments/", payload, headers)
            if status != 200:
                who.errors.append(f"save {item['docno']}: {status} {body[:200]!r}")
                continue
            who.sent[item["docno"]] = grade
            carried = json.loads(body).get("document")
            if carried:
                held.add(carried["position"])
            elif ahead is not None:
                who.errors.append(f"save {item['docno']}: the document asked for did not come")
            if rng.random() < args.double:  # a double click: the same judgment again
                web.request("POST", f"{api}/judgments/", payload, headers)
            saved = time.perf_counter()
            who.save_ms.append((saved - start) * 1000)
            waited = saved - start
            if i + 1 < len(items) and items[i + 1]["position"] not in held:
                waited += fetch(items[i + 1]["position"]) / 1000
            who.save_and_next_ms.append(waited * 1000)
    except TimeoutError:
        who.timeouts += 1
        who.errors.append("timeout: no answer within 30 s")
    except Exception as exc:  # reported with the results
        who.errors.append(f"{type(exc).__name__}: {exc}")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def verify(people: list[Assessor]) -> list[str]:
    from judging.models import Judgment, JudgmentEvent

    names = [p.username for p in people]
    mine = Judgment.objects.filter(assessor__username__in=names)
    problems = []
    stored = {(u, d): g for u, d, g in mine.values_list("assessor__username", "docno", "grade")}
    sent = {(p.username, d): g for p in people for d, g in p.sent.items()}
    if len(stored) != mine.count():
        problems.append("duplicate current judgments")
    missing = sent.keys() - stored.keys()
    extra = stored.keys() - sent.keys()
    wrong = [k for k in sent.keys() & stored.keys() if sent[k] != stored[k]]
    events = JudgmentEvent.objects.filter(assessor__username__in=names).count()
    if missing:
        problems.append(f"{len(missing)} judgments lost")
    if extra:
        problems.append(f"{len(extra)} judgments nobody sent")
    if wrong:
        problems.append(f"{len(wrong)} judgments with another grade than sent")
    if events != len(sent):
        problems.append(f"{events} history events for {len(sent)} judgments (double submits must add none)")
    return problems


# ------------------------------------------------------------------------------------ the servers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(port: int, procs: list[subprocess.Popen[bytes]], proxy: bool) -> None:
    deadline = time.monotonic() + 60
    headers = {"X-Forwarded-Proto": "https"} if proxy else {}
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/accounts/login/", headers=headers)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            raise SystemExit("the server did not start")
        time.sleep(0.2)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def scenario_run(name: str, spec: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """One scenario from a fresh database to its checked figures."""
    port = _free_port()
    llm = FakeLLM() if spec["busy"] else None
    tmp = Path(tempfile.mkdtemp(prefix="load-judging-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "DJANGO_", "DATABASE_URL"))}
    env.update(
        WORKBENCH_UPLOAD_DIR=str(tmp / "uploads"), XDG_DATA_HOME=str(tmp / "data"), PYTHONUNBUFFERED="1"
    )
    if llm is not None:
        env["WORKBENCH_JUDGE_ENDPOINTS"] = json.dumps(
            {"fake": {"base_url": llm.base_url, "allow_private": True}}
        )
    proxy = spec["server"] == "gunicorn"
    if proxy:
        env["DATABASE_URL"] = fresh_postgres(args.postgres)
    else:
        env["WORKBENCH_SQLITE_PATH"] = str(tmp / "workbench.sqlite3")
    # the setup runs in this process, then the servers get the production environment
    os.environ.update(env)
    t0 = time.perf_counter()
    plan = setup_campaign(spec["assessors"], spec["docs"], tmp, spec["busy"])
    print(f"[{name}] campaign ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    from django.db import connections

    connections.close_all()
    if proxy:  # README "Deploying"'s production mode behind a proxy
        env.update(
            WORKBENCH_ENV="production",
            WORKBENCH_ALLOWED_HOSTS="127.0.0.1",
            WORKBENCH_CSRF_TRUSTED_ORIGINS=f"https://127.0.0.1:{port}",
            WORKBENCH_BEHIND_PROXY="1",
            WORKBENCH_SECRET_KEY=SECRET,
            WORKBENCH_STATIC_ROOT=str(tmp / "static"),
        )
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"], cwd=ROOT, env=env, check=True
        )
        env.update(dict(item.split("=", 1) for item in args.env))
        web_cmd = [sys.executable, "-m", "gunicorn", "workbench.wsgi", "--bind", f"127.0.0.1:{port}",
                   *(args.gunicorn or readme_gunicorn_options()), "--log-level", "warning"]  # fmt: skip
    else:  # as ./workbench.sh serve: runserver (with its autoreloader) and a worker
        env.update(dict(item.split("=", 1) for item in args.env))
        web_cmd = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}"]
    workers = 2 if spec["busy"] else 1
    log = (tmp / "server.log").open("wb")
    procs = [
        subprocess.Popen(
            web_cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    ]
    for _ in range(workers):
        procs.append(
            subprocess.Popen([sys.executable, "manage.py", "jobs_worker"], cwd=ROOT, env=env, stdout=log,
                             stderr=subprocess.STDOUT, start_new_session=True)
        )  # fmt: skip
    stop = threading.Event()
    busy_counts: dict[str, int] = {}
    evaluator = None
    try:
        _wait_up(port, procs, proxy)
        if spec["busy"]:
            busy_start()
            evaluator = threading.Thread(target=keep_evaluating, args=(stop, busy_counts))
            evaluator.start()
            time.sleep(2)  # the workers have started both
        people = [Assessor(u, pk) for u, pk in plan]
        load_before = os.getloadavg()
        begin = time.perf_counter() + 0.5
        gap = spec["arrival"] / max(1, len(people) - 1) if spec["arrival"] else 0.0
        threads = [
            threading.Thread(
                target=run_assessor,
                args=("127.0.0.1", port, p, args, args.seed + i, begin + i * gap, proxy),
            )
            for i, p in enumerate(people)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - begin
        load_after = os.getloadavg()
    finally:
        stop.set()
        if evaluator is not None:
            evaluator.join()
        _stop(procs)
        log.close()
        if llm is not None:
            llm.close()
    problems = verify(people)
    judged = sum(len(p.save_and_next_ms) for p in people)

    def pick(attr: str) -> list[float]:
        return [x for p in people for x in getattr(p, attr)]

    return {
        "name": name,
        "spec": spec,
        "wall": wall,
        "judged": judged,
        "planned": spec["assessors"] * spec["docs"],
        "rate": judged / wall,
        "login": pick("login_ms"),
        "page": pick("page_ms"),
        "save": pick("save_ms"),
        "next": pick("next_ms"),
        "both": pick("save_and_next_ms"),
        "logged_in": sum(1 for p in people if p.login_ms and not any("login" in e for e in p.errors)),
        "errors": [e for p in people for e in p.errors],
        "timeouts": sum(p.timeouts for p in people),
        "problems": problems,
        "load": (load_before[0], load_after[0]),
        "busy": busy_counts,
    }


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return " / ".join(f"{percentile(values, p):.0f}" for p in (50, 95, 99))


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| scenario | server | judged | judgments/s | login p50 / p95 / p99 ms | save | next | "
        "save-and-next | goal (p95 / p99) | errors, timeouts | database check |",
        "|---|---|---:|---:|---|---|---|---|---|---|---|",
    ]
    for r in results:
        s = r["spec"]
        who = f"{s['assessors']} assessors x {s['docs']} docs" + (
            f", arriving within {s['arrival']:.0f} s" if s["arrival"] else ""
        )
        if s["busy"]:
            done = r["busy"]
            who += (
                f", worker busy ({done.get('evaluations', 0)} evaluations of 100 runs, "
                f"machine judge {done.get('machine', 0)} judgments)"
            )
        server = "PostgreSQL, gunicorn" if s["server"] == "gunicorn" else "SQLite, runserver"
        goal = GOALS.get(r["name"])
        both = r["both"]
        met = "-"
        if goal is not None:
            p95, p99 = percentile(both, 95), percentile(both, 99)
            ok = (
                p95 < goal[0] and (goal[1] is None or p99 < goal[1]) and not r["errors"] and not r["problems"]
            )
            met = (
                f"< {goal[0]:.0f}"
                + (f" / < {goal[1]:.0f}" if goal[1] else "")
                + (": met" if ok else ": NOT met")
            )
        check = "every judgment stored once, grade as sent" if not r["problems"] else "; ".join(r["problems"])
        lines.append(
            f"| {r['name']}: {who} | {server} | {r['judged']:,} of {r['planned']:,} in {r['wall']:.0f} s "
            f"| {r['rate']:.1f} | {_ms(r['login'])} | {_ms(r['save'])} | {_ms(r['next'])} | {_ms(both)} "
            f"| {met} | {len(r['errors'])}, {r['timeouts']} | {check} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default=None, help="a standard scenario")
    parser.add_argument("--assessors", type=int, default=50)
    parser.add_argument("--docs", type=int, default=60, help="documents per assessor")
    parser.add_argument("--arrival", type=float, default=0.0, help="seconds over which the assessors arrive")
    parser.add_argument(
        "--busy", action="store_true", help="workers evaluating and machine-judging meanwhile"
    )
    parser.add_argument("--server", choices=["gunicorn", "runserver"], default="gunicorn")
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds an assessor reads a document, uniform in 0.5x..1.5x (default 2: a very fast "
        "assessor; TREC assessors take tens of seconds)",
    )
    parser.add_argument("--client", choices=["page", "plain"], default="page",
                        help="page: reads ahead as the judging page; plain: save, then fetch")  # fmt: skip
    parser.add_argument("--double", type=float, default=0.05, help="share of saves sent twice")
    parser.add_argument("--gunicorn", nargs=argparse.REMAINDER, default=None,
                        help="gunicorn options instead of README's (put last)")  # fmt: skip
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="a server setting, WORKBENCH_CONN_MAX_AGE=0... (repeatable)")  # fmt: skip
    parser.add_argument(
        "--json", default=None, help=argparse.SUPPRESS
    )  # a scenario's figures, for --scenario all
    args = parser.parse_args()

    if args.scenario is None:
        names = ["custom"]
        SCENARIOS["custom"] = {
            k: getattr(args, k) for k in ("server", "assessors", "docs", "arrival", "busy")
        }
    else:
        names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    results = []
    for name in names:
        if len(names) > 1:  # each scenario in a process of its own: Django is set up once per process
            out = Path(tempfile.mkdtemp(prefix="load-judging-")) / "result.json"
            cmd = [sys.executable, __file__, "--scenario", name, "--think", str(args.think), "--client",
                   args.client, "--double", str(args.double), "--postgres", args.postgres, "--seed",
                   str(args.seed), "--json", str(out), *(f"--env={e}" for e in args.env)]  # fmt: skip
            subprocess.run(cmd, check=False)
            results.append(json.loads(out.read_text()))
            continue
        result = scenario_run(name, SCENARIOS[name], args)
        results.append(result)
        if args.json:
            Path(args.json).write_text(json.dumps(result))
    cores = os.cpu_count()
    print(
        f"\n{cores} cores ({platform.processor() or platform.machine()}), "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}; "
        f"think {args.think} s, client {args.client}; "
        f"gunicorn {' '.join(args.gunicorn or readme_gunicorn_options())}"
        + (f"; {' '.join(args.env)}" if args.env else "")
    )
    print(table(results))
    for r in results:
        print(f"- {r['name']}: load average {r['load'][0]:.2f} before, {r['load'][1]:.2f} after; "
              f"judging page p50/p95/p99 {_ms(r['page'])} ms; "
              f"logged in {r['logged_in']} of {r['spec']['assessors']}")  # fmt: skip
        for e in r["errors"][:5]:
            print(f"  error: {e}")
    ok = all(not r["errors"] and not r["problems"] for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
