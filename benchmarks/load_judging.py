"""Load test of judging: many assessors saving judgments through the real HTTP endpoints at once.

Builds a campaign in a fresh PostgreSQL database (one topic of ``--docs`` pooled documents per
assessor), starts the workbench under gunicorn, and runs ``--assessors`` simulated assessors, each
in its own thread with its own session: log in through the login form, read the assignment, then
for every document save the judgment (POST) and fetch the next document (GET), with a random
pause in between for reading (``--think`` seconds on average, 2 s by default: a very fast
assessor). A share of the saves is sent twice,
as a double click or a retry would. Reports throughput and the p50/p95/p99 latency of
save-and-next (the save plus the next document's fetch, what the assessor waits for after a key),
then checks the database: every judgment stored exactly once with the grade sent, one history
event per judgment.

    python benchmarks/load_judging.py                       # 50 assessors x 200 documents
    python benchmarks/load_judging.py --assessors 10 --docs 50 --think 0.1

Requires PostgreSQL (``--postgres``, default the local server) and gunicorn (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
LOAD_DB = "workbench_load"
PASSWORD = "load-test-password"
REQUIRED_P95_MS = 100.0


def fresh_database(server_url: str) -> str:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {LOAD_DB} WITH (FORCE)")
        con.execute(f"CREATE DATABASE {LOAD_DB}")
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{LOAD_DB}"))


def setup_campaign(assessors: int, docs: int, workdir: Path) -> list[tuple[str, int]]:
    """The campaign, through the services: returns (username, assignment id) per assessor."""
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
    hashed = make_password(PASSWORD)  # one hash for all: creating 50 accounts stays quick
    users = User.objects.bulk_create(
        User(username=f"assessor{i:02d}", password=hashed) for i in range(assessors)
    )
    Membership.objects.bulk_create(Membership(campaign=campaign, user=u, role="assessor") for u in users)
    out = []
    for user, topic in zip(users, Topic.objects.filter(campaign=campaign).order_by("id"), strict=True):
        (assignment,) = assignments_create(
            campaign=campaign, pool=pool, assessors=[user], topics=[topic], order="docno"
        )
        out.append((user.username, assignment.pk))
    return out


# ------------------------------------------------------------------------------------ the client


@dataclass
class Assessor:
    username: str
    assignment: int
    cookies: dict[str, str] = field(default_factory=dict)
    save_ms: list[float] = field(default_factory=list)
    next_ms: list[float] = field(default_factory=list)
    save_and_next_ms: list[float] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class Http:
    """One keep-alive connection with a cookie jar: an assessor's browser tab."""

    def __init__(self, host: str, port: int, who: Assessor) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=30)
        self.who = who

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        hdrs = dict(headers or {})
        if self.who.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.who.cookies.items())
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=hdrs)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                if attempt:
                    raise
                self.conn.close()  # a keep-alive connection the server closed: reconnect once
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.who.cookies[name.strip()] = rest.split(";")[0]
        return response.status, data


