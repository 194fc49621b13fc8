"""nn.functional: embedding lookup (``EmbeddingBackward0``), with ``padding_idx``,
``max_norm`` renormalisation and ``scale_grad_by_freq``."""

from __future__ import annotations

import numpy as np

import hookgrad
from hookgrad.ops.embedding import Embedding
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply

__all__ = ["embedding"]


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of ``weight`` that the integer tensor ``input`` picks: shape
    ``(*input.shape, embedding_dim)``.

    ``padding_idx``: that row gets no gradient. ``max_norm``: the picked rows whose
    ``norm_type``-norm exceeds it are first rescaled in place to norm ``max_norm``.
    ``scale_grad_by_freq``: each row's gradient is divided by how often its index occurs.

    Example::

        F.embedding(hookgrad.tensor([[0, 2]]), hookgrad.eye(3))   # shape (1, 2, 3)
    """
    rows = weight.shape[0] if weight.ndim else 0
    if padding_idx is None:
        padding_idx = -1
    elif not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        padding_idx += rows
    if sparse:
        raise NotImplementedError("hookgrad has no sparse tensors: use sparse=False")
    if input._data.dtype not in (np.int32, np.int64):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{input.dtype.type_name[3:-4]}Tensor instead "
            "(while checking arguments for embedding)"
        )
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    return apply(Embedding(padding_idx, scale_grad_by_freq, sparse), weight, input)


def _renorm_rows(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale, in place and untracked, the rows of ``weight`` indexed by ``input`` whose
    norm exceeds ``max_norm`` to norm ``max_norm`` (torch's ``embedding_renorm_``)."""
    with hookgrad.no_grad():
        rows = hookgrad.tensor(np.unique(input._data))
        selected = weight.index_select(0, rows)
        norms = selected.norm(norm_type, dim=1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).where(norms > max_norm, 1.0)
        weight[rows] = selected * scale
