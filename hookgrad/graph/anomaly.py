"""Anomaly mode state: whether nodes record the forward stack that created them.

The user-facing switches (``detect_anomaly``, ``set_detect_anomaly``) live in
``hookgrad.autograd``; the engine reads ``state`` to check backward results for NaN.
"""

from __future__ import annotations

import traceback
from typing import Any


class _AnomalyState:
    """Process-wide, as torch's anomaly mode is."""

    enabled = False
    check_nan = True


state = _AnomalyState()


def record_creation(node: Any) -> None:
    """Store the current Python stack in ``node.metadata`` (called only when enabled)."""
    node.metadata["traceback_"] = traceback.format_stack()[:-2]
