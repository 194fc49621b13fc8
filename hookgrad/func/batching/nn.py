"""Batching rules of the neural-network ops: convolution, pooling, padding and resampling,
normalization, embedding, ``nll_loss``, dropout and the random ops.

Three ways to batch them, each with no loop over the examples:

- **batch into N**: an op that treats its leading dims as independent (pooling,
  padding, resampling, a convolution's input) runs on ``(B * N, ...)`` (or on the
  leading dims as they are), and the result is reshaped back;
- **batch into groups**: a per-example *weight* (an ensemble's, or the per-example
  gradient of a shared weight) makes each example a group of channels: ``(N, B * C, ...)``
  with ``B * groups`` groups, the weights stacked ``(B * O, ...)``. A convolution's and a
  group norm's weight gradients are then one call, summed over each example's N only;
- **per-example sums** written out where a kernel sums over all leading dims (a layer
  norm's weight gradient), and class indices offset by the example (``embedding``'s
  gradient, ``nll_loss``).

Ops that keep state for their backward (a max pool's argmax positions) run on the batch
themselves, so the state is the batch's; shapes their nodes show are each example's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.func.batched import materialize
from hookgrad.func.batching.core import (
    all_batched,
    batch_size,
    each_example,
    forward,
    register,
    with_params,
)
from hookgrad.func.batching.pointwise import through_numpy
from hookgrad.ops import (
    attention,
    conv,
    dropout,
    embedding,
    loss,
    normalization,
    padding,
    pooling,
    random,
    upsample,
)
from hookgrad.ops.loss import REDUCTIONS, _target_weights

# ---------------------------------------------------------------- random ops

# The random fills draw through the samplers, which ``hookgrad.func.random`` makes draw
# per ``randomness``: they get the batched arrays themselves.
register(
    random.Uniform,
    random.BernoulliTensor,
    random.Bernoulli,
    dropout.NativeDropout,
)(through_numpy)

# ---------------------------------------------------------------- leading dims independent


def _logical_shapes(op: Any, arrays: Sequence[Any]) -> None:
    """The input sizes a node shows and its double backward reads: each example's."""
    if "self" in op.input_names:
        shape = arrays[op.input_names.index("self")].shape
        for name in ("self_sym_sizes", "self_shape"):
            if name in op.__dict__:
                op.__dict__[name] = shape


def planes(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """An op of the last few dims, the leading ones independent: the op itself on the
    whole batch (every array given the batch dim)."""
    result = forward(op, all_batched(values, flags, batch_size(values, flags)))
    _logical_shapes(op, arrays)
    return result, True


def planes_after_batched_forward(
    op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]
) -> Any:
    """A pooling backward that reads its forward's state (argmax positions, windows):
    batched as its forward was, or example by example when the forward's input was not
    batched (a Jacobian through an unbatched forward)."""
    if not flags[op.input_names.index("self")]:
        return each_example(op, values, flags)
    return planes(op, values, flags, arrays)


register(
    pooling.MaxPoolWithIndices,
    pooling.AvgPool,
    pooling.AdaptiveAvgPool,
    pooling.AdaptiveMaxPool,
    padding.ConstantPad,
    padding.IndexPad,
    padding.IndexPadBackward,
    upsample.Upsample,
    upsample.UpsampleBackward,
    pooling.AvgPoolBackward,
    pooling.AdaptiveAvgPoolBackward,
)(planes)
register(pooling.MaxPoolWithIndicesBackward, pooling.IndexedMaxBackward)(
    planes_after_batched_forward
)

# ---------------------------------------------------------------- convolution


def _into_groups(x: Any, size: int) -> Any:
    """``(B, N, C, *S)`` as ``(N, B * C, *S)``: each example a group of channels."""
    moved = np.moveaxis(x, 0, 1)
    return np.ascontiguousarray(moved).reshape(
        (moved.shape[0], size * moved.shape[2]) + moved.shape[3:]
    )


