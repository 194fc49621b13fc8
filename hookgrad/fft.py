"""``hookgrad.fft``: torch's ``torch.fft``, for ``import hookgrad as torch``.

The discrete Fourier transforms (``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``,
``ihfft`` and their ``2``/``n``-dimensional forms) with ``n``/``s``, ``dim`` and ``norm``
(``"backward"``, ``"ortho"``, ``"forward"``), and the helpers ``fftfreq``, ``rfftfreq``,
``fftshift``, ``ifftshift``. Transforms are differentiable with torch's nodes
(``FftC2CBackward0``, ``FftR2CBackward0``, ``FftC2RBackward0``); float32 input gives
complex64. They live in ``hookgrad.tensor.functions.fft``. Example::

    import hookgrad as torch

    x = torch.randn(8, requires_grad=True)
    spectrum = torch.fft.rfft(x)              # 5 complex frequencies
    spectrum.abs().pow(2).sum().backward()    # x.grad = 2 * 8 * x, by Parseval
"""

from hookgrad.tensor.functions.fft import (
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "Tensor",
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]
