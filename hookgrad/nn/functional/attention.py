"""nn.functional: attention (``scaled_dot_product_attention``,
``multi_head_attention_forward``).

``scaled_dot_product_attention`` chooses as torch does on the CPU: 4-D float inputs with
no dropout, same head counts and head dims, and a mask that needs no gradient and is 2-D
or 4-D broadcastable run the fused flash-attention node
(``ScaledDotProductFlashAttentionForCpuBackward0``, ``hookgrad.ops.attention``); the
others torch's math path, op for op (query and key each scaled by ``sqrt(scale)``,
``matmul``, mask added, ``_safe_softmax``, dropout from the default generator,
``matmul``). ``multi_head_attention_forward`` is torch's Python function, line for line.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import hookgrad
from hookgrad.nn.functional.activation import softmax
from hookgrad.nn.functional.dropout import dropout
from hookgrad.nn.functional.linear import linear
from hookgrad.ops.attention import SafeSoftmax, ScaledDotProductFlashAttentionForCpu
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.padding import pad

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

_FLASH_DTYPES = ("float32", "float64")


def _dtype_name(tensor: Tensor) -> str:
    """torch's short name of a dtype in messages (``float``, ``double``, ``long int``)."""
    return {
        "float32": "float",
        "float64": "double",
        "float16": "c10::Half",
        "int64": "long int",
        "int32": "int",
        "int16": "short int",
        "int8": "signed char",
        "uint8": "unsigned char",
        "bool": "bool",
        "complex64": "c10::complex<float>",
        "complex128": "c10::complex<double>",
    }[str(tensor.dtype).split(".")[-1]]


def _validate_sdpa_input(
    query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None
) -> None:
    """torch's ``validate_sdpa_input``."""
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_dtype_name(query)} key.dtype: {_dtype_name(key)} and value.dtype: "
            f"{_dtype_name(value)} instead."
        )
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if attn_mask is not None and attn_mask.dtype not in (hookgrad.bool, hookgrad.float32):
        if attn_mask.dtype != query.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but "
                f"got attn_mask.dtype: {_dtype_name(attn_mask)} and  query.dtype: "
                f"{_dtype_name(query)} instead."
            )


def _use_flash(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    enable_gqa: bool,
) -> bool:
    """torch's ``use_flash_attention_cpp``: where its CPU flash kernel runs."""
    if dropout_p > 0.0 or not (query.ndim == key.ndim == value.ndim == 4):
        return False
    batch, heads, length, size = query.shape
    if key.shape[0] != batch or value.shape[0] != batch:
        return False
    if enable_gqa:
        if key.shape[1] != value.shape[1] or heads % key.shape[1]:
            return False
    elif key.shape[1] != heads or value.shape[1] != heads:
        return False
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return False
        if attn_mask.size(-2) not in (length, 1) or attn_mask.size(-1) not in (key.shape[2], 1):
            return False
        if attn_mask.ndim == 4:
            if attn_mask.shape[0] not in (1, batch) or attn_mask.shape[1] not in (1, heads):
                return False
        elif attn_mask.ndim != 2:
            return False
    if key.shape[-1] != size or value.shape[-1] != size:
        return False
    if length == 0 or key.shape[2] == 0:
        return False
    if query.stride(-1) != 1 or key.stride(-1) != 1 or value.stride(-1) != 1:
        return False
    return str(query.dtype).split(".")[-1] in _FLASH_DTYPES


def _float_mask(mask: Tensor | None, dtype: Any) -> Tensor | None:
    """torch's ``convert_boolean_attn_mask``: a bool mask (True: attend) as 0 / -inf."""
    if mask is None or mask.dtype != hookgrad.bool:
        return mask
    return hookgrad.zeros_like(mask, dtype=dtype).masked_fill_(mask.logical_not(), -math.inf)


def _repeat_heads(tensor: Tensor, repeats: int) -> Tensor:
    """``tensor.repeat_interleave(repeats, -3)`` as torch composes it."""
    dim = tensor.ndim - 3
    expanded = tensor.unsqueeze(dim + 1)
    shape = list(expanded.shape)
    shape[dim + 1] = repeats
    return expanded.expand(shape).clone().flatten(dim, dim + 1)


