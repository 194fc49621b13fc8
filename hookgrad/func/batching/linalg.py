"""Batching rules of the matrix products: ``mm``, ``bmm``, ``mv``, ``dot``, ``vdot``
and their ``add*`` forms.

A product of a batched operand with an unbatched matrix is one matrix product of all the
batch's rows (``(B * n, k) @ (k, m)``: one BLAS call, as ``nn.Linear`` needs); two batched
operands make a stacked product (``bmm``); a batched right operand broadcasts the left
one. A vector is a matrix of one row (or column) for the product, then squeezed. The
``add*`` forms add ``beta * self`` afterwards, as their kernels do. ``einsum`` gets the
batch as one more label.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.func.batched import batch_dims
from hookgrad.func.batching.core import forward, register, register_entries, with_params
from hookgrad.func.numpy_api import batched_matmul
from hookgrad.ops import linalg


def _product(a: Any, b: Any, fa: bool, fb: bool, na: int, nb: int) -> Any:
    """The batched product of logical operands of ``na`` and ``nb`` dims (1: a vector)."""
    if na == 1:
        a = np.expand_dims(a, 1 if fa else 0)
    if nb == 1:
        b = np.expand_dims(b, -1)
    loop_a, loop_b = max(na, 2) - 2, max(nb, 2) - 2
    most = max(loop_a, loop_b)
    if fa:
        a = batch_dims(a, most - loop_a)
    if fb:
        b = batch_dims(b, most - loop_b)
    result = batched_matmul(a, b, fa, fb)
    if na == 1:
        result = np.squeeze(result, -2)
    if nb == 1:
        result = np.squeeze(result, -1)
    return result


def _ndims(arrays: Sequence[Any]) -> list[int]:
    return [a.ndim for a in arrays]


def product(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``mm``, ``bmm``, ``mv``, ``dot``; ``vdot`` conjugates its first operand."""
    a, b = values
    if op.signature.name == "vdot":
        a = np.conj(a)
    na, nb = _ndims(arrays)
    result = _product(a, b, flags[0], flags[1], na, nb)
    return result.astype(np.result_type(arrays[0], arrays[1]), copy=False), True


def add_product(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``beta * self + alpha * (a @ b)`` (``addmm``, ``addmv``, ``baddbmm``, ``addr``), as
    their kernel computes it: with ``beta == 0``, ``self`` is ignored."""
    c, a, b = values
    fc, fa, fb = flags
    nc, na, nb = _ndims(arrays)
    if op.signature.name == "addr":
        a = np.expand_dims(a, -1)
        b = np.expand_dims(b, -2 if fb else 0)
        na = nb = 2
    out = _product(a, b, fa, fb, na, nb)
    if op.alpha != 1:
        out = out * op.alpha
    batched = fa or fb
    if op.beta != 0:
        if fc:
            c = batch_dims(c, np.ndim(out) - (1 if batched else 0) - nc)
            if not batched:
                out = out[None]
            batched = True
        out = out + (c if op.beta == 1 else op.beta * c)
    return out.astype(np.result_type(*arrays), copy=False), batched


register_entries("mm bmm mv dot vdot", product)
register_entries("addmm addmv baddbmm addr", add_product)


def _einsum(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``einsum``: the batch as one more label, on the batched operands and the result."""
    used = set("".join(op.inputs) + op.output)
    label = next(c for c in string.ascii_letters if c not in used)
    inputs = tuple(label + labels if flag else labels for labels, flag in zip(op.inputs, flags))
    return forward(with_params(op, inputs=inputs, output=label + op.output), values), True


register(linalg.Einsum)(_einsum)
