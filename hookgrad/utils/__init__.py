"""``hookgrad.utils``: hook handles and (later) data, visualisation and diagnostics."""

from hookgrad.utils import hooks

__all__ = ["hooks"]
