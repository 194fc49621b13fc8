"""The short-time Fourier transforms ``stft`` and ``istft`` (top-level functions and
``Tensor`` methods, ``StftMethods``), with torch's arguments, padding modes, window
handling, checks and warnings, built on ``hookgrad.tensor.functions.fft``'s transforms so
that their gradients and graphs are torch's.

Example: ``hookgrad.stft(hookgrad.randn(64), 16, return_complex=True).shape`` is
``(9, 17)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hookgrad.ops import padding
from hookgrad.ops import shape as views
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.fft import c2c, c2r, r2c
from hookgrad.tensor.functions.padding import pad as pad_function

__all__ = ["istft", "stft"]


# ---------------------------------------------------------------- short-time transforms


def _stft_repr(
    x: Any,
    n_fft: int,
    hop_length: int,
    win_length: int,
    window: Any,
    normalized: bool,
    onesided: Any,
    return_complex: bool,
) -> str:
    """The call as torch's errors of ``stft`` show it."""
    shown = (
        "None"
        if window is None
        else f"torch.{dtypes.legacy_name(window.dtype)}Tensor{{{list(window.shape)}}}"
    )
    return (
        f"stft(torch.{dtypes.legacy_name(x.dtype)}Tensor{list(x.shape)}, n_fft={n_fft}, "
        f"hop_length={hop_length}, win_length={win_length}, window={shown}, "
        f"normalized={int(normalized)}, onesided={_optional(onesided)}, "
        f"return_complex={int(return_complex)}, align_to_window=None)"
    )


def _optional(value: Any) -> str:
    return "None" if value is None else str(int(value))


def stft(
    input: Any,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Any = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
) -> Any:
    """The short-time Fourier transform: the FFT of each windowed frame of ``n_fft``
    samples, ``hop_length`` (default ``n_fft // 4``) apart, of a 1-D signal or a batch
    (2-D); ``center`` pads ``n_fft // 2`` samples (``pad_mode``) on each side first. The
    result is (batch, freq, frames), complex (``return_complex=True``), or with a last
    dim of (real, imag) (``False``, deprecated). ``window`` (``win_length`` samples,
    centred in ``n_fft``) defaults to a rectangular one, with torch's warning.

    Example::

        x = hookgrad.randn(1000)
        spec = hookgrad.stft(x, 256, window=hookgrad.hann_window(256), return_complex=True)
        spec.shape        # torch.Size([129, 16])
    """
    if center:
        signal_dim = input.ndim
        extended = [1] * (3 - signal_dim) + list(input.shape)
        half = n_fft // 2
        padded = pad_function(input.view(*extended), [half, half], pad_mode)
        input = padded.view(*padded.shape[-signal_dim:])
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    window_complex = window is not None and window.is_complex()
    if return_complex is None and not (input.is_complex() or window_complex):
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release."
        )
    complex_result = (
        return_complex if return_complex is not None else (input.is_complex() or window_complex)
    )
    prefix = _stft_repr(input, n_fft, hop, win, window, normalized, onesided, complex_result)
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
            "device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
    if not (input.dtype.is_floating_point or input.is_complex()):
        raise RuntimeError(f"{prefix} : expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{prefix} : expected a 1D or 2D tensor")
    signal = input.unsqueeze(0) if input.ndim == 1 else input
    length = signal.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"{prefix} : expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"{prefix} : expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{prefix} : expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(
            f"{prefix} : expected a 1D window tensor of size equal to win_length={win}, but got "
            f"window with size {list(window.shape)}"
        )
    window = _centred_window(window, win, n_fft, signal)
    frames = signal.unfold(-1, n_fft, hop)
    if window is not None:
        frames = frames * window
    mode = 1 if normalized else 0
    if frames.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = c2c(frames, [frames.ndim - 1], mode, True)
    else:
        out = r2c(frames, [frames.ndim - 1], mode, True if onesided is None else onesided)
    out = out.transpose(1, 2)
    if input.ndim == 1:
        # torch squeezes in place (``squeeze_(0)``): SqueezeBackward4.
        out = apply(views.SqueezeDimInplace((0,)), out)
    return out if complex_result else out._view_as_real()


