"""Attention ops: torch's CPU flash-attention node for ``scaled_dot_product_attention``
(``ScaledDotProductFlashAttentionForCpuBackward0``) and ``_safe_softmax``
(``SafeSoftmaxBackward0``), the softmax of its math path.

Flash attention computes ``softmax(q k^T * scale + mask) v`` per batch and head and keeps
the log-sum-exp of each row for the backward, which recomputes the probabilities from it
(as torch's kernel, no ``(L, S)`` matrix is saved). Rows whose every score is masked out
give zeros (their log-sum-exp is 0). torch has no derivative for this backward: a second
backward through it raises, as in torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import table
from hookgrad.ops.base import Op
from hookgrad.ops.not_implemented import NotImplementedBackward
from hookgrad.ops.util import wrap_dim

# ---------------------------------------------------------------- array kernels


def _causal_bias(rows: slice, keys: int, dtype: np.dtype) -> np.ndarray:
    """-inf where a key comes after its query, for query ``rows`` and the first ``keys``
    keys (torch's causal mask: query ``i`` sees keys ``j <= i``)."""
    return np.triu(np.full((rows.stop - rows.start, keys), -np.inf, dtype), rows.start + 1)


def _block(mask: np.ndarray | None, rows: slice, keys: int) -> np.ndarray | None:
    """The part of a (broadcastable) mask for query ``rows`` and the first ``keys`` keys."""
    if mask is None:
        return None
    rows = rows if mask.shape[-2] > 1 else slice(None)
    columns = slice(0, keys) if mask.shape[-1] > 1 else slice(None)
    return mask[..., rows, columns]


def _blocks(
    mask: np.ndarray | None, is_causal: bool, length: int, source: int, dtype: np.dtype
) -> list[tuple[slice, int, np.ndarray | None]]:
    """``(query rows, keys used, bias)`` for each block of query rows. With a causal mask
    and enough rows, blocks of rows skip the keys none of their queries sees (as torch's
    flash kernel skips the masked tiles): about 40% of the work for 4 or more blocks;
    otherwise one block of everything."""
    if not is_causal:
        return [(slice(0, length), source, mask)]
    size = length if length < 2 * _MIN_BLOCK_ROWS else max(_MIN_BLOCK_ROWS, length // 8)
    blocks = []
    for start in range(0, length, size):
        rows = slice(start, min(start + size, length))
        keys = min(rows.stop, source)
        bias = _causal_bias(rows, keys, dtype)
        part = _block(mask, rows, keys)
        blocks.append((rows, keys, bias if part is None else part + bias))
    return blocks


_MIN_BLOCK_ROWS = 32


def _shared_heads(q: np.ndarray, kv: np.ndarray) -> np.ndarray:
    """Key or value heads (dim 1) repeated for the groups of query heads sharing each."""
    groups = q.shape[1] // kv.shape[1]
    return kv if groups == 1 else np.repeat(kv, groups, axis=1)


def _group_sum(grad: np.ndarray, heads: int) -> np.ndarray:
    """The gradient of ``_shared_heads``: each shared head's group summed."""
    if grad.shape[1] == heads:
        return grad
    return grad.reshape(grad.shape[0], heads, -1, *grad.shape[2:]).sum(2)


def _transposed(a: np.ndarray) -> np.ndarray:
    """The last two dims swapped, in memory: BLAS multiplies a few rows by it about
    twice as fast as by a transposed view."""
    return np.ascontiguousarray(a.swapaxes(-1, -2))


def _probabilities(
    q_scaled: np.ndarray, k_t: np.ndarray, bias: np.ndarray | None, logsumexp: np.ndarray
) -> np.ndarray:
    """``exp((q * scale) k^T + bias - logsumexp)``: the attention weights again."""
    probs = np.matmul(q_scaled, k_t)
    if bias is not None:
        probs += bias
    probs -= logsumexp[..., None]
    return np.exp(probs, out=probs)


def flash_attention_forward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None,
    is_causal: bool,
    scale: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``(output, logsumexp)`` of attention over the last two dims (the query scaled
    before its product with the keys); key and value may have fewer heads than the query
    (dim 1), each shared by a group of query heads."""
    k, v = _shared_heads(q, k), _shared_heads(q, v)
    q_scaled = q * q.dtype.type(scale)
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    output = np.empty(batch + (q.shape[-2], v.shape[-1]), q.dtype)
    logsumexp = np.empty(output.shape[:-1], q.dtype)
    k_t = _transposed(k)
    for rows, keys, bias in _blocks(mask, is_causal, q.shape[-2], k.shape[-2], q.dtype):
        scores = np.matmul(q_scaled[..., rows, :], k_t[..., :keys])
        if bias is not None:
            scores += bias
        row_max = scores.max(-1, keepdims=True)
        row_max[np.isneginf(row_max)] = 0  # a row masked out entirely: zeros, not NaN
        scores -= row_max
        np.exp(scores, out=scores)
        total = scores.sum(-1, keepdims=True)
        total[total == 0] = 1
        block = np.matmul(scores, v[..., :keys, :], out=output[..., rows, :])
        block /= total
        logsumexp[..., rows] = (row_max + np.log(total))[..., 0]
    return output, logsumexp


def flash_attention_backward(
    grad: np.ndarray,
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    output: np.ndarray,
    logsumexp: np.ndarray,
    mask: np.ndarray | None,
    is_causal: bool,
    scale: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradients of ``q, k, v``: the probabilities again from the log-sum-exp, then
    ``dV = P^T dO``, ``dS = P * (dO V^T - rowsum(dO * O))``, ``dQ = dS K s``,
    ``dK = dS^T Q s`` (block by block of query rows, as the forward)."""
    heads = k.shape[1]
    k, v = _shared_heads(q, k), _shared_heads(q, v)
    q_scaled = q * q.dtype.type(scale)
    blocks = _blocks(mask, is_causal, q.shape[-2], k.shape[-2], q.dtype)
    row_terms = np.einsum("...i,...i->...", grad, output)[..., None]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], grad.shape[:-2])
    grad_q = np.empty(batch + q.shape[-2:], q.dtype)
    grad_k, grad_v = (
        np.zeros(batch + k.shape[-2:], k.dtype),
        np.zeros(batch + v.shape[-2:], v.dtype),
    )
    k_t, v_t = _transposed(k), _transposed(v)
    for rows, keys, bias in blocks:
        probs = _probabilities(q_scaled[..., rows, :], k_t[..., :keys], bias, logsumexp[..., rows])
        grad_rows = grad[..., rows, :]
        grad_v[..., :keys, :] += np.matmul(probs.swapaxes(-1, -2), grad_rows)
        grad_scores = np.matmul(grad_rows, v_t[..., :keys])
        grad_scores -= row_terms[..., rows, :]
        grad_scores *= probs
        np.matmul(grad_scores, k[..., :keys, :], out=grad_q[..., rows, :])
        grad_k[..., :keys, :] += np.matmul(grad_scores.swapaxes(-1, -2), q_scaled[..., rows, :])
    grad_q *= grad_q.dtype.type(scale)
    return grad_q, _group_sum(grad_k, heads), _group_sum(grad_v, heads)


