"""Topics: TREC ``<top>`` blocks, TSV ``qid<TAB>title[<TAB>description[<TAB>narrative]]`` and JSON lines."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from trec.errors import FormatError
from trec.io import READ_ERRORS, PathLike, open_binary
from trec.text import json_text_problem, nul_error, utf8_error

TOPIC_FORMATS = ("auto", "trec", "tsv", "jsonl")
_TAG = re.compile(r"<(/?)(top|num|title|desc|narr)>", re.IGNORECASE)
_LABELS = {
    "num": re.compile(r"^\s*Number\s*:\s*", re.IGNORECASE),
    "desc": re.compile(r"^\s*Description\s*:\s*", re.IGNORECASE),
    "narr": re.compile(r"^\s*Narrative\s*:\s*", re.IGNORECASE),
    "title": re.compile(r"^\s*Topic\s*:\s*", re.IGNORECASE),
}


@dataclass(frozen=True)
class Topic:
    number: str
    title: str
    description: str = ""
    narrative: str = ""
    # where the topic starts in the file it was read from (0: not read from a file); not part of
    # the topic's identity
    line: int = field(default=0, compare=False, repr=False)


def _clean(text: str) -> str:
    return " ".join(text.split())


def _parse_trec(text: str, path: str) -> list[tuple[int, Topic]]:
    topics: list[tuple[int, Topic]] = []
    fields: dict[str, str] = {}
    current: str | None = None
    start_line = 0
    in_top = False
    pos = 0
    line, counted = 1, 0
    for m in _TAG.finditer(text):
        # count newlines since the previous tag only: counting from 0 each time is quadratic
        line += text.count("\n", counted, m.start())
        counted = m.start()
        chunk = text[pos : m.start()]
        if current is not None:
            fields[current] = fields.get(current, "") + chunk
        elif in_top and chunk.strip():
            # report the line the stray text starts on, not the line of the tag after it
            stray = line - chunk.count("\n", len(chunk) - len(chunk.lstrip()))
            raise FormatError(path, stray, f"unexpected text outside a field: '{_clean(chunk)[:60]}'")
        pos = m.end()
        closing, tag = m.group(1) == "/", m.group(2).lower()
        if tag == "top":
            if closing:
                if not in_top:
                    raise FormatError(path, line, "</top> without a matching <top>")
                topics.append((start_line, _finish(fields, path, start_line)))
                in_top, current, fields = False, None, {}
            else:
                if in_top:
                    raise FormatError(path, line, "<top> inside another <top> (missing </top>?)")
                in_top, start_line, fields, current = True, line, {}, None
        elif not in_top:
            raise FormatError(path, line, f"<{tag}> outside a <top> block")
        else:
            current = None if closing else tag
    if in_top:
        raise FormatError(path, start_line, "<top> block is never closed with </top>")
    if not topics:
        raise FormatError(path, 0, "no <top> blocks found (expected a TREC topics file)")
    return topics


def _finish(fields: dict[str, str], path: str, line: int) -> Topic:
    values = {k: _clean(_LABELS[k].sub("", v) if k in _LABELS else v) for k, v in fields.items()}
    number = values.get("num", "")
    if not number:
        raise FormatError(path, line, "topic has no <num> (expected '<num> Number: 301')")
    if not values.get("title"):
        raise FormatError(path, line, f"topic {number} has no <title>")
    return Topic(number, values["title"], values.get("desc", ""), values.get("narr", ""))


def _lines(text: str) -> list[str]:
    # not str.splitlines(): it also breaks at U+0085, U+2028, \x1c... which may sit inside a title
    lines = text.split("\n")
    return [line.removesuffix("\r") for line in lines]


def _parse_tsv(text: str, path: str) -> list[tuple[int, Topic]]:
    topics = []
    for i, line in enumerate(_lines(text), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.rstrip("\r").split("\t")
        if len(cols) < 2 or len(cols) > 4 or not cols[0].strip() or not cols[1].strip():
            raise FormatError(path, i, "expected 'qid<TAB>title' (optionally <TAB>description<TAB>narrative)")
        cols += [""] * (4 - len(cols))
        topics.append((i, Topic(cols[0].strip(), _clean(cols[1]), _clean(cols[2]), _clean(cols[3]))))
    return topics


def _parse_jsonl(text: str, path: str) -> list[tuple[int, Topic]]:
    topics = []
    for i, line in enumerate(_lines(text), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            # integers kept as written: a topic id of 100,000 digits is refused for its length
            # (by the campaign's checks), not past what Python converts
            obj = json.loads(line, parse_int=str)
        except json.JSONDecodeError as exc:
            raise FormatError(path, i, f"expected a JSON object: {exc.msg}") from exc
        if not isinstance(obj, dict):
            raise FormatError(path, i, "expected a JSON object with 'qid' and 'title'")
        number = next((obj[k] for k in ("qid", "query_id", "number", "id", "num") if k in obj), None)
        title = next((obj[k] for k in ("title", "query", "text") if k in obj), None)
        if number is None or title is None or not str(number).strip():
            raise FormatError(path, i, "expected a JSON object with 'qid' and 'title'")
        topic = Topic(
            str(number).strip(),
            _clean(str(title)),
            _clean(str(obj.get("description", obj.get("desc", "")))),
            _clean(str(obj.get("narrative", obj.get("narr", "")))),
        )
        for value in (topic.number, topic.title, topic.description, topic.narrative):
            problem = json_text_problem(value, "a topics file")
            if problem is not None:
                raise FormatError(path, i, problem)
        topics.append((i, topic))
    return topics


def read_topics(path: PathLike, fmt: str = "auto") -> list[Topic]:
    """Read topics; ``fmt='auto'`` looks at the first non-blank character (``<``, ``{`` or else TSV)."""
    if fmt not in TOPIC_FORMATS:
        raise ValueError(f"unknown topics format {fmt!r}; expected one of {', '.join(TOPIC_FORMATS)}")
    with open_binary(path) as fh:
        try:
            raw = fh.read()
        except READ_ERRORS as exc:
            raise FormatError(str(path), 0, f"cannot read file: {exc}") from exc
    # docs/formats.md#bytes-and-encodings: no NUL byte, UTF-8
    error = nul_error(path, raw, 1, "a topics file") or utf8_error(path, raw, 1)
    if error is not None:
        raise error
    text = raw.decode("utf-8")
    if fmt == "auto":
        head = text.lstrip()[:1]
        fmt = "trec" if head == "<" else "jsonl" if head == "{" else "tsv"
    parser = {"trec": _parse_trec, "tsv": _parse_tsv, "jsonl": _parse_jsonl}[fmt]
    numbered = parser(text, str(path))
    if not numbered:
        raise FormatError(str(path), 0, f"no topics found (read as {fmt})")
    seen: dict[str, int] = {}
    for line, t in numbered:
        if t.number in seen:
            raise FormatError(
                str(path), line, f"topic '{t.number}' is defined twice (first on line {seen[t.number]})"
            )
        seen[t.number] = line
    return [replace(t, line=line) for line, t in numbered]


def write_topics(topics: list[Topic], path: PathLike, fmt: str = "trec") -> None:
    """Write topics as TREC ``<top>`` blocks, TSV or JSON lines (``read_topics`` reads each back)."""
    from trec.io import open_text_out

    if fmt not in ("trec", "tsv", "jsonl"):
        raise ValueError(f"unknown topics format {fmt!r}; expected trec, tsv or jsonl")
    with open_text_out(path) as fh:
        for t in topics:
            if fmt == "trec":
                fh.write(
                    f"<top>\n<num> Number: {t.number}\n<title> {t.title}\n\n"
                    f"<desc> Description:\n{t.description}\n\n<narr> Narrative:\n{t.narrative}\n</top>\n\n"
                )
            elif fmt == "tsv":
                fields = [t.number, t.title, t.description, t.narrative]
                if any("\t" in f or "\n" in f for f in fields):
                    raise ValueError(
                        f"topic {t.number}: a field holds a tab or newline, which TSV cannot carry"
                    )
                fh.write("\t".join(fields) + "\n")
            else:
                record = {
                    "qid": t.number,
                    "title": t.title,
                    "description": t.description,
                    "narrative": t.narrative,
                }
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
