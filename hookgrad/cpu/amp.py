"""``hookgrad.cpu.amp``: torch's deprecated CPU spellings of ``hookgrad.amp``; each warns
as torch's do, then works as ``autocast("cpu")`` and ``GradScaler("cpu")``."""

from __future__ import annotations

from hookgrad.amp.deprecated import spellings

__all__ = ["GradScaler", "autocast"]

autocast, GradScaler = spellings("cpu")
