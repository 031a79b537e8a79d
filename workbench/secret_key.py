"""The secret key: from WORKBENCH_SECRET_KEY, else a key file outside the repository made on first start.

The key signs sessions, password-reset links and CSRF tokens, so a key anyone can read in the
repository lets anyone forge them. No key is ever written in the code: the first start generates
one into ``WORKBENCH_SECRET_KEY_FILE`` (default ``$XDG_DATA_HOME/relevance-workbench/secret_key``,
``~/.local/share/...`` without XDG_DATA_HOME), readable by its owner only, and later starts read it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

# keys that were public at some point (this project's old default) or are placeholders: refused in
# production mode even when set on purpose
KNOWN_KEYS = frozenset({"dev-only-insecure-key-change-me-for-any-deployment", "changeme", "secret"})
MIN_LENGTH = 50  # what `manage.py check --deploy` asks of a key (with 5 distinct characters)


def secret_key_path() -> Path:
    explicit = os.environ.get("WORKBENCH_SECRET_KEY_FILE")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "relevance-workbench" / "secret_key"


def secret_key_load(*, production: bool) -> str:
    """The key to use; in production mode a known, short or ``django-insecure-`` key refuses to start."""
    key = os.environ.get("WORKBENCH_SECRET_KEY", "").strip()
    source = "WORKBENCH_SECRET_KEY"
    if not key:
        path = secret_key_path()
        source = str(path)
        key = _read_or_create(path)
    if production and (
        key in KNOWN_KEYS or key.startswith("django-insecure") or len(key) < MIN_LENGTH or len(set(key)) < 5
    ):
        raise ImproperlyConfigured(
            f"WORKBENCH_ENV=production refuses the secret key from {source}: it is a known or weak key; "
            f"unset WORKBENCH_SECRET_KEY to have one generated, or set one of {MIN_LENGTH}+ random characters"
        )
    return key


def _read_or_create(path: Path) -> str:
    if path.is_file():
        key = path.read_text().strip()
        if key:
            return key
        raise ImproperlyConfigured(f"the secret key file {path} is empty: delete it to have one generated")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # written whole into a private temporary file, then linked into place: a process starting at
        # the same moment (the web server and the worker) either wins or reads the winner's key
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")  # mode 0600
        try:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(64) + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"cannot create the secret key file {path} ({exc}): set WORKBENCH_SECRET_KEY, "
            "or WORKBENCH_SECRET_KEY_FILE to a writable place"
        ) from exc
    return path.read_text().strip()
