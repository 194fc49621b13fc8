"""Shared fixtures: the torch oracle.

torch is a test dependency, not an optional one: without it the suite fails at collection
instead of passing on the tests that happen not to need it.
"""

import pytest
import torch as _torch

import hookgrad


@pytest.fixture
def torch():
    """PyTorch, the reference implementation."""
    return _torch


@pytest.fixture
def hg():
    return hookgrad
