"""The migrations describe the models exactly: a changed field, default or index with no migration
fails here (and in .ci/run), not on an operator's first ``migrate`` after an upgrade."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_models_need_no_new_migration() -> None:
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:
        why = f"makemigrations exited {exit_.code}"
        pytest.fail(f"the models differ from their migrations ({why}):\n{out.getvalue()}")
