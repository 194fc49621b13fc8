"""nn.functional: linear and bilinear maps.

``linear`` records the nodes torch records: ``AddmmBackward0`` for a matrix input with a
bias, ``MmBackward0`` without one, and views around the product for other input ranks.
"""

from __future__ import annotations

import hookgrad
from hookgrad.ops.bilinear import Trilinear
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply

__all__ = ["bilinear", "linear"]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` over the last dim of ``input``.

    ``weight`` has shape ``(out_features, in_features)``, ``bias`` ``(out_features,)``.

    Example::

        y = F.linear(hookgrad.randn(8, 3), hookgrad.randn(4, 3), hookgrad.zeros(4))  # (8, 4)
    """
    weight_t = weight.t()
    if bias is None:
        if input.ndim == 2:
            return input.mm(weight_t)
        return input.matmul(weight_t)
    if input.ndim == 2:
        return hookgrad.addmm(bias, input, weight_t)
    if input.ndim == 0 or weight.ndim != 2:
        return input.matmul(weight_t) + bias
    # NOTE: torch folds the leading dims into one: view -> addmm -> view.
    rows = input.reshape(-1, input.shape[-1])
    out_shape = (*input.shape[:-1], weight.shape[0])
    return hookgrad.addmm(bias, rows, weight_t).view(out_shape)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``.

    ``weight`` has shape ``(out_features, in1_features, in2_features)``; the inputs share
    their leading dims.

    Example::

        y = F.bilinear(hookgrad.randn(8, 3), hookgrad.randn(8, 5), hookgrad.randn(4, 3, 5))
    """
    if input1.ndim != input2.ndim:
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"
        )
    for dim, (size1, size2) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if size1 != size2:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {dim}: got "
                f"{size1} and {size2}"
            )
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.ndim}")
    for k, input in enumerate((input1, input2), start=1):
        if input.shape[-1] != weight.shape[k]:
            raise RuntimeError(
                f"bilinear(): input{k} size does not match weight size: got "
                f"{input.shape[-1]} but expected {weight.shape[k]}"
            )
    rows1 = input1.reshape(-1, input1.shape[-1])
    rows2 = input2.reshape(-1, input2.shape[-1])
    # torch's ``_trilinear`` positions: x1 (b, i) -> b . i ., w -> . o i j, x2 -> b . . j.
    op = Trilinear((1, 3), (0,), (1, 2), (2, 3))
    out = apply(op, rows1, weight, rows2).view(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias
