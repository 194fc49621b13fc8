"""``hookgrad.signal`` (torch's ``torch.signal``): signal-processing helpers; for now the
``windows`` of spectral analysis."""

from hookgrad.signal import windows

__all__ = ["windows"]
