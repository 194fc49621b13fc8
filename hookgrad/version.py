"""``hookgrad.version``: the version, and the GPU toolkits built in (none), as
``torch.version`` gives them."""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "hip"]

__version__ = "0.1.0"
cuda: str | None = None  # the CUDA version built with: none
hip: str | None = None  # the ROCm version built with: none
debug = False