def _out_of_groups(y: Any, size: int) -> Any:
    """``(N, B * C, *S)`` back to ``(B, N, C, *S)``."""
    split = y.reshape((y.shape[0], size, y.shape[1] // size) + y.shape[2:])
    return np.moveaxis(split, 1, 0)


def _stacked_weight(w: Any, batched: bool, size: int) -> Any:
    """A weight per example (``(B, O, ...)``, tiled when shared) as ``(B * O, ...)``."""
    w = materialize(w, batched, size)
    return w.reshape((size * w.shape[1],) + w.shape[2:])


def _fold(x: Any) -> Any:
    """``(B, N, ...)`` as ``(B * N, ...)``."""
    return x.reshape((x.shape[0] * x.shape[1],) + x.shape[2:])


def _unfold(y: Any, size: int) -> Any:
    return y.reshape((size, y.shape[0] // size) + y.shape[1:])


def _convolution(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    x, w, b = values
    fx, fw, fb = flags
    size = batch_size(values, flags)
    if not fw and not fb:
        result = _unfold(forward(op, [_fold(x), w, b]), size)
    else:
        grouped = with_params(op, groups=op.groups * size)
        bias = None if b is None else _stacked_weight(b, fb, size)
        out = forward(
            grouped,
            [_into_groups(materialize(x, fx, size), size), _stacked_weight(w, fw, size), bias],
        )
        result = _out_of_groups(out, size)
    op.bias_sym_sizes_opt = (0,) if b is None else arrays[2].shape
    return result, True


def _convolution_backward(
    op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]
) -> Any:
    grad, x, w = values
    fg, fx, fw = flags
    size = batch_size(values, flags)
    need_input, need_weight, need_bias = op.output_mask
    if not fw and not need_weight and not need_bias:
        grads = forward(
            op, [_fold(materialize(grad, fg, size)), _fold(materialize(x, fx, size)), w]
        )
        return (_unfold(grads[0], size), grads[1], grads[2]), (True, False, False)
    grouped = with_params(op, groups=op.groups * size)
    grads = forward(
        grouped,
        [
            _into_groups(materialize(grad, fg, size), size),
            _into_groups(materialize(x, fx, size), size),
            _stacked_weight(w, fw, size),
        ],
    )
    results = (
        _out_of_groups(grads[0], size) if need_input else None,
        grads[1].reshape((size, -1) + grads[1].shape[1:]) if need_weight else None,
        grads[2].reshape(size, -1) if need_bias else None,
    )
    shapes = (arrays[1].shape, arrays[2].shape, arrays[0].shape[1:2])
    zeros = np.zeros((), arrays[0].dtype)
    return tuple(
        np.broadcast_to(zeros, shape) if value is None else value
        for value, shape in zip(results, shapes)
    ), tuple(value is not None for value in results)


register(conv.Convolution)(_convolution)
register(conv.ConvolutionBackward)(_convolution_backward)

# ---------------------------------------------------------------- normalization


def _layer_norm(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """Normalized over the last dims: the leading ones (the batch too) independent."""
    if flags[1] or flags[2]:
        return each_example(op, values, flags)
    return forward(op, values), (True, True, True)


def _layer_norm_backward(
    op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]
) -> Any:
    """The input's gradient from the kernel on the batch; the weight's and bias's summed
    over each example's leading dims."""
    if flags[4] or flags[5]:
        return each_example(op, values, flags)
    size = batch_size(values, flags)
    grad, x, mean, rstd, w, b = all_batched(values, flags, size)[:4] + values[4:]
    need_input, need_weight, need_bias = op.output_mask
    grads = forward(
        with_params(op, output_mask=(need_input, False, False)), [grad, x, mean, rstd, w, b]
    )
    axis = x.ndim - len(op.normalized_shape)
    outer = tuple(range(1, axis))
    params = tuple(x.shape[axis:])
    zeros = np.broadcast_to(np.zeros((), grad.dtype), params)
    grad_weight = (grad * ((x - mean) * rstd)).sum(outer) if need_weight else zeros
    grad_bias = grad.sum(outer) if need_bias else zeros
    return (grads[0], grad_weight, grad_bias), (True, need_weight, need_bias)


def _group_norm(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """Each example's channels as groups of their own: ``(N, B * C, ...)``, ``B * G``
    groups, the weight and bias stacked."""
    x, w, b = values
    fx, fw, fb = flags
    size = batch_size(values, flags)
    grouped = with_params(op, group=op.group * size)
    weights = [None if v is None else _stacked_weight(v, f, size) for v, f in ((w, fw), (b, fb))]
    out, mean, rstd = forward(grouped, [_into_groups(materialize(x, fx, size), size), *weights])
    logical = arrays[0]
    op.N, op.C = logical.shape[:2]
    op.HxW = int(np.prod(logical.shape[2:], dtype=np.int64))
    return (
        _out_of_groups(out, size),
        _out_of_groups(mean, size),
        _out_of_groups(rstd, size),
    ), True


def _group_norm_backward(
    op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]
) -> Any:
    grad, x, mean, rstd, w = values
    fg, fx, fm, fr, fw = flags
    size = batch_size(values, flags)
    grouped = with_params(op, group=op.group * size)
    arguments = [
        _into_groups(materialize(grad, fg, size), size),
        _into_groups(materialize(x, fx, size), size),
        _into_groups(materialize(mean, fm, size), size),
        _into_groups(materialize(rstd, fr, size), size),
        None if w is None else _stacked_weight(w, fw, size),
    ]
    grad_input, grad_weight, grad_bias = forward(grouped, arguments)
    need_input, need_weight, need_bias = op.output_mask
    return (
        _out_of_groups(grad_input, size),
        grad_weight.reshape(size, -1),
        grad_bias.reshape(size, -1),
    ), True


def _batch_norm(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """Each example's channels as channels of their own, the running statistics (and
    weight, bias) stacked: outside training with the running statistics; in training
    (instance norm too) over each example's own batch, when there are no running
    statistics to update (with them: example by example, each updating them in turn)."""
    if op.training and (values[3] is not None or values[4] is not None):
        return each_example(op, values, flags)
    size = batch_size(values, flags)
    x = values[0]
    stacked = [
        None if v is None else _stacked_weight(v, f, size) for v, f in zip(values[1:], flags[1:])
    ]
    out, mean, invstd = forward(op, [_into_groups(materialize(x, flags[0], size), size), *stacked])
    if op.training:
        return (_out_of_groups(out, size), mean.reshape(size, -1), invstd.reshape(size, -1)), True
    return (_out_of_groups(out, size), mean, invstd), (True, False, False)


def _batch_norm_backward(
    op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]
) -> Any:
    grad, x, w, running_mean, running_var, save_mean, save_invstd = values
    fg, fx, fw, fm, fv, fs, fi = flags
    size = batch_size(values, flags)
    if op.train:
        statistics = [_stacked_weight(save_mean, fs, size), _stacked_weight(save_invstd, fi, size)]
    else:
        statistics = [save_mean, save_invstd]
    arguments = [
        _into_groups(materialize(grad, fg, size), size),
        _into_groups(materialize(x, fx, size), size),
        None if w is None else _stacked_weight(w, fw, size),
        None if running_mean is None else _stacked_weight(running_mean, fm, size),
        None if running_var is None else _stacked_weight(running_var, fv, size),
        *statistics,
    ]
    grad_input, grad_weight, grad_bias = forward(op, arguments)
    return (
        _out_of_groups(grad_input, size),
        grad_weight.reshape(size, -1),
        grad_bias.reshape(size, -1),
    ), True


# ---------------------------------------------------------------- attention


def _attention(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """Attention over the last two dims of ``(N, H, L, E)`` inputs: the examples' N
    folded together (a batched mask goes example by example)."""
    if values[-1] is not None and flags[-1]:
        return each_example(op, values, flags)
    size = batch_size(values, flags)
    tensors = all_batched(values[:-1], flags[:-1], size)
    results = forward(op, [_fold(t) for t in tensors] + [values[-1]])
    return tuple(_unfold(r, size) for r in results), True


register(attention.ScaledDotProductFlashAttentionForCpu)(_attention)
register(attention.ScaledDotProductFlashAttentionForCpuBackward)(_attention)
register(normalization.NativeLayerNorm)(_layer_norm)
register(normalization.NativeLayerNormBackward)(_layer_norm_backward)
register(normalization.NativeGroupNorm)(_group_norm)
register(normalization.GroupNormBackwardKernel)(_group_norm_backward)
register(normalization.NativeBatchNorm)(_batch_norm)
register(normalization.NativeBatchNormBackward)(_batch_norm_backward)

# ---------------------------------------------------------------- embedding


def _embedding(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """Rows picked by batched indices from a shared table: one ``take``."""
    if flags[0]:
        return each_example(op, values, flags)
    return forward(op, values), True


def _embedding_backward(
    op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]
) -> Any:
    """Each example's gradient table: indices offset by the example's table, one
    scatter into ``B`` stacked tables."""
    size = batch_size(values, flags)
    grad, indices = all_batched(values, flags, size)
    offsets = (np.arange(size) * op.num_weights).reshape((size,) + (1,) * (indices.ndim - 1))
    stacked = with_params(op, num_weights=op.num_weights * size, padding_idx=-1)
    tables = forward(stacked, [grad, indices + offsets]).reshape(size, op.num_weights, -1)
    if op.padding_idx >= 0:
        tables[:, op.padding_idx] = 0
    return tables, True


register(embedding.Embedding)(_embedding)
register(embedding.EmbeddingDenseBackward)(_embedding_backward)

# ---------------------------------------------------------------- nll_loss

_NONE, _MEAN = REDUCTIONS["none"], REDUCTIONS["mean"]


def _examples_as_rows(a: Any, target: Any, ndim: int) -> tuple[Any, Any]:
    """Scores ``(B, [N,] C, ...)`` and targets ``(B, [N,] ...)`` as one batch of rows."""
    if ndim == 1:
        return a, target
    return _fold(a), _fold(target)


def _nll_loss(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """Every example's rows as one batch, without reduction; then each example's sum,
    or its sum over its total weight for a mean."""
    a, target, weight = values
    if flags[2]:
        return each_example(op, values, flags)
    size = batch_size(values, flags)
    ndim = arrays[0].ndim
    a, target = all_batched([a, target], flags[:2], size)
    scores, targets = _examples_as_rows(a, target, ndim)
    losses, _ = forward(with_params(op, reduction=_NONE), [scores, targets, weight])
    if op.reduction == _NONE:
        return (losses.reshape(target.shape), np.zeros((), a.dtype)), (True, False)
    weights, _ = _target_weights(
        targets.astype(np.int64, copy=False), weight, op.ignore_index, a.dtype
    )
    total = np.asarray(losses.reshape(size, -1).sum(1), a.dtype)
    total_weight = np.asarray(weights.reshape(size, -1).sum(1), a.dtype)
    if op.reduction == _MEAN:
        with np.errstate(all="ignore"):
            total = np.asarray(total / total_weight, a.dtype)
    return (total, total_weight), True


def _nll_loss_backward(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """torch's ``nll_loss_backward`` on every example's rows at once, each example's
    gradient divided by its own total weight for a mean."""
    grad, a, target, weight, total_weight = values
    if flags[3]:
        return each_example(op, values, flags)
    size = batch_size(values, flags)
    ndim = arrays[1].ndim
    grad, a, target, total_weight = all_batched(
        [grad, a, target, total_weight], [flags[0], flags[1], flags[2], flags[4]], size
    )
    scores, targets = _examples_as_rows(a, target, ndim)
    targets = targets.astype(np.int64, copy=False)
    weights, safe = _target_weights(targets, weight, op.ignore_index, a.dtype)
    coefficients = -weights
    rows = targets.shape[0] // size
    row_shape = (size * rows,) + (1,) * (targets.ndim - 1)
    if op.reduction == _MEAN:
        with np.errstate(all="ignore"):
            ignored = targets == op.ignore_index
            divisor = np.repeat(total_weight.reshape(size, 1), rows, 1).reshape(row_shape)
            coefficients = np.where(ignored, 0, coefficients / divisor)
    if op.reduction == _NONE:
        grad_rows = grad.reshape(targets.shape)
    else:
        grad_rows = np.repeat(grad.reshape(size, 1), rows, 1).reshape(row_shape)
    coefficients = (coefficients * grad_rows).astype(a.dtype, copy=False)
    result = np.zeros(scores.shape, a.dtype)
    np.put_along_axis(result, safe[:, None], coefficients[:, None], axis=1)
    return result.reshape(a.shape), True


register(loss.NllLoss)(_nll_loss)
register(loss.NllLossBackward)(_nll_loss_backward)
