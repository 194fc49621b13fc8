"""``torch.sum`` and ``torch.mean`` of floating and complex arrays, with torch's CPU bits.

torch does not sum pairwise like NumPy. Its ``cascade_sum`` kernel (``SumKernel.cpp``)
adds each column in a fixed pattern: rows in groups of four interleaved partial sums
(``row_sum``), each a cascade of running sums over chunks of 16 or more rows
(``multi_row_sum``); a contiguous row is first cut into vectors whose lanes are summed
like columns and then added up in lane order. Which pattern a column gets depends on
the 2-D block ``TensorIterator`` hands the kernel (``tensor_iterator``), and the blocks
depend on the layout, the vector width and, above 32768 elements, the thread count.
Each function here walks the same blocks and adds the same numbers in the same order,
with NumPy operations across all independent sums at once.

float16 is summed in float32: loaded values are widened and each result is rounded to
float16 when stored (so is each thread's partial sum when threads split a full
reduction). Where two reduced dimensions meet in one block, torch instead sums a float32
copy and rounds at the end, and so does ``sum`` here. ``mean`` is the sum divided by the
count (float16: summed and divided in float32, then rounded; complex: NumPy's complex
division, the same formula as c10's).

Example::

    x = np.arange(16, dtype=np.float32) / 3
    sum(x)                  # ((0 + l0) + l1) + ... + l7 with lk = x[k] + x[k + 8]
    mean(x.reshape(4, 8), dims=(1,), keepdim=True)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from hookgrad.ops.kernels import cpu
from hookgrad.ops.kernels.tensor_iterator import (
    GRAIN_SIZE,
    Block,
    ReductionLoop,
    blocks,
    column_ranges,
    dense_strides,
    reduction_loop,
    split_dim,
    thread_ranges,
)

_FLOATING = (np.float16, np.float32, np.float64, np.complex64, np.complex128)
_ILP = 4  # row_sum's interleaved partial sums
_GROUP = 4  # columns multi_row_sum takes at once in the outer loops
_WIDE = 256  # from this many sums on, a Python loop of vector adds beats np.add.accumulate
# NOTE: SumKernel.cpp registers with REGISTER_DISPATCH, which leaves the AVX-512 slot
# empty: AVX-512 machines run the AVX2 kernel, and every x86 kernel has 32-byte vectors.
_SUM_VECTOR_BYTES = 32


def sum(
    a: np.ndarray, dims: int | Sequence[int] | None = None, keepdim: bool = False
) -> np.ndarray:
    """``torch.sum(a, dims, keepdim)`` for a float16/32/64 or complex array laid out as
    the tensor is (its strides decide the order of the additions). ``dims=None`` or
    ``()`` sums everything. Returns a new contiguous array of ``a``'s dtype.

    Example: ``sum(np.ones((2, 3), np.float32), dims=(0,))`` is ``[2., 2., 2.]``.
    """
    _check_dtype(a)
    mask, shape = _target(a.shape, _as_tuple(dims), keepdim)
    if a.size == 0:
        return np.zeros(shape, a.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # torch is silent about inf and nan
        if a.dtype == np.float16 and _loop(a.shape, a.strides, 2, mask, keepdim).num_reduced > 1:
            return _sum(_to_float32(a), mask, shape, keepdim).astype(np.float16)
        return _sum(a, mask, shape, keepdim)


def mean(
    a: np.ndarray, dims: int | Sequence[int] | None = None, keepdim: bool = False
) -> np.ndarray:
    """``torch.mean(a, dims, keepdim)``: torch's sum divided by the number of elements
    summed, as torch's CPU ``mean`` computes it. Same arguments as ``sum``.

    Example: ``mean(np.arange(4.0), dims=0)`` is ``1.5``.
    """
    _check_dtype(a)
    mask, _ = _target(a.shape, _as_tuple(dims), keepdim)
    count = math.prod(size for size, reduced in zip(a.shape, mask) if reduced)
    wide = a.dtype == np.float16
    total = sum(_to_float32(a) if wide else a, dims, keepdim)
    with np.errstate(all="ignore"):
        total /= total.dtype.type(count)
    return total.astype(np.float16) if wide else total


# ---------------------------------------------------------------- arguments and layouts


def _check_dtype(a: np.ndarray) -> None:
    if a.dtype.type not in _FLOATING:
        raise TypeError(f"sum/mean kernels take floating or complex arrays, not {a.dtype}")


def _as_tuple(dims: int | Sequence[int] | None) -> tuple[int, ...]:
    if dims is None:
        return ()
    if isinstance(dims, (int, np.integer)):
        return (int(dims),)
    return tuple(int(d) for d in dims)


@functools.lru_cache(maxsize=4096)
def _target(shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool):
    """Which dimensions are summed (all for no ``dims``), and the result's shape."""
    ndim = max(len(shape), 1)
    wrapped = {d % ndim for d in dims if -ndim <= d < ndim}
    if len(wrapped) != len(dims):
        raise ValueError(f"invalid or repeated dims {dims} for a {len(shape)}-d array")
    mask = tuple(not wrapped or d in wrapped for d in range(len(shape)))
    if keepdim:
        return mask, tuple(1 if reduced else size for size, reduced in zip(shape, mask))
    return mask, tuple(size for size, reduced in zip(shape, mask) if not reduced)


