"""nn.functional: dropout.

In training mode ``dropout`` multiplies the input by a random mask scaled by
``1 / (1 - p)``, so the node is ``MulBackward0`` (as torch's CPU kernel) and the gradient is
the same mask times the incoming gradient. The mask is drawn from hookgrad's random stream.
"""

from __future__ import annotations

from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import wrap_constant
from hookgrad.tensor.random import sample_uniform

__all__ = ["dropout"]


def _check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``;
    outside ``training`` (or with ``p == 0``) ``input`` itself is returned.

    Example::

        y = F.dropout(hookgrad.ones(4, 4), p=0.25)   # entries 0 or 1.3333
    """
    _check_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    data = input._data
    if data.dtype.kind not in "fc":
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type "
            f"{input.dtype.type_name[3:-4]}"
        )
    if p == 1.0:
        noise = data.dtype.type(0)
    else:
        keep = sample_uniform(data.shape, data.dtype) >= p
        noise = keep.astype(data.dtype) * data.dtype.type(1 / (1 - p))
    mask = wrap_constant(noise)
    return input.mul_(mask) if inplace else input * mask