def _centred_window(window: Any, win_length: int, n_fft: int, like: Any) -> Any:
    """A window of ``win_length`` samples zero-padded (centred) to ``n_fft``; None stays
    None when it needs no padding (a rectangular window)."""
    if win_length >= n_fft:
        return window
    left = (n_fft - win_length) // 2
    if window is None:
        window = like.new_ones(
            win_length, dtype=like.real.dtype if like.is_complex() else like.dtype
        )
    return apply(padding.ConstantPad([left, n_fft - win_length - left], 0), window)


def istft(
    input: Any,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Any = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Any:
    """The inverse of :func:`stft`: each frame's inverse FFT, windowed, overlap-added and
    divided by the summed squared window (which must not vanish), the ``center`` padding
    trimmed (or cut or zero-padded to ``length``).

    Example::

        w = hookgrad.hann_window(256)
        spec = hookgrad.stft(x, 256, window=w, return_complex=True)
        hookgrad.istft(spec, 256, window=w, length=len(x))    # x back
    """
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    shown = (
        "None"
        if window is None
        else f"torch.{dtypes.legacy_name(window.dtype)}Tensor{{{list(window.shape)}}}"
    )
    prefix = (
        f"istft(CPU{dtypes.legacy_name(input.dtype)}Type{list(input.shape)}, n_fft={n_fft}, "
        f"hop_length={hop}, win_length={win}, window={shown}, center={int(center)}, "
        f"normalized={int(normalized)}, onesided={_optional(onesided)}, "
        f"length={'None' if length is None else length}, return_complex={int(return_complex)})"
    )
    if not input.is_complex():
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{input.ndim + 1}, "
            f"{input.ndim}], but got -3)"
        )
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    expected = n_fft + hop * (n_frames - 1)
    if input.numel() == 0:
        raise RuntimeError(f"{prefix} : input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"{prefix} : expected a tensor with 3 or 4 dimensions of complex dtype, but got "
            f"{input.ndim + 1}D"
        )
    one_sided = fft_size != n_fft if onesided is None else onesided
    if one_sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            f"{prefix} : expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not one_sided and n_fft != fft_size:
        raise RuntimeError(
            f"{prefix} : expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise RuntimeError(f"{prefix} : expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{prefix} : expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(
            f"{prefix} : Invalid window shape. window has to be 1D and length of `win_length`"
        )
    real = input.real.dtype
    window = input.new_ones(win, dtype=real) if window is None else window
    if win != n_fft:
        left = (n_fft - win) // 2
        window = apply(padding.ConstantPad([left, n_fft - win - left], 0), window)
    spectrum = input.unsqueeze(0) if input.ndim == 2 else input
    spectrum = spectrum.transpose(1, 2)
    mode = 1 if normalized else 2
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = c2c(spectrum, [2], mode, False)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            spectrum = spectrum.narrow(-1, 0, n_fft // 2 + 1)
        frames = c2r(spectrum, [2], mode, n_fft)
    positions = (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)).reshape(-1)
    index = frames.new_tensor(positions, dtype=np.int64)
    windowed = frames * window.view(1, 1, n_fft)
    channels = windowed.shape[0]
    y = windowed.new_zeros((channels, expected)).index_add(1, index, windowed.reshape(channels, -1))
    squares = window.pow(2).expand(1, n_frames, n_fft)
    envelope = squares.new_zeros((1, expected)).index_add(1, index, squares.reshape(1, -1))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool(envelope.abs().min() < 1e-11):
        # NOTE: torch prints the boolean tensor of the test, not the minimum.
        raise RuntimeError(f"{prefix} window overlap add min: 1\n[ CPUBoolType{{}} ]")
    y = y / envelope
    if input.ndim == 2:
        y = y.squeeze(0)
    if end > expected:
        warnings.warn(
            "The length of signal is shorter than the length parameter. Result is being padded "
            "with zeros in the tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=2,
        )
        y = apply(padding.ConstantPad([0, end - expected], 0), y)
    return y


class StftMethods:
    """The short-time Fourier transforms as ``Tensor`` methods."""

    stft = stft
    istft = istft
