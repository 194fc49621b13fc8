"""Anomaly mode state: whether nodes record the forward stack that created them.

The user-facing switches (``detect_anomaly``, ``set_detect_anomaly``) live in
``hookgrad.autograd``. While anomaly mode is on, every new node stores the Python stack
of its creation in ``node.metadata["traceback_"]``, and a node created while the engine
runs another one (``create_graph=True``) stores that one as ``metadata["parent_"]``.
The engine checks backward results for NaN and, when a node fails, calls
:func:`report_error`, which warns with those stacks as torch does.
"""

from __future__ import annotations

import os
import threading
import traceback
import warnings
from typing import Any


class _AnomalyState:
    """Process-wide, as torch's anomaly mode is."""

    enabled = False
    check_nan = True


state = _AnomalyState()


class _Evaluating(threading.local):
    """The node the engine is running on this thread (anomaly mode only)."""

    node: Any = None


_evaluating = _Evaluating()

_HOOKGRAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Frames of these parts of hookgrad are plumbing between the user's call and the node:
# dropped from the end of a recorded stack, so it ends where the user's code made the op.
_PLUMBING = tuple(
    os.path.join(_HOOKGRAD_DIR, part) for part in ("tensor", "ops", "graph", "autograd")
)

_NO_INFORMATION = (
    "No forward pass information available. Enable detect anomaly during forward pass for "
    "more information."
)


def record_creation(node: Any) -> None:
    """Store the creation stack (and the node being run, if any) in ``node.metadata``.

    Called only when anomaly mode is on.
    """
    frames = traceback.extract_stack()
    end = len(frames)
    while end and frames[end - 1].filename.startswith(_PLUMBING):
        end -= 1
    metadata = node.metadata
    metadata["traceback_"] = traceback.format_list(frames[:end])
    parent = _evaluating.node
    if parent is not None:
        metadata["parent_"] = parent


def set_evaluating(node: Any) -> Any:
    """Mark ``node`` as the one the engine runs on this thread; return the previous one."""
    previous = _evaluating.node
    _evaluating.node = node
    return previous


def report_error(node: Any) -> None:
    """Warn that ``node`` failed in backward, with the stacks that created it and its parents.

    One ``UserWarning`` for the node, then one per parent (torch's texts).
    """
    metadata = node._metadata or {}
    _warn_stack(node.name(), metadata.get("traceback_"), is_parent=False)
    parent = metadata.get("parent_")
    while parent is not None:
        parent_metadata = parent._metadata or {}
        _warn_stack(parent.name(), parent_metadata.get("traceback_"), is_parent=True)
        parent = parent_metadata.get("parent_")


def _warn_stack(name: str, stack: list[str] | None, is_parent: bool) -> None:
    if stack is None:
        message = f"Error detected in {name}. {_NO_INFORMATION}"
    elif is_parent:
        message = (
            f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
            f"induced the previous calculation:\n{''.join(stack)}"
        )
    else:
        message = (
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            f"{''.join(stack)}"
        )
    warnings.warn(message, UserWarning, stacklevel=4)
