"""The order in which torch's ``TensorIterator`` walks a reduction, and how it splits the
walk between threads.

A CPU reduction kernel never sees the tensor's own shape. ``TensorIterator`` first sorts
the dimensions (reduced ones first, each group by increasing stride), then merges
neighbours that are contiguous in both the input and the output, and finally calls the
kernel once per 2-D block of the merged shape: dimension 0 (the fastest) and dimension 1,
with the outer dimensions looped one index at a time. ``parallel_reduce`` splits the
work between threads, either by element ranges (when the output has one element) or by
columns of a kept dimension. This module reproduces that geometry; ``sum`` uses it to
know which numbers torch adds together, in which order.

Example::

    loop = reduction_loop((3, 4), (16, 4), mask=(True, False), keepdim=False, itemsize=4)
    loop.shape, loop.in_strides, loop.out_strides  # (3, 4), (16, 4), (0, 4)
    loop.num_reduced                               # 1: dimension 0 is summed
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from hookgrad.ops.strides import contiguous_strides, iteration_order, non_overlapping_and_dense

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: below it, reductions run on one thread


@dataclass(frozen=True)
class ReductionLoop:
    """A reduction as ``TensorIterator`` runs it: the merged shape, dimension 0 fastest,
    and the byte strides of the input and of the output (0 along reduced dimensions).
    ``num_reduced``: how many leading dimensions are summed (the sort puts all of them
    first)."""

    shape: tuple[int, ...]
    in_strides: tuple[int, ...]
    out_strides: tuple[int, ...]
    num_reduced: int = field(init=False)
    numel: int = field(init=False)

    def __post_init__(self) -> None:
        reduced = 0
        while reduced < len(self.shape) and self.out_strides[reduced] == 0:
            reduced += 1
        object.__setattr__(self, "num_reduced", reduced)
        object.__setattr__(self, "numel", math.prod(self.shape))

    @property
    def output_numel(self) -> int:
        return math.prod(self.shape[self.num_reduced :])


def result_strides(shape: Sequence[int], mask: Sequence[bool], keepdim: bool) -> list[int]:
    """Element strides of the contiguous result of a reduction, seen with the input's
    rank: a reduced dimension gets stride 0 without ``keepdim``, and the stride of a
    size-1 dimension with it."""
    if keepdim:
        return list(contiguous_strides([1 if r else size for size, r in zip(shape, mask)]))
    kept = iter(contiguous_strides([size for size, reduced in zip(shape, mask) if not reduced]))
    return [0 if reduced else next(kept) for reduced in mask]


def reduction_loop(
    shape: Sequence[int],
    strides: Sequence[int],
    mask: Sequence[bool],
    keepdim: bool,
    itemsize: int,
    out_view_strides: Sequence[int] | None = None,
) -> ReductionLoop:
    """The loop torch runs to reduce an input of ``shape`` and byte ``strides`` over the
    dimensions flagged in ``mask``. ``out_view_strides`` (elements) overrides the output's
    strides as the iterator sees them; by default those of the contiguous result."""
    if out_view_strides is None:
        out_view_strides = result_strides(shape, mask, keepdim)
    # A size-1 output dimension against a larger input one is broadcast: stride 0.
    out = [
        0 if reduced and size != 1 else stride * itemsize
        for size, reduced, stride in zip(shape, mask, out_view_strides)
    ]
    perm = iteration_order(shape, [out, list(strides)], reduction=True)
    sizes = [shape[d] for d in perm]
    operands = [[op[d] for d in perm] for op in (out, strides)]
    sizes, (out, inp) = coalesce(sizes, operands)
    return ReductionLoop(tuple(sizes), tuple(inp), tuple(out))


def coalesce(
    shape: Sequence[int], operands: Sequence[Sequence[int]]
) -> tuple[list[int], list[list[int]]]:
    """``TensorIterator::coalesce_dimensions``: merge each dimension into the previous
    one where every operand steps through both as through one."""
    sizes = list(shape)
    strides = [list(op) for op in operands]
    if len(sizes) <= 1:
        return sizes, strides
    prev = 0
    for dim in range(1, len(sizes)):
        mergeable = sizes[prev] == 1 or sizes[dim] == 1
        mergeable = mergeable or all(op[prev] * sizes[prev] == op[dim] for op in strides)
        if mergeable:
            if sizes[prev] == 1:
                for op in strides:
                    op[prev] = op[dim]
            sizes[prev] *= sizes[dim]
        else:
            prev += 1
            for op in strides:
                op[prev] = op[dim]
            sizes[prev] = sizes[dim]
    return sizes[: prev + 1], [op[: prev + 1] for op in strides]


def dense_strides(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """Element strides of ``tensor.to(dtype)``: the input's own if it is dense, else
    dense ones in the input's stride order (``infer_dense_strides``)."""
    if non_overlapping_and_dense(tuple(shape), tuple(strides)):
        return tuple(strides)
    dense = [0] * len(shape)
    step = 1
    for dim in iteration_order(shape, [strides], reduction=False):
        dense[dim] = step
        step *= max(shape[dim], 1)
    return tuple(dense)


