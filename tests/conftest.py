"""Shared fixtures: the torch oracle (skipped when torch is absent)."""

import pytest

import hookgrad


@pytest.fixture
def torch():
    """PyTorch, the reference implementation; tests using it skip without it."""
    return pytest.importorskip("torch")


@pytest.fixture
def hg():
    return hookgrad
