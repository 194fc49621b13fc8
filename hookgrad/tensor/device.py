"""``device``: hookgrad runs on the CPU only; the type exists for API compatibility."""

from __future__ import annotations

from typing import Any


class device:
    """A device; only ``"cpu"`` exists. ``device("cpu") == "cpu"`` is True."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any = "cpu", index: Any = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        if type != "cpu":
            raise RuntimeError(f"hookgrad runs on the CPU only; got device '{type}'")
        self.type = "cpu"
        self.index = index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == "cpu"
        return isinstance(other, device)

    def __hash__(self) -> int:
        return hash("cpu")

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"


cpu = device("cpu")
