"""``hookgrad.func``: torch's ``torch.func`` (function transforms) -- being built."""

from hookgrad.func.vmap import vmap

__all__ = ["vmap"]
