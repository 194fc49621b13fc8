"""Flattening parameters into one vector and back: ``parameters_to_vector`` and
``vector_to_parameters``."""

from __future__ import annotations

from collections.abc import Iterable

from hookgrad.tensor import Tensor
from hookgrad.tensor.functions.joining import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated into one 1-d tensor (differentiable).

    Example::

        flat = nn.utils.parameters_to_vector(model.parameters())
    """
    return cat([param.reshape(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the 1-d ``vec`` into ``parameters``' data (the parameters
    then share ``vec``'s memory, as in torch).

    Example::

        nn.utils.vector_to_parameters(flat * 0.5, model.parameters())
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[offset : offset + count].view_as(param).data
        offset += count
