"""``hookgrad.utils.hooks``: the handle every ``register_*`` call returns."""

from hookgrad.hooks import RemovableHandle

__all__ = ["RemovableHandle"]
