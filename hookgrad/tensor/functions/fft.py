"""``torch.fft``'s transforms and helpers (exported as ``hookgrad.fft``).

Each transform is torch's composite of three primitives of ``hookgrad.ops.fft``
(``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``) with the same steps around them: integer
inputs promoted to the default float dtype, real inputs to complex where a complex
transform needs them (``ToCopyBackward0``), ``n``/``s`` applied by zero-padding
(``ConstantPadNdBackward0``) or slicing, ``hfft`` conjugating its input and ``ihfft`` its
output. So a graph holds torch's nodes, with torch's ``_saved_normalization`` (0 none,
1 ``1/sqrt(n)``, 2 ``1/n``).

``norm`` is ``"backward"`` (default: the forward transform unscaled, the inverse by
``1/n``), ``"forward"`` (the reverse) or ``"ortho"`` (both by ``1/sqrt(n)``).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops import fft as ops
from hookgrad.ops import padding
from hookgrad.ops import shape as views
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.generated import check_out, write_out
from hookgrad.tensor.functions.shape import pad as pad_function
from hookgrad.tensor.tensor import Tensor

# The names of ``hookgrad.fft``; only ``stft``/``istft`` are top-level (``__all__``).
FFT_FUNCTIONS = (
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
)
__all__ = ["istft", "stft"]


# ---------------------------------------------------------------- argument handling


def _norm(norm: str | None, forward: bool) -> int:
    """torch's ``norm_from_string``: the normalization enum of a transform direction."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x: Any, require_complex: bool = False) -> Any:
    """torch's ``promote_tensor_fft``: integers to the default float dtype, floats to
    complex if ``require_complex``; half precision is refused on the CPU."""
    dtype = x.dtype
    if dtype.is_complex:
        return x
    if not dtype.is_floating_point:
        dtype = dtypes.get_default_dtype()
    if dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"Unsupported dtype {dtype.type_name[3:-4]}")
    if require_complex:
        dtype = dtypes.complex64 if dtype is dtypes.float32 else dtypes.complex128
    return x if dtype is x.dtype else x.to(dtype)


def _resize(x: Any, dims: Sequence[int], sizes: Sequence[int]) -> Any:
    """torch's ``resize_fft_input``: each of ``dims`` sliced or zero-padded to its size."""
    shape = x.shape
    pad = [0] * (2 * x.ndim)
    must_pad = False
    for dim, size in zip(dims, sizes):
        if size == -1:
            continue
        if shape[dim] < size:
            must_pad = True
            pad[len(pad) - 2 * dim - 1] = size - shape[dim]
        if shape[dim] > size:
            x = x.narrow(dim, 0, size)
    return apply(padding.ConstantPad(pad, 0), x) if must_pad else x


def _shape_and_dims(
    x: Any, s: Sequence[int] | None, dim: Sequence[int] | int | None
) -> tuple[list[int], list[int]]:
    """torch's ``canonicalize_fft_shape_and_dim_args``: the transformed dims (as given,
    wrapped) and their signal sizes."""
    ndim = x.ndim
    sizes = x.shape
    dims: list[int] = []
    if dim is not None:
        given = [dim] if isinstance(dim, int) else list(dim)
        if ndim == 0 and given:
            _no_scalar(given[0])
        dims = [wrap_dim(operator.index(d), ndim) for d in given]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if dim is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dim is None:
        dims = list(range(ndim))
        shape = list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def _no_scalar(dim: int) -> None:
    raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def _one_dim(x: Any, dim: int) -> int:
    if x.ndim == 0:
        _no_scalar(dim)
    return wrap_dim(operator.index(dim), x.ndim)