def thread_ranges(begin: int, end: int, grain: int, threads: int) -> list[tuple[int, int]]:
    """How ``at::parallel_for`` (OpenMP) cuts ``[begin, end)``: item ``t`` of the list is
    thread ``t``'s range. One range when the work is at most ``grain`` or one thread."""
    count = end - begin
    if count <= grain or count <= 1 or threads <= 1:
        return [(begin, end)]
    if grain > 0:
        threads = min(threads, -(-count // grain))
    chunk = -(-count // threads)
    starts = range(begin, end, chunk)
    return [(start, min(end, start + chunk)) for start in starts]


def split_dim(loop: ReductionLoop, threads: int) -> int:
    """The kept dimension ``parallel_dim_reduction`` splits: the outermost one with at
    least ``threads`` columns, else the largest."""
    best = len(loop.shape) - 1
    for dim in range(best, loop.num_reduced - 1, -1):
        if loop.shape[dim] >= threads:
            return dim
        if loop.shape[dim] > loop.shape[best]:
            best = dim
    return best


def column_ranges(
    loop: ReductionLoop, dim: int, threads: int, itemsize: int
) -> list[tuple[int, int]]:
    """Each thread's columns of ``dim``, rounded to 128 bytes where the columns are
    adjacent in memory (empty ranges dropped)."""
    cols = loop.shape[dim]
    ranges = thread_ranges(0, cols, 1, threads)
    if loop.in_strides[dim] != itemsize:
        return ranges
    multiple = 128 // itemsize
    rounded = []
    for begin, end in ranges:
        begin -= begin % multiple
        if end != cols:
            end -= end % multiple
        if begin != end:
            rounded.append((begin, end))
    return rounded


@dataclass(frozen=True)
class Block:
    """One call of the 2-D inner loop, or ``count`` consecutive calls over whole
    dimension-0-by-1 slabs: it starts at linear position ``offset`` and covers
    ``size0`` by ``size1`` elements."""

    offset: int
    size0: int
    size1: int
    count: int


def blocks(shape: Sequence[int], begin: int, end: int) -> list[Block]:
    """The inner-loop calls ``serial_for_each`` makes over positions ``[begin, end)``
    (``DimCounter``): a partial row, then rows, then whole slabs, then the rest."""
    rows = shape[0]
    cols = shape[1] if len(shape) > 1 else 1
    found = []
    offset = begin
    while offset < end:
        size0 = min(rows - offset % rows, end - offset)
        size1 = 1
        if size0 == rows:
            size1 = min(cols - offset // rows % cols, (end - offset) // rows)
        count = 1
        if size0 * size1 == rows * cols:
            count = (end - offset) // (rows * cols)
        found.append(Block(offset, size0, size1, count))
        offset += size0 * size1 * count
    return found
