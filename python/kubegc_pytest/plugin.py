"""The pytest fixture ``kubegc``: a ``kubegc serve`` of the test's own, stopped after it."""

import pytest

from .served import Served


@pytest.fixture
def kubegc():
    """A running ``kubegc_pytest.Served``: ``.api_client``, ``.kubeconfig``, ``.settle()``."""
    with Served.start() as served:
        yield served
