"""``hookgrad.nn.attention``: the choice of kernel for ``scaled_dot_product_attention``
(torch's ``torch.nn.attention``): ``SDPBackend`` and the ``sdpa_kernel`` context manager.

hookgrad has one attention algorithm, torch's math form; ``sdpa_kernel`` records the
backends chosen (``enabled_backends()``) and restores them on exit, and changes nothing
else.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]

# torch warns why a fused kernel could not run when this is True; hookgrad runs none.
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The kernels torch may run ``scaled_dot_product_attention`` with."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = [
    SDPBackend.MATH,
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.CUDNN_ATTENTION,
    SDPBackend.OVERRIDEABLE,
]
_enabled: list[SDPBackend] = list(_ALL)


def enabled_backends() -> list[SDPBackend]:
    """The backends ``sdpa_kernel`` enabled (all of them outside one)."""
    return list(_enabled)


@contextlib.contextmanager
def sdpa_kernel(
    backends: list[SDPBackend] | SDPBackend, set_priority: bool = False
) -> Iterator[Any]:
    """Within the block, enable only ``backends`` (one ``SDPBackend`` or a list; with
    ``set_priority`` in that order of preference) for scaled dot product attention;
    the previous choice is restored on exit. Example::

        with sdpa_kernel(SDPBackend.MATH):
            F.scaled_dot_product_attention(q, k, v)
    """
    global _enabled
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    if isinstance(backends, SDPBackend):
        backends = [backends]
    previous = _enabled
    _enabled = list(dict.fromkeys(backends))
    try:
        yield {}
    finally:
        _enabled = previous