def run_assessor(host: str, port: int, who: Assessor, think: float, double: float, seed: int) -> None:
    rng = random.Random(seed)
    web = Http(host, port, who)
    try:
        status, page = web.request("GET", "/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert status == 200 and token, f"login page: {status}"
        form = urlencode(
            {"username": who.username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1).decode()}
        )
        status, _ = web.request(
            "POST", "/accounts/login/", form.encode(), {"Content-Type": "application/x-www-form-urlencoded"}
        )
        assert status == 302, f"login refused ({status})"
        status, body = web.request("GET", f"/api/judging/assignments/{who.assignment}/")
        assert status == 200, f"assignment state: {status} {body[:200]!r}"
        items = json.loads(body)["items"]
        headers = {"Content-Type": "application/json", "X-CSRFToken": who.cookies["csrftoken"]}
        status, _ = web.request(
            "GET", f"/api/judging/assignments/{who.assignment}/items/{items[0]['position']}/"
        )
        for i, item in enumerate(items):
            time.sleep(rng.uniform(0.5 * think, 1.5 * think))  # reading the document
            grade = rng.choice((0, 0, 1, 2))
            payload = json.dumps(
                {"position": item["position"], "grade": grade, "active_ms": rng.randint(500, 9000)}
            )
            start = time.perf_counter()
            status, body = web.request(
                "POST", f"/api/judging/assignments/{who.assignment}/judgments/", payload.encode(), headers
            )
            saved = time.perf_counter()
            if status != 200:
                who.errors.append(f"save {item['docno']}: {status} {body[:200]!r}")
                continue
            who.sent[item["docno"]] = grade
            if rng.random() < double:  # a double click: the same judgment again
                web.request(
                    "POST", f"/api/judging/assignments/{who.assignment}/judgments/", payload.encode(), headers
                )
                saved = time.perf_counter()
            if i + 1 < len(items):
                status, _ = web.request(
                    "GET", f"/api/judging/assignments/{who.assignment}/items/{items[i + 1]['position']}/"
                )
                if status != 200:
                    who.errors.append(f"next after {item['docno']}: {status}")
            done = time.perf_counter()
            who.save_ms.append((saved - start) * 1000)
            who.next_ms.append((done - saved) * 1000)
            who.save_and_next_ms.append((done - start) * 1000)
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

    problems = []
    stored = {(u, d): g for u, d, g in Judgment.objects.values_list("assessor__username", "docno", "grade")}
    sent = {(p.username, d): g for p in people for d, g in p.sent.items()}
    if len(stored) != Judgment.objects.count():
        problems.append("duplicate current judgments")
    missing = sent.keys() - stored.keys()
    extra = stored.keys() - sent.keys()
    wrong = [k for k in sent.keys() & stored.keys() if sent[k] != stored[k]]
    events = JudgmentEvent.objects.count()
    if missing:
        problems.append(f"{len(missing)} judgments lost")
    if extra:
        problems.append(f"{len(extra)} judgments nobody sent")
    if wrong:
        problems.append(f"{len(wrong)} judgments with another grade than sent")
    if events != len(sent):
        problems.append(f"{events} history events for {len(sent)} judgments (double submits must add none)")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--assessors", type=int, default=50)
    parser.add_argument("--docs", type=int, default=200, help="documents per assessor")
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds an assessor reads a document, uniform in 0.5x..1.5x (default 2: a very fast "
        "assessor; TREC assessors take tens of seconds)",
    )
    parser.add_argument("--double", type=float, default=0.05, help="share of saves sent twice")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    url = fresh_database(args.postgres)
    os.environ["DATABASE_URL"] = url
    os.environ["WORKBENCH_CONN_MAX_AGE"] = "60"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        plan = setup_campaign(args.assessors, args.docs, Path(tmp))
        print(
            f"campaign ready in {time.perf_counter() - t0:.1f} s: "
            f"{len(plan)} assessors x {args.docs} documents"
        )
    env = {**os.environ, "DATABASE_URL": url, "WORKBENCH_CONN_MAX_AGE": "60"}  # web processes run no tasks
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "workbench.wsgi", "--bind", f"127.0.0.1:{args.port}",
         "--workers", str(args.workers), "--threads", str(args.threads), "--worker-class", "gthread",
         "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                http.client.HTTPConnection("127.0.0.1", args.port, timeout=2).request(
                    "GET", "/accounts/login/"
                )
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        people = [Assessor(name, pk) for name, pk in plan]
        threads = [
            threading.Thread(
                target=run_assessor, args=("127.0.0.1", args.port, p, args.think, args.double, args.seed + i)
            )
            for i, p in enumerate(people)
        ]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    both = [x for p in people for x in p.save_and_next_ms]
    saves = [x for p in people for x in p.save_ms]
    fetches = [x for p in people for x in p.next_ms]
    errors = [e for p in people for e in p.errors]
    print(
        f"{len(people)} assessors, {len(both)} save-and-next in {wall:.1f} s: "
        f"{len(both) / wall:.1f} judgments/s"
    )
    print(f"{'latency ms':<16}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}")
    for name, values in (("save-and-next", both), ("save", saves), ("next document", fetches)):
        print(
            f"{name:<16}{percentile(values, 50):8.1f}{percentile(values, 95):8.1f}"
            f"{percentile(values, 99):8.1f}{max(values, default=float('nan')):8.1f}"
        )
    problems = verify(people)
    for e in errors[:10]:
        print("error:", e)
    print(
        "database check:",
        "every judgment stored exactly once, with the grade sent" if not problems else "; ".join(problems),
    )
    p95 = percentile(both, 95)
    ok = not problems and not errors and p95 < REQUIRED_P95_MS
    print(
        f"requirement (p95 save-and-next < {REQUIRED_P95_MS:.0f} ms, nothing lost): "
        f"{'met' if ok else 'NOT met'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
