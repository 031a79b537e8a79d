"""Fixtures of the judging services' tests: a committed depth-5 pool of the loaded campaign."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec


@pytest.fixture
def pool(loaded: Campaign) -> Pool:
    return pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
