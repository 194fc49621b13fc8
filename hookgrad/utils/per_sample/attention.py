"""Per-example gradients of ``MultiheadAttention``, by recomputation (``recompute.py``):
its weights enter through linear maps, the query, key and value projections and the
output projection ``out_proj`` (whose parameters it uses without calling it); the
attention in between is recomputed by ``F.multi_head_attention_forward`` itself, given
the projected query, key and value and identity projections. ``bias_k``/``bias_v`` are
appended once per example, so that each example's copy gets its own gradient.

Dropout on the attention weights in training mode (whose mask is not kept) is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import hookgrad
from hookgrad import grad_mode
from hookgrad.nn.functional import attention as F_attention
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample.call import Call
from hookgrad.utils.per_sample.recompute import Recorder, factored

__all__ = ["multihead_attention"]


def _padded(mask: Tensor | None) -> Tensor | None:
    """``mask`` with one more key (allowed) at the end, for the appended ``bias_k``."""
    if mask is None:
        return None
    pad = [(0, 0)] * (mask.dim() - 1) + [(0, 1)]
    return Tensor._make(np.pad(mask._data, pad))


def multihead_attention(module: Any, call: Call) -> dict[str, Any]:
    """``MultiheadAttention``: projections and ``out_proj`` per example."""
    query, key, value = (call.argument(i, name) for i, name in enumerate(("query", "key", "value")))
    if query.dim() != 3:
        raise ValueError(
            "per-sample gradients need a batch dimension: MultiheadAttention got a query of "
            f"shape {list(query.shape)}"
        )
    if module.dropout and module.training:
        raise ValueError(
            f"per-sample gradients of MultiheadAttention with dropout={module.dropout} in "
            "training mode need its dropout mask, which is not kept: use dropout=0"
        )
    key_padding_mask = call.argument(3, "key_padding_mask")
    need_weights = call.argument(4, "need_weights", True)
    attn_mask = call.argument(5, "attn_mask")
    average = call.argument(6, "average_attn_weights", True)
    is_causal = call.argument(7, "is_causal", False)
    arrays = [t._data for t in (query, key, value)]
    if module.batch_first:
        arrays = [np.swapaxes(a, 0, 1) for a in arrays]  # (length, batch, features)
    embed = module.embed_dim
    if module._qkv_same_embed_dim:
        weights = np.split(module.in_proj_weight._data, 3)
    else:
        weights = [getattr(module, f"{p}_proj_weight")._data for p in "qkv"]
    biases = [None] * 3 if module.in_proj_bias is None else np.split(module.in_proj_bias._data, 3)
    recorder = Recorder()
    batch = arrays[0].shape[1]
    with grad_mode.enable_grad():
        projected = []
        for part, array, weight, bias in zip("qkv", arrays, weights, biases):
            out = recorder.linear(part, Tensor._make(array), weight, batch_axis=1)
            projected.append(out if bias is None else out + Tensor._make(bias))
        q, k, v = projected
        if module.bias_k is not None:
            extra_k = recorder.leaf(np.broadcast_to(module.bias_k._data, (1, batch, embed)))
            extra_v = recorder.leaf(np.broadcast_to(module.bias_v._data, (1, batch, embed)))
            k, v = hookgrad.cat([k, extra_k]), hookgrad.cat([v, extra_v])
            attn_mask, key_padding_mask = _padded(attn_mask), _padded(key_padding_mask)
        eye = Tensor._make(np.eye(embed, dtype=arrays[0].dtype))
        attended, attn_weights = F_attention.multi_head_attention_forward(
            q,
            k,
            v,
            embed,
            module.num_heads,
            None,
            None,
            None,
            None,
            module.add_zero_attn,
            0.0,
            eye,
            None,
            training=module.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=True,
            q_proj_weight=eye,
            k_proj_weight=eye,
            v_proj_weight=eye,
            average_attn_weights=average,
            is_causal=is_causal,
        )
        out = recorder.linear("out", attended, module.out_proj.weight._data, batch_axis=1)
        if module.out_proj.bias is not None:
            out = out + Tensor._make(module.out_proj.bias._data)
        if module.batch_first:
            out = out.transpose(0, 1)
        outputs = [out] if attn_weights is None else [out, attn_weights]
        maps, extras = recorder.backprop(outputs, call)
    result: dict[str, Any] = {}
    parts = {
        p: factored(maps[p], (embed, arrays[i].shape[2])).materialize() for i, p in enumerate("qkv")
    }
    if module._qkv_same_embed_dim:
        result["in_proj_weight"] = np.concatenate([parts[p] for p in "qkv"], axis=1)
    else:
        for p in "qkv":
            result[f"{p}_proj_weight"] = parts[p]
    if module.in_proj_bias is not None:
        result["in_proj_bias"] = np.concatenate([maps[p][1].sum(axis=1) for p in "qkv"], axis=1)
    result["out_proj.weight"] = factored(maps["out"], (embed, embed))
    if module.out_proj.bias is not None:
        result["out_proj.bias"] = maps["out"][1].sum(axis=1)
    if module.bias_k is not None:
        result["bias_k"] = np.swapaxes(extras[0], 0, 1)[:, :, None, :]
        result["bias_v"] = np.swapaxes(extras[1], 0, 1)[:, :, None, :]
    return result
