"""Checkpoints, as ``torch.serialization``: ``save`` and ``load`` in torch's file format,
read safely by default, the ``weights_only`` allowlist (``add_safe_globals``,
``safe_globals``), and the safetensors format (``hookgrad.serialization.safetensors``).

This package sits above ``nn`` (a checkpoint rebuilds ``nn.Parameter``) and never imports
torch. Example::

    hookgrad.save(model.state_dict(), "model.pt")        # torch.load reads it
    model.load_state_dict(hookgrad.load("model.pt"))     # and torch.save's files load here
"""

from hookgrad.serialization.allowlist import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)
from hookgrad.serialization.checkpoint import DEFAULT_PROTOCOL, load, save

__all__ = [
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]
