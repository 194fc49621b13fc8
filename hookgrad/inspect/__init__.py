"""``python -m hookgrad.inspect SCRIPT [ARGS...]``: run an unmodified PyTorch script on
hookgrad and write the gradient-inspection report of the model it trains.

Every ``import torch`` (and ``torch.nn``, ``torch.utils.data`` ...) of the script gets
hookgrad (``aliasing``); the models the script trains are found and watched by global
hooks (``session``); the report has the demo's sections for that model (``report``).
The command line is ``cli``; ``hookgrad-inspect`` is the same command.
"""

from hookgrad.inspect.cli import main

__all__ = ["main"]