def safe_softmax(a: np.ndarray, dim: int) -> np.ndarray:
    """Softmax along ``dim``; a slice that is -inf everywhere gives zeros (not NaN)."""
    if a.size == 0:
        return a.copy()
    row_max = a.max(dim, keepdims=True)
    masked = np.isneginf(row_max)
    row_max[masked] = 0
    exp = np.exp(a - row_max)
    total = exp.sum(dim, keepdims=True)
    total[masked] = 1
    exp /= total
    return exp


# ---------------------------------------------------------------- the ops


class SafeSoftmax(Op):
    """torch's ``_safe_softmax(self, dim)``: softmax, with zeros for rows that are
    masked out entirely; the gradient is softmax's (``_softmax_backward_data``)."""

    input_names = ("self",)
    saves = ("result",)
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any) -> Any:
        self.input_dtype = a.dtype
        return safe_softmax(a, wrap_dim(self.dim, a.ndim))

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return table.call("_softmax_backward_data", grad, result, self.dim, self.input_dtype)


class ScaledDotProductFlashAttentionForCpu(Op):
    """torch's ``_scaled_dot_product_flash_attention_for_cpu(query, key, value,
    dropout_p, is_causal, attn_mask=, scale=)`` on ``(B, H, L, E)`` inputs: outputs
    ``output`` and ``logsumexp`` (``(B, H, L)``, without history). ``attn_mask`` is a
    float mask (added to the scores) or None; it gets no gradient."""

    input_names = ("query", "key", "value", "attn_mask")
    non_differentiable = ("attn_mask",)
    output_names = ("output", "logsumexp")
    saves = ("query", "key", "value", "output", "logsumexp", "attn_mask")
    saved_attributes = ("dropout_p", "is_causal", "scale")
    differentiable_outputs = 1

    def __init__(self, is_causal: bool, scale: float | None) -> None:
        self.dropout_p = 0.0
        self.is_causal = is_causal
        self.scale = scale

    def scale_for(self, q: Any) -> float:
        return 1.0 / np.sqrt(q.shape[-1]) if self.scale is None else self.scale

    def forward(self, q: Any, k: Any, v: Any, mask: Any) -> Any:
        return flash_attention_forward(q, k, v, mask, self.is_causal, self.scale_for(q))

    def backward(self, grad: Any) -> Any:
        q, k, v, output, logsumexp, mask = self.unpack()
        op = ScaledDotProductFlashAttentionForCpuBackward(self.is_causal, self.scale_for(q))
        grads = grad._apply_op(op, q, k, v, output, logsumexp, mask)
        return (*grads, None)


class ScaledDotProductFlashAttentionForCpuBackward(NotImplementedBackward):
    """torch's ``_scaled_dot_product_flash_attention_for_cpu_backward``: the gradients of
    ``query, key, value``; torch gives it no derivative."""

    aten_name = "_scaled_dot_product_flash_attention_for_cpu_backward"
    input_names = ("grad_out", "query", "key", "value", "out", "logsumexp", "attn_mask")

    def __init__(self, is_causal: bool, scale: float) -> None:
        self.is_causal = is_causal
        self.scale = scale

    def forward(self, grad: Any, q: Any, k: Any, v: Any, output: Any, lse: Any, mask: Any) -> Any:
        return flash_attention_backward(
            grad, q, k, v, output, lse, mask, self.is_causal, self.scale
        )
