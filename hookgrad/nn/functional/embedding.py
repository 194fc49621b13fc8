"""nn.functional: embedding lookup (``EmbeddingBackward0``), with ``padding_idx``,
``max_norm`` renormalisation and ``scale_grad_by_freq``, and bags of embeddings
(``embedding_bag``: sums, means or maxima, ``EmbeddingBagBackward0``); and the torch-level
forms ``torch.embedding``, ``torch.embedding_bag``, ``torch.embedding_renorm_``
(``torch_*`` here).
"""

from __future__ import annotations

import warnings

import numpy as np

import hookgrad
from hookgrad.ops.embedding import BAG_MAX, BAG_MEAN, BAG_SUM, Embedding, EmbeddingRenorm
from hookgrad.ops.embedding import EmbeddingBag as EmbeddingBagOp
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.inplace import run_inplace_op

__all__ = ["embedding", "embedding_bag"]


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


# ---------------------------------------------------------------- embedding bags

_BAG_MODES = {"sum": BAG_SUM, "mean": BAG_MEAN, "max": BAG_MAX}


def _check_indices(indices: Tensor, name: str, function: str) -> None:
    if indices._data.dtype not in (np.int32, np.int64):
        raise RuntimeError(
            f"Expected tensor for argument #{1 if name == 'indices' else 2} '{name}' to have "
            "one of the following scalar types: Long, Int; but got "
            f"torch.{indices.dtype.type_name[3:-4]}Tensor instead (while checking arguments "
            f"for {function})"
        )


def torch_embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``torch.embedding_bag``: the bag results and, as torch's, ``offset2bag``,
    ``bag_size`` and ``max_indices`` (``mode`` 0 sum, 1 mean, 2 max).

    Example: ``out, *_ = torch.embedding_bag(w, idx, offsets, False, 1)``.
    """
    _check_indices(indices, "indices", "embedding_bag")
    _check_indices(offsets, "offsets", "embedding_bag")
    if sparse:
        raise NotImplementedError("hookgrad has no sparse tensors: use sparse=False")
    index_array = indices._data.astype(np.int64)
    offset_array = offsets._data.astype(np.int64)
    if offset_array.size:
        if offset_array[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                f"start from position 0. However, got {offset_array[0]}\n"
                f"[ torch.{offsets.dtype.type_name[3:-4]}Tensor{{}} ]"
            )
        if offset_array[-1] > index_array.size:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {index_array.size} but "
                f"got offsets[-1] of {offset_array[-1]}"
            )
    rows = weight.shape[0]
    (bad,) = np.nonzero((index_array < 0) | (index_array >= rows))
    if bad.size:
        position, value = bad[0], index_array[bad[0]]
        if weight.dtype == hookgrad.float32 and mode != BAG_MAX:
            # torch's float32 sum and mean run another kernel, with its own message
            raise RuntimeError(
                f"Index {position} of input takes value {value} which is not in the valid "
                f"range [0, {rows})"
            )
        raise RuntimeError(
            f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {value}"
        )
    padding = -1 if padding_idx is None else padding_idx
    op = EmbeddingBagOp(scale_grad_by_freq, mode, sparse, include_last_offset, padding)
    return apply(op, weight, indices, offsets, per_sample_weights)


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sums, means or maxima (``mode``) of bags of rows of ``weight``: a 2-D ``input``
    is one bag per row; a 1-D one is split at ``offsets`` (the start of each bag;
    ``include_last_offset``: the last entry is the end). ``per_sample_weights`` scale each
    row of a sum; indices equal to ``padding_idx`` are left out. ``max_norm`` first
    renormalizes the picked rows in place, as ``embedding`` does.

    Example::

        F.embedding_bag(hookgrad.tensor([0, 2, 1, 3]), weight, hookgrad.tensor([0, 2]))
    """
    if weight.dtype == hookgrad.int64 and input.dtype.is_floating_point:
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}".replace("hookgrad.tensor.tensor", "torch")
            )
        offsets = hookgrad.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    return torch_embedding_bag(
        weight,
        input,
        offsets,
        scale_grad_by_freq,
        _BAG_MODES[mode],
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )[0]


# ---------------------------------------------------------------- torch-level forms


def torch_embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """``torch.embedding(weight, indices, ...)``: ``F.embedding`` with torch's argument
    order (``padding_idx=-1``: none).

    Example: ``torch.embedding(weight, hookgrad.tensor([0, 2]))``.
    """
    return embedding(
        indices,
        weight,
        None if padding_idx < 0 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


def torch_embedding_renorm_(
    input: Tensor, indices: Tensor, max_norm: float, norm_type: float
) -> Tensor:
    """``torch.embedding_renorm_``: rescale in place the rows of ``input`` picked by
    ``indices`` whose ``norm_type``-norm exceeds ``max_norm``; returns ``input``.

    torch records a node without a derivative (``EmbeddingRenormBackward0``) when
    ``input`` requires grad, and refuses a leaf that does, outside ``no_grad``.

    Example: ``torch.embedding_renorm_(weight, hookgrad.tensor([0, 1]), 1.0, 2.0)``.
    """
    values = input.detach().clone()
    _renorm_rows(values, indices, max_norm, norm_type)
    op = EmbeddingRenorm(values._data)
    return run_inplace_op(input, op, (indices,), (input._data, indices._data))
