"""``one_hot``: class indices as one-hot rows."""

from __future__ import annotations

import operator

import numpy as np

from hookgrad.tensor.dispatch import wrap_constant
from hookgrad.tensor.tensor import Tensor

__all__ = ["one_hot"]


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """The int64 tensor of shape ``(*input.shape, num_classes)`` that is 1 at the class
    each element of ``input`` (an int64 tensor of class indices) names and 0 elsewhere.

    ``num_classes=-1`` (the default) takes one more than the largest index. The indices
    must lie in ``[0, num_classes)``. Not differentiable (an integer result). Example::

        F.one_hot(hookgrad.tensor([0, 2, 1]), 4)
        # tensor([[1, 0, 0, 0],
        #         [0, 0, 1, 0],
        #         [0, 1, 0, 0]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"one_hot(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    num_classes = operator.index(num_classes)
    data = input._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if data.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return wrap_constant(np.zeros((*data.shape, num_classes), np.int64))
    if data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = int(data.max())
    if num_classes == -1:
        num_classes = largest + 1
    elif num_classes <= largest:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros((*data.shape, num_classes), np.int64)
    np.put_along_axis(out, data[..., None], 1, axis=-1)
    return wrap_constant(out)