def _check(x: Any, name: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"fft_{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )


def _out(name: str, x: Any, result: Any, out: Any) -> Any:
    if out is None:
        return result
    check_out(f"fft_{name}", (x,), out)
    return write_out(result, out)


def _c2c(x: Any, dims: Sequence[int], norm: int, forward: bool) -> Any:
    return apply(ops.FftC2C(tuple(dims), norm, forward), x)


def _r2c(x: Any, dims: Sequence[int], norm: int, onesided: bool) -> Any:
    return apply(ops.FftR2C(tuple(dims), norm, onesided), x)


def _c2r(x: Any, dims: Sequence[int], norm: int, last_dim_size: int) -> Any:
    return apply(ops.FftC2R(tuple(dims), norm, last_dim_size), x)


# ---------------------------------------------------------------- one dimension


def _fft_c2c(name: str, x: Any, n: int | None, dim: int, norm: str | None, forward: bool) -> Any:
    if not x.is_complex():
        raise RuntimeError(f"{name} expects a complex input tensor, but got {x.dtype}")
    dim = _one_dim(x, dim)
    size = x.shape[dim] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize(x, [dim], [n])
    return _c2c(x, [dim], _norm(norm, forward), forward)


def _fft_r2c(
    name: str, x: Any, n: int | None, dim: int, norm: str | None, forward: bool, onesided: bool
) -> Any:
    if x.is_complex():
        raise RuntimeError(
            f"{name} expects a real input tensor, but got {dtypes.legacy_name(x.dtype)}"
        )
    x = _promote(x)
    dim = _one_dim(x, dim)
    size = x.shape[dim] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize(x, [dim], [n])
    result = _r2c(x, [dim], _norm(norm, forward), onesided)
    return result if forward else result.conj()


def _fft_c2r(name: str, x: Any, n: int | None, dim: int, norm: str | None, forward: bool) -> Any:
    x = _promote(x, require_complex=True)
    dim = _one_dim(x, dim)
    size = 2 * (x.shape[dim] - 1) if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize(x, [dim], [size // 2 + 1])
    if forward:
        x = x.conj()
    return _c2r(x, [dim], _norm(norm, forward), size)


def fft(
    input: Any, n: int | None = None, dim: int = -1, norm: str | None = None, *, out: Any = None
) -> Any:
    """The 1-D discrete Fourier transform along ``dim``, ``n`` points (zero-padded or
    trimmed). Real input gives the full complex spectrum.

    Example::

        hookgrad.fft.fft(hookgrad.tensor([1.0, 2.0, 3.0, 4.0]))
        # tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    _check(input, "fft")
    if input.is_complex():
        result = _fft_c2c("fft", input, n, dim, norm, True)
    else:
        result = _fft_r2c("fft", input, n, dim, norm, True, False)
    return _out("fft", input, result, out)


def ifft(
    input: Any, n: int | None = None, dim: int = -1, norm: str | None = None, *, out: Any = None
) -> Any:
    """The 1-D inverse discrete Fourier transform along ``dim`` (``fft``'s inverse)."""
    _check(input, "ifft")
    if input.is_complex():
        result = _fft_c2c("ifft", input, n, dim, norm, False)
    else:
        result = _fft_r2c("ifft", input, n, dim, norm, False, False)
    return _out("ifft", input, result, out)


def rfft(
    input: Any, n: int | None = None, dim: int = -1, norm: str | None = None, *, out: Any = None
) -> Any:
    """The 1-D Fourier transform of a real signal: the ``n // 2 + 1`` non-redundant
    frequencies (the rest are their conjugates).

    Example::

        hookgrad.fft.rfft(hookgrad.tensor([1.0, 2.0, 3.0, 4.0]))
        # tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    _check(input, "rfft")
    return _out("rfft", input, _fft_r2c("rfft", input, n, dim, norm, True, True), out)


def irfft(
    input: Any, n: int | None = None, dim: int = -1, norm: str | None = None, *, out: Any = None
) -> Any:
    """The inverse of :func:`rfft`: a real signal of ``n`` points (default
    ``2 * (input.shape[dim] - 1)``) from its half spectrum."""
    _check(input, "irfft")
    return _out("irfft", input, _fft_c2r("irfft", input, n, dim, norm, False), out)


def hfft(
    input: Any, n: int | None = None, dim: int = -1, norm: str | None = None, *, out: Any = None
) -> Any:
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a
    real spectrum of ``n`` points (default ``2 * (input.shape[dim] - 1)``)."""
    _check(input, "hfft")
    return _out("hfft", input, _fft_c2r("hfft", input, n, dim, norm, True), out)


def ihfft(
    input: Any, n: int | None = None, dim: int = -1, norm: str | None = None, *, out: Any = None
) -> Any:
    """The inverse of :func:`hfft`: the half spectrum (``n // 2 + 1`` points) of a real
    signal's inverse transform."""
    _check(input, "ihfft")
    return _out("ihfft", input, _fft_r2c("ihfft", input, n, dim, norm, False, True), out)


# ---------------------------------------------------------------- n dimensions


def _fftn(name: str, x: Any, s: Any, dim: Any, norm: str | None, forward: bool) -> Any:
    shape, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    return _c2c(x, dims, _norm(norm, forward), forward)


def _rfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    if x.is_complex():
        raise RuntimeError(
            f"{name} expects a real-valued input tensor, but got {dtypes.legacy_name(x.dtype)}"
        )
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    return _r2c(x, dims, _norm(norm, True), True)


def _c2r_shape_and_dims(name: str, x: Any, s: Any, dim: Any) -> tuple[list[int], list[int], int]:
    """torch's ``canonicalize_fft_c2r_shape_and_dim_args``: the half-spectrum input
    sizes, the dims and the real output size of the last dim."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    given = None if s is None else ([s] if isinstance(s, int) else list(s))
    if given is None or given[-1] == -1:
        last_dim_size = 2 * (x.shape[dims[-1]] - 1)
    else:
        last_dim_size = shape[-1]
    if last_dim_size < 1:
        raise RuntimeError(f"Invalid number of data points ({last_dim_size}) specified")
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


def _irfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    shape, dims, last_dim_size = _c2r_shape_and_dims(name, x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    return _c2r(x, dims, _norm(norm, False), last_dim_size)


def _hfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    shape, dims, last_dim_size = _c2r_shape_and_dims(name, x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = _c2c(x, dims[:-1], mode, True)
    return _c2r(x.conj(), dims[-1:], mode, last_dim_size)


def _ihfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    mode = _norm(norm, False)
    half = _r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return half.conj()
    return _c2c(apply(ops.ConjPhysical(), half), dims[:-1], mode, False)


def fftn(
    input: Any, s: Any = None, dim: Any = None, norm: str | None = None, *, out: Any = None
) -> Any:
    """The N-D discrete Fourier transform over ``dim`` (all dims by default, or the last
    ``len(s)``), each of size ``s[i]`` (zero-padded or trimmed; -1 keeps a size).

    Example: ``hookgrad.fft.fftn(hookgrad.ones(2, 2))`` is
    ``tensor([[4.+0.j, 0.+0.j], [0.+0.j, 0.+0.j]])``.
    """
    _check(input, "fftn")
    return _out("fftn", input, _fftn("fftn", input, s, dim, norm, True), out)


def ifftn(
    input: Any, s: Any = None, dim: Any = None, norm: str | None = None, *, out: Any = None
) -> Any:
    """The N-D inverse discrete Fourier transform; see :func:`fftn`."""
    _check(input, "ifftn")
    return _out("ifftn", input, _fftn("ifftn", input, s, dim, norm, False), out)


def rfftn(
    input: Any, s: Any = None, dim: Any = None, norm: str | None = None, *, out: Any = None
) -> Any:
    """The N-D Fourier transform of a real input, one-sided in the last of ``dim``."""
    _check(input, "rfftn")
    return _out("rfftn", input, _rfftn("rfftn", input, s, dim, norm), out)


def irfftn(
    input: Any, s: Any = None, dim: Any = None, norm: str | None = None, *, out: Any = None
) -> Any:
    """The inverse of :func:`rfftn`: a real output (the last of ``dim`` of size
    ``s[-1]``, default ``2 * (input.shape[dim[-1]] - 1)``)."""
    _check(input, "irfftn")
    return _out("irfftn", input, _irfftn("irfftn", input, s, dim, norm), out)


def hfftn(
    input: Any, s: Any = None, dim: Any = None, norm: str | None = None, *, out: Any = None
) -> Any:
    """The N-D Fourier transform of a Hermitian-symmetric input given by its half (in the
    last of ``dim``): a real output."""
    _check(input, "hfftn")
    return _out("hfftn", input, _hfftn("hfftn", input, s, dim, norm), out)


def ihfftn(
    input: Any, s: Any = None, dim: Any = None, norm: str | None = None, *, out: Any = None
) -> Any:
    """The inverse of :func:`hfftn`: the half spectrum of a real input."""
    _check(input, "ihfftn")
    return _out("ihfftn", input, _ihfftn("ihfftn", input, s, dim, norm), out)


def fft2(
    input: Any, s: Any = None, dim: Any = (-2, -1), norm: str | None = None, *, out: Any = None
) -> Any:
    """:func:`fftn` over the last two dims."""
    _check(input, "fft2")
    return _out("fft2", input, _fftn("fft2", input, s, dim, norm, True), out)


def ifft2(
    input: Any, s: Any = None, dim: Any = (-2, -1), norm: str | None = None, *, out: Any = None
) -> Any:
    """:func:`ifftn` over the last two dims."""
    _check(input, "ifft2")
    return _out("ifft2", input, _fftn("ifft2", input, s, dim, norm, False), out)


def rfft2(
    input: Any, s: Any = None, dim: Any = (-2, -1), norm: str | None = None, *, out: Any = None
) -> Any:
    """:func:`rfftn` over the last two dims."""
    _check(input, "rfft2")
    return _out("rfft2", input, _rfftn("rfftn", input, s, dim, norm), out)


def irfft2(
    input: Any, s: Any = None, dim: Any = (-2, -1), norm: str | None = None, *, out: Any = None
) -> Any:
    """:func:`irfftn` over the last two dims."""
    _check(input, "irfft2")
    return _out("irfft2", input, _irfftn("irfftn", input, s, dim, norm), out)


def hfft2(
    input: Any, s: Any = None, dim: Any = (-2, -1), norm: str | None = None, *, out: Any = None
) -> Any:
    """:func:`hfftn` over the last two dims."""
    _check(input, "hfft2")
    return _out("hfft2", input, _hfftn("hfftn", input, s, dim, norm), out)


def ihfft2(
    input: Any, s: Any = None, dim: Any = (-2, -1), norm: str | None = None, *, out: Any = None
) -> Any:
    """:func:`ihfftn` over the last two dims."""
    _check(input, "ihfft2")
    return _out("ihfft2", input, _ihfftn("ihfftn", input, s, dim, norm), out)


# ---------------------------------------------------------------- helpers


def _freq_dtype(dtype: Any) -> Any:
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("fftfreq requires a floating point or complex dtype")
    return dtype


def fftfreq(
    n: int,
    d: float = 1.0,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The sample frequencies of an ``n``-point :func:`fft` with sample spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    Example: ``hookgrad.fft.fftfreq(4)`` is ``tensor([ 0.0000,  0.2500, -0.5000, -0.2500])``.
    """
    dtype = _freq_dtype(dtype)
    values = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return _frequencies(values, n, d, dtype, requires_grad, out)


def rfftfreq(
    n: int,
    d: float = 1.0,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The sample frequencies of an ``n``-point :func:`rfft`: ``[0, 1, ..., n // 2] /
    (d * n)``. Example: ``hookgrad.fft.rfftfreq(4)`` is ``tensor([0.0000, 0.2500, 0.5000])``.
    """
    dtype = _freq_dtype(dtype)
    return _frequencies(np.arange(n // 2 + 1), n, d, dtype, requires_grad, out)


def _frequencies(values: Any, n: int, d: float, dtype: Any, requires_grad: bool, out: Any) -> Any:
    array = values.astype(dtype.np) * np.asarray(1.0 / (n * d), dtype=dtype.np)
    result = wrap_constant(array.astype(dtype.np, copy=False))
    if out is not None:
        return write_out(result, out)
    return result.requires_grad_(requires_grad)


def _shift_dims(x: Any, dim: Any) -> list[int]:
    if dim is None:
        return list(range(x.ndim))
    given = [dim] if isinstance(dim, int) else list(dim)
    return [wrap_dim(d, x.ndim) for d in given]


def fftshift(input: Any, dim: Any = None) -> Any:
    """The zero frequency moved to the centre of ``dim`` (all dims by default): a roll by
    half of each size.

    Example: ``hookgrad.fft.fftshift(hookgrad.fft.fftfreq(4))`` is
    ``tensor([-0.5000, -0.2500,  0.0000,  0.2500])``.
    """
    dims = _shift_dims(input, dim)
    return input.roll([input.shape[d] // 2 for d in dims], dims)


def ifftshift(input: Any, dim: Any = None) -> Any:
    """The inverse of :func:`fftshift`."""
    dims = _shift_dims(input, dim)
    return input.roll([(input.shape[d] + 1) // 2 for d in dims], dims)


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
        out = _c2c(frames, [frames.ndim - 1], mode, True)
    else:
        out = _r2c(frames, [frames.ndim - 1], mode, True if onesided is None else onesided)
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
        frames = _c2c(spectrum, [2], mode, False)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            spectrum = spectrum.narrow(-1, 0, n_fft // 2 + 1)
        frames = _c2r(spectrum, [2], mode, n_fft)
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


class FftMethods:
    """The short-time Fourier transforms as ``Tensor`` methods."""

    stft = stft
    istft = istft
