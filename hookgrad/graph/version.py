"""``VersionCounter``: how many in-place changes a block of data has seen.

Shared by a tensor, its views and its detached aliases; a saved tensor records the count
at save time and refuses to unpack once it changed.
"""

from __future__ import annotations


class VersionCounter:
    """A mutable count of in-place changes, shared by tensors that share data."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0
