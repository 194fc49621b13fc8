"""``hookgrad.backends.mps``: Apple's Metal backend, which hookgrad does not have."""

from __future__ import annotations


def is_available() -> bool:
    """False: hookgrad has no MPS backend."""
    return False


def is_built() -> bool:
    """False: hookgrad is not built with MPS."""
    return False
