"""``torch.fft``'s transforms and helpers (exported as ``hookgrad.fft``).

Each transform is torch's composite of three primitives of ``hookgrad.ops.fft``
(``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``) with the same steps around them: integer
inputs promoted to the default float dtype, real inputs to complex where a complex
transform needs them (``ToCopyBackward0``), ``n``/``s`` applied by zero-padding
(``ConstantPadNdBackward0``) or slicing, ``hfft`` conjugating its input and ``ihfft`` its
output. So a graph holds torch's nodes, with torch's ``_saved_normalization`` (0 none,
1 ``1/sqrt(n)``, 2 ``1/n``).

``norm`` is ``"backward"`` (default: the forward transform unscaled, the inverse by
``1/n``), ``"forward"`` (the reverse) or ``"ortho"`` (both by ``1/sqrt(n)``). The
short-time transforms ``stft``/``istft`` are in ``stft.py``.

Example: ``hookgrad.fft.rfft(hookgrad.ones(4))`` is ``tensor([4.+0.j, 0.+0.j, 0.+0.j])``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops import fft as ops
from hookgrad.ops import padding
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.generated import check_out, write_out
from hookgrad.tensor.tensor import Tensor

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


def c2c(x: Any, dims: Sequence[int], norm: int, forward: bool) -> Any:
    """torch's ``_fft_c2c`` primitive over ``dims`` (``norm``: 0 none, 1 ``1/sqrt(n)``,
    2 ``1/n``), recorded as ``FftC2CBackward0``."""
    return apply(ops.FftC2C(tuple(dims), norm, forward), x)


def r2c(x: Any, dims: Sequence[int], norm: int, onesided: bool) -> Any:
    """torch's ``_fft_r2c`` primitive (real to complex, the last dim halved when
    ``onesided``), recorded as ``FftR2CBackward0``."""
    return apply(ops.FftR2C(tuple(dims), norm, onesided), x)


def c2r(x: Any, dims: Sequence[int], norm: int, last_dim_size: int) -> Any:
    """torch's ``_fft_c2r`` primitive (a onesided spectrum back to ``last_dim_size`` real
    values), recorded as ``FftC2RBackward0``."""
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
    return c2c(x, [dim], _norm(norm, forward), forward)


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
    result = r2c(x, [dim], _norm(norm, forward), onesided)
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
    return c2r(x, [dim], _norm(norm, forward), size)


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
    return c2c(x, dims, _norm(norm, forward), forward)


def _rfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    if x.is_complex():
        raise RuntimeError(
            f"{name} expects a real-valued input tensor, but got {dtypes.legacy_name(x.dtype)}"
        )
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    return r2c(x, dims, _norm(norm, True), True)


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
    return c2r(x, dims, _norm(norm, False), last_dim_size)


def _hfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    shape, dims, last_dim_size = _c2r_shape_and_dims(name, x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = c2c(x, dims[:-1], mode, True)
    return c2r(x.conj(), dims[-1:], mode, last_dim_size)


def _ihfftn(name: str, x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    mode = _norm(norm, False)
    half = r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return half.conj()
    return c2c(apply(ops.ConjPhysical(), half), dims[:-1], mode, False)


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
