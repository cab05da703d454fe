from __future__ import annotations

import pytest

from tests.irds.local_datasets import register_demo_subset


@pytest.fixture(scope="session")
def demo_dataset(tmp_path_factory) -> str:
    """The shipped Cranfield demo subset registered with ir_datasets (its id)."""
    return register_demo_subset(tmp_path_factory.mktemp("irds-demo"))
