"""The size limits of uploaded files, from the settings (with defaults a server can live with).

``WORKBENCH_MAX_UPLOAD_BYTES``: one uploaded file as it arrives (default 2 GiB).
``WORKBENCH_MAX_DECOMPRESSED_BYTES``: one file once gunzipped (default 2 GiB); documents are read
in batches, so this bounds time and disk, not memory.
``WORKBENCH_MAX_PARSED_BYTES``: one runs, topics or judgments file once gunzipped (default
100 MiB): those are parsed whole in memory, about 4x their size at peak, so this keeps reading
one under 500 MB. A few MB of gzip can expand to gigabytes: sizes are checked by streaming the
file, in bounded memory, before anything parses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from campaigns.errors import ImportRefused
from trec import FormatError
from trec.io import expanded_size

MIB = 1024**2
GIB = 1024**3


def max_upload_bytes() -> int:
    return int(getattr(settings, "WORKBENCH_MAX_UPLOAD_BYTES", 2 * GIB))


def max_decompressed_bytes() -> int:
    return int(getattr(settings, "WORKBENCH_MAX_DECOMPRESSED_BYTES", 2 * GIB))


def max_parsed_bytes() -> int:
    return int(getattr(settings, "WORKBENCH_MAX_PARSED_BYTES", 100 * MIB))


def files_size_check(paths: Sequence[str], names: Sequence[str], *, parsed: bool) -> None:
    """Refuse, naming them, the files whose content (decompressed) is over the limit: the limit
    of files parsed whole in memory when ``parsed`` (runs, topics, judgments), else the general one."""
    decompressed = max_decompressed_bytes()
    limit, setting = decompressed, "WORKBENCH_MAX_DECOMPRESSED_BYTES"
    if parsed and max_parsed_bytes() < decompressed:
        limit, setting = max_parsed_bytes(), "WORKBENCH_MAX_PARSED_BYTES"
    problems = []
    for path, name in zip(paths, names, strict=True):
        try:
            expanded_size(path, limit)
        except FormatError as exc:
            problems.append(f"{name}: {exc.message}, over the server's limit ({setting})")
    if problems:
        raise ImportRefused(problems)