def _to_float32(a: np.ndarray) -> np.ndarray:
    """``tensor.to(torch.float32)``: a copy with dense strides in ``a``'s stride order."""
    strides = [s // a.itemsize for s in a.strides]
    wide = np.empty(a.size, np.float32)
    view = as_strided(wide, a.shape, [s * 4 for s in dense_strides(a.shape, strides)])
    view[...] = a
    return view


@functools.lru_cache(maxsize=4096)
def _loop(shape, strides, itemsize, mask, keepdim, first_pass=False) -> ReductionLoop:
    """The iterator's loop; ``first_pass``: the one ``two_pass_reduction`` builds for
    the per-thread sums (its output is a contiguous buffer of size-1 dimensions)."""
    out_view = [1] * len(shape) if first_pass else None
    return reduction_loop(shape, strides, mask, keepdim, itemsize, out_view)


# ---------------------------------------------------------------- the driver


@dataclass(frozen=True)
class _Arith:
    """Element type, accumulator type, and ``Vectorized`` lane counts of both."""

    dtype: np.dtype
    acc: np.dtype
    vec: int
    lanes: int


@functools.cache
def _arith(dtype: np.dtype, width: int) -> _Arith:
    acc = np.dtype(np.float32) if dtype == np.float16 else dtype
    return _Arith(dtype, acc, width // dtype.itemsize, width // acc.itemsize)


def _sum(a: np.ndarray, mask: tuple[bool, ...], shape: tuple[int, ...], keepdim: bool):
    out = np.empty(shape, a.dtype)
    if a.ndim == 0:
        out[...] = a + 0
        return out
    loop = _loop(a.shape, a.strides, a.itemsize, mask, keepdim)
    if loop.num_reduced == 0:  # only size-1 dimensions summed: a copy
        out[...] = (a + 0).reshape(out.shape)
        return out
    arith = _arith(a.dtype, _SUM_VECTOR_BYTES)
    threads = cpu.num_threads()
    if loop.numel < GRAIN_SIZE or threads == 1:
        values = _serial(_view(a, loop), loop, arith)
    elif loop.output_numel == 1:
        first = _loop(a.shape, a.strides, a.itemsize, mask, keepdim, first_pass=True)
        values = _two_pass(_view(a, first), first, arith, threads)
    else:
        values = _split_columns(_view(a, loop), loop, arith, threads)
    kept = loop.num_reduced
    target = np.ndarray(loop.shape[kept:][::-1], out.dtype, out, 0, loop.out_strides[kept:][::-1])
    # NOTE: torch adds every result into a zero-filled output: -0.0 comes out as +0.0.
    target[...] = values + 0
    return out


def _view(a: np.ndarray, loop: ReductionLoop) -> np.ndarray:
    """``a`` with the loop's axes: dimension 0 first, then the others outermost first,
    so that a 2-D block is ``view[:, ..., j]`` summed over axis 0."""
    order = (0, *range(len(loop.shape) - 1, 0, -1))
    shape = tuple(loop.shape[d] for d in order)
    strides = tuple(loop.in_strides[d] for d in order)
    if a.flags.c_contiguous:
        return np.ndarray(shape, a.dtype, a, 0, strides)
    return as_strided(a, shape, strides, writeable=False)


def _serial(view: np.ndarray, loop: ReductionLoop, arith: _Arith) -> np.ndarray:
    """``serial_for_each`` over the whole loop: one block per outer index, all alike."""
    if len(loop.shape) == 1:
        return _block(view[:, None], loop.in_strides[0], 0, arith)[0]
    sums = _block(view, loop.in_strides[0], loop.in_strides[1], arith)
    reduced = loop.num_reduced
    if reduced == 1:
        return sums
    # The output of each block is one element: every column sum is added into it, then
    # those of the next outer index, and so on.
    ordered = sums.reshape(sums.shape[: sums.ndim - reduced + 1] + (-1,))
    return _fold(np.moveaxis(ordered, -1, 0))


def _two_pass(view: np.ndarray, loop: ReductionLoop, arith: _Arith, threads: int):
    """``two_pass_reduction``: each thread sums its range of positions into its own
    slot of a zero-filled buffer; the buffer is then summed like a 1-D tensor."""
    if len(loop.shape) > 1:  # outer dimensions merged into one (a copy if need be)
        view = view.reshape(loop.shape[0], -1, loop.shape[1])
    buffer = np.zeros(threads, arith.dtype)
    for thread, (begin, end) in enumerate(thread_ranges(0, loop.numel, GRAIN_SIZE, threads)):
        sums = [_range_block(view, loop, block, arith) for block in blocks(loop.shape, begin, end)]
        buffer[thread] = _fold(np.concatenate(sums)) + 0
    final = ReductionLoop((threads,), (arith.dtype.itemsize,), (0,))
    return _serial(buffer, final, arith)


def _range_block(view, loop: ReductionLoop, block: Block, arith: _Arith) -> np.ndarray:
    """The column sums of one inner-loop call (or run of whole slabs) in a thread's
    range; ``view`` has axes (dimension 0, outer position, dimension 1)."""
    s0 = loop.in_strides[0]
    if len(loop.shape) == 1:
        return _block(view[block.offset : block.offset + block.size0, None], s0, 0, arith)
    rows, cols = loop.shape[0], loop.shape[1]
    outer, start = divmod(block.offset, rows * cols)
    index1, index0 = divmod(start, rows)
    if block.size0 * block.size1 == rows * cols:
        part = view[:, outer : outer + block.count, :]
        return _block(part, s0, loop.in_strides[1], arith).reshape(-1)
    part = view[index0 : index0 + block.size0, outer, index1 : index1 + block.size1]
    return _block(part, s0, loop.in_strides[1], arith)


def _split_columns(view, loop: ReductionLoop, arith: _Arith, threads: int) -> np.ndarray:
    """``parallel_dim_reduction``: threads take columns of a kept dimension. Only a split
    of dimension 1 changes the blocks the kernel sees (their width)."""
    dim = split_dim(loop, threads)
    if dim != 1:
        return _serial(view, loop, arith)
    s0, s1 = loop.in_strides[0], loop.in_strides[1]
    ranges = column_ranges(loop, dim, threads, arith.dtype.itemsize)
    parts = [_block(view[..., begin:end], s0, s1, arith) for begin, end in ranges]
    return np.concatenate(parts, axis=-1)


# ---------------------------------------------------------------- cascade_sum's 2-D loop


def _block(x: np.ndarray, s0: int, s1: int, arith: _Arith) -> np.ndarray:
    """The sums of the columns of 2-D blocks ``x[:, ..., j]`` (axis 0 is the loop's
    dimension 0, with byte stride ``s0``; the last axis its dimension 1, stride ``s1``),
    choosing the kernel as ``cascade_sum`` does. Returns ``x.shape[1:]`` in ``acc``."""
    rows, cols = x.shape[0], x.shape[-1]
    itemsize = arith.dtype.itemsize
    if s0 == itemsize and rows >= arith.vec:
        return _vectorized_inner(x, arith)
    x = x.astype(arith.acc, copy=False)
    if s1 == itemsize and cols >= arith.vec:
        cascaded = cols // (_GROUP * arith.lanes) * _GROUP * arith.lanes
    elif s0 < s1:
        cascaded = 0
    else:
        cascaded = cols // _GROUP * _GROUP
    if cascaded == 0:
        return _row_sum(x)
    if cascaded == cols:
        return _cascade(x)
    return np.concatenate([_cascade(x[..., :cascaded]), _row_sum(x[..., cascaded:])], axis=-1)


def _vectorized_inner(x: np.ndarray, arith: _Arith) -> np.ndarray:
    """``vectorized_inner_sum``: contiguous columns cut into vectors; the vectors go
    through ``row_sum`` lane by lane, then the leftover elements and the lanes are
    added in order to a zero."""
    rows = x.shape[0]
    body = rows // arith.vec * arith.vec
    vectors = x[:body].reshape(rows // arith.vec, arith.vec, *x.shape[1:])
    if arith.acc != arith.dtype:
        # float16: a vector of halves is widened into two float32 vectors, then added.
        halves = vectors.reshape(vectors.shape[0], 2, arith.lanes, *x.shape[1:])
        halves = halves.astype(arith.acc)
        vectors = halves[:, 0] + halves[:, 1]
    lanes = _row_sum(vectors)
    return _fold(np.concatenate([x[body:].astype(arith.acc, copy=False), lanes]))


def _row_sum(x: np.ndarray) -> np.ndarray:
    """``row_sum`` down axis 0: four interleaved cascades, the last rows added to the
    first of them, then the four added in order."""
    quads = x.shape[0] // _ILP
    partial = _cascade(x[: quads * _ILP].reshape(quads, _ILP, *x.shape[1:]))
    return _fold(np.concatenate([partial[:1], x[quads * _ILP :], partial[1:]]))


def _cascade(x: np.ndarray) -> np.ndarray:
    """``multi_row_sum`` down axis 0: running sums of chunks of ``step`` rows; every
    ``step`` chunk sums go up one level, for three levels; the rows left after the last
    whole chunk, then the level sums from the lowest, are added at the end."""
    rows = x.shape[0]
    step = 1 << max(4, _ceil_log2(rows) // 4)
    chunks = rows // step
    if chunks == 0:
        return _fold(x)
    total = _fold(x[chunks * step :])
    items = _fold_groups(x[: chunks * step], step)
    for _ in range(2):
        if items.shape[0] < step:  # no higher level gets anything (x + 0 == x)
            break
        whole = items.shape[0] // step * step
        total = total + _fold(items[whole:])
        items = _fold_groups(items[:whole], step)
    return total + _fold(items)


def _ceil_log2(n: int) -> int:
    """``utils::CeilLog2``: 1 up to 2, else the bits of ``n - 1``."""
    return 1 if n <= 2 else (n - 1).bit_length()


def _fold_groups(x: np.ndarray, step: int) -> np.ndarray:
    """Running sums of consecutive groups of ``step`` rows, one result per group."""
    groups = x.reshape(x.shape[0] // step, step, *x.shape[1:])
    return _fold(groups.swapaxes(0, 1))


def _fold(x: np.ndarray) -> np.ndarray:
    """``((x[0] + x[1]) + x[2]) + ...`` down axis 0, for every other index at once; zero
    for no rows."""
    if x.shape[0] == 0:
        return np.zeros(x.shape[1:], x.dtype)
    if _rows_outermost(x):
        return np.add.reduce(x, axis=0)
    if x[0].size < _WIDE:
        return np.add.accumulate(x, axis=0)[-1]
    total = x[0].copy(order="K")
    for row in x[1:]:
        total += row
    return total


def _rows_outermost(x: np.ndarray) -> bool:
    """Whether NumPy's ``add.reduce`` down axis 0 adds the rows one after another: when
    another axis (longer than 1) has a smaller stride, NumPy loops over the rows outside
    its inner loop. (Otherwise it may sum pairwise.)"""
    inner = [abs(s) for s, n in zip(x.strides[1:], x.shape[1:]) if n > 1]
    return bool(inner) and min(inner) < abs(x.strides[0])
