"""``hookgrad.utils``: hook handles, activation checkpointing and (later) data,
visualisation and diagnostics."""

from hookgrad.utils import checkpoint, hooks

__all__ = ["checkpoint", "hooks"]
