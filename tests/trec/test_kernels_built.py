"""Under CI the install has built the compiled kernels (so their tests ran rather than skipped)."""

from __future__ import annotations

import os

import pytest

from trec import kernels


@pytest.mark.skipif(not os.environ.get("CI"), reason="under CI the install must have built them")
def test_ci_installs_the_compiled_kernels() -> None:
    """``pip install -e .`` builds trec/_kernels.c; the build is optional (a machine without a C
    compiler still installs), so a failed build would be silent: CI, which has gcc, proves it
    was built rather than skipping every test of tests/trec/test_kernels.py."""
    assert kernels._lib is not None