def _group_query_heads(
    query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool
) -> tuple[Tensor, Tensor]:
    """torch's ``pre_process_group_query_attention_input``: key and value heads repeated
    to the query's head count."""
    if not enable_gqa:
        return key, value
    heads, key_heads, value_heads = query.shape[-3], key.shape[-3], value.shape[-3]
    if heads == key_heads == value_heads:
        return key, value
    if heads % key_heads or heads % value_heads:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return _repeat_heads(key, heads // key_heads), _repeat_heads(value, heads // value_heads)


def _math_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    scale: float | None,
    enable_gqa: bool,
) -> Tensor:
    """torch's ``_scaled_dot_product_attention_math``."""
    negative = scale is not None and scale < 0.0
    softmax_scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else abs(scale)
    factor = math.sqrt(softmax_scale)
    query = query * (0.0 - factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True"
            )
        length, source = query.shape[-2], key.shape[-2]
        causal = hookgrad.ones(length, source, dtype=hookgrad.bool).tril()
        attn_mask = _float_mask(causal, query.dtype)
    key, value = _group_query_heads(query, key, value, enable_gqa)
    attn = query.matmul(key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = apply(SafeSoftmax(-1), attn)
    if dropout_p > 0.0:
        if dropout_p > 1.0:  # torch's C++ dropout: a RuntimeError
            raise RuntimeError(
                f"dropout probability has to be between 0 and 1, but got {dropout_p}"
            )
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(query @ key.T * scale + mask) @ value`` over the last two dims
    (``(..., L, E)`` queries, ``(..., S, E)`` keys, ``(..., S, Ev)`` values).

    ``attn_mask``: bool (True: may attend) or float (added to the scores), broadcast to
    ``(..., L, S)``. ``is_causal``: query ``i`` attends to keys ``j <= i`` only.
    ``scale``: default ``1 / sqrt(E)``. ``dropout_p``: dropout of the attention weights
    (from the default generator, as torch's). ``enable_gqa``: key and value may have
    fewer heads (dim -3), each shared by a group of query heads.

    Example::

        q = k = v = hookgrad.randn(2, 4, 10, 16)   # batch, heads, sequence, head dim
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # (2, 4, 10, 16)
    """
    _validate_sdpa_input(query, key, value, attn_mask)
    flash = _use_flash(query, key, value, attn_mask, dropout_p, enable_gqa)
    attn_mask = _float_mask(attn_mask, query.dtype)
    if flash:
        if dropout_p != 0.0:
            raise RuntimeError(
                "scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0"
            )
        op = ScaledDotProductFlashAttentionForCpu(is_causal, scale)
        return apply(op, query, key, value, attn_mask)[0]
    return _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


# ---------------------------------------------------------------- multi-head attention


def _mha_shape_check(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """torch's checks of the ranks of a multi-head attention's inputs; whether batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or "
                f"1-D but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                    f"3-D but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected_shape:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected_shape} but got "
                        f"{attn_mask.shape}"
                    )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: Any,
    other_name: str,
    target_type: Any,
    check_other: bool = True,
) -> Tensor | None:
    """A bool mask as a float one (True: -inf); a float mask as it is."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != hookgrad.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
            "type for both instead.",
            stacklevel=3,
        )
    if not is_float:
        mask = hookgrad.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _in_projection_packed(
    q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """Project query, key and value with the packed ``(3E, E)`` weight: one product for
    self-attention, two when key is value."""
    size = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, size)).unsqueeze(0).transpose(0, -2)
            proj = proj.squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([size, size * 2])
        b_q, b_kv = (None, None) if b is None else b.split([size, size * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv).unflatten(-1, (2, size)).unsqueeze(0).transpose(0, -2)
        kv_proj = kv_proj.squeeze(-2).contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    w_q: Tensor,
    w_k: Tensor,
    w_v: Tensor,
    b_q: Tensor | None = None,
    b_k: Tensor | None = None,
    b_v: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Project query, key and value with separate weights (checked as torch does)."""
    size_q, size_k, size_v = q.size(-1), k.size(-1), v.size(-1)
    for name, weight, expected in (
        ("query", w_q, (size_q, size_q)),
        ("key", w_k, (size_q, size_k)),
        ("value", w_v, (size_q, size_v)),
    ):
        if weight.shape != expected:
            raise AssertionError(
                f"expecting {name} weights shape of {expected}, but got {weight.shape}"
            )
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and bias.shape != (size_q,):
            raise AssertionError(
                f"expecting {name} bias shape of {(size_q,)}, but got {bias.shape}"
            )
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _check_attn_mask(attn_mask: Tensor, tgt_len: int, src_len: int, heads: int) -> Tensor:
    """A 2-D mask as ``(1, L, S)``; a 3-D one must be ``(B * heads, L, S)``."""
    if attn_mask.dim() == 2:
        if attn_mask.shape != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if attn_mask.shape != (heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(heads, tgt_len, src_len)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _static(static: Tensor, heads: int, head_dim: int, name: str) -> Tensor:
    if static.size(0) != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of ``query (L, N, E)`` over ``key (S, N, Ek)`` and ``value
    (S, N, Ev)`` (or unbatched ``(L, E)`` ...), as ``nn.MultiheadAttention`` computes it:
    ``(attn_output (L, N, E), attn_weights (N, L, S) averaged over heads, or per head
    (N, heads, L, S), or None without need_weights)``.

    ``key_padding_mask (N, S)``: True (or -inf) for keys to ignore. ``attn_mask (L, S)`` or
    ``(N * heads, L, S)``: bool (True: not allowed) or float (added). ``bias_k``/``bias_v``
    append a learned key/value, ``add_zero_attn`` a zero one. ``static_k``/``static_v``
    replace the projected keys/values ``(N * heads, S, E / heads)``.

    Example::

        mha = nn.MultiheadAttention(16, 4)
        out, weights = F.multi_head_attention_forward(
            x, x, x, 16, 4, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0,
            mha.out_proj.weight, mha.out_proj.bias)
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask,
        "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype,
        "attn_mask",
        query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # The mask is only a hint: the causal kernel needs no mask.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v
        )
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz * num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = hookgrad.cat([k, bias_k.repeat(1, bsz, 1)])
        v = hookgrad.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    heads = bsz * num_heads
    q = q.view(tgt_len, heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], heads, head_dim).transpose(0, 1)
    else:
        k = _static(static_k, heads, head_dim, "static_k")
    if static_v is None:
        v = v.view(v.shape[0], heads, head_dim).transpose(0, 1)
    else:
        v = _static(static_v, heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = (heads, 1, head_dim)
        k = hookgrad.cat([k, hookgrad.zeros(zeros, dtype=k.dtype)], dim=1)
        v = hookgrad.cat([v, hookgrad.zeros(zeros, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = hookgrad.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = hookgrad.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        attn_output = hookgrad.bmm(weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            weights = weights.squeeze(0)
        return attn_output, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
