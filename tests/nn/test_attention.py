"""``F.scaled_dot_product_attention``, ``nn.MultiheadAttention`` and
``F.multi_head_attention_forward`` against torch: values, gradients (inputs, masks,
weights) and output nodes in float32 and float64, torch's choice of the fused CPU
flash-attention node or the math path, dropout draws, masks of every kind, errors;
gradcheck (and gradgradcheck where torch has second derivatives)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from tests.oracle import assert_close, outcome, saved_values

DTYPES = ["float32", "float64"]


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-5, "atol": 2e-6} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _array(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _bool_mask(shape: tuple[int, ...]) -> np.ndarray:
    mask = np.random.default_rng(7).random(shape) > 0.3
    mask[..., 0] = True
    return mask


FULLY_MASKED = np.array([[1, 1, 0, 0, 1], [0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)

# name, (query, key, value) shapes, keyword arguments (arrays: masks; "grad_mask": a float
# mask that needs a gradient)
SDPA = [
    ("flash", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)), {}),
    (
        "flash_causal_scale",
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
        {"is_causal": True, "scale": 0.3},
    ),
    (
        "flash_float_mask",
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
        {"attn_mask": ("float", (4, 5))},
    ),
    (
        "flash_bool_mask_4d",
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
        {"attn_mask": ("bool", (2, 1, 4, 5))},
    ),
    (
        "flash_fully_masked_rows",
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
        {"attn_mask": FULLY_MASKED},
    ),
    (
        "flash_mask_and_causal",
        ((1, 2, 4, 8), (1, 2, 5, 8), (1, 2, 5, 8)),
        {"attn_mask": ("float", (4, 5)), "is_causal": True},
    ),
    ("flash_gqa", ((2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)), {"enable_gqa": True}),
    # long enough for blocks of query rows that skip the keys a causal mask hides
    ("flash_causal_blocks", ((1, 2, 70, 4), (1, 2, 70, 4), (1, 2, 70, 4)), {"is_causal": True}),
    (
        "flash_causal_blocks_fewer_keys_key_mask",
        ((2, 2, 80, 4), (2, 2, 50, 4), (2, 2, 50, 4)),
        {"attn_mask": ("float", (2, 1, 1, 50)), "is_causal": True},
    ),
    (
        "flash_causal_blocks_more_keys_full_mask",
        ((1, 1, 66, 4), (1, 1, 90, 4), (1, 1, 90, 4)),
        {"attn_mask": ("float", (66, 90)), "is_causal": True},
    ),
    ("math_3d_causal", ((3, 4, 8), (3, 5, 8), (3, 5, 8)), {"is_causal": True}),
    ("math_3d_fully_masked_rows", ((3, 4, 8), (3, 5, 8), (3, 5, 8)), {"attn_mask": FULLY_MASKED}),
    ("math_2d", ((4, 8), (5, 8), (5, 8)), {}),
    ("math_value_dim_negative_scale", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), {"scale": -0.3}),
    (
        "math_mask_needs_grad",
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
        {"attn_mask": ("grad", (4, 5))},
    ),
    (
        "math_3d_mask",
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
        {"attn_mask": ("float", (3, 4, 5))},
    ),
    ("math_gqa", ((2, 4, 4, 8), (2, 2, 5, 8), (2, 1, 5, 8)), {"enable_gqa": True}),
    ("math_broadcast_batch", ((2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 8)), {}),
    ("math_dropout", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)), {"dropout_p": 0.4}),
]


def _sdpa(lib: Any, shapes: Any, kwargs: dict, dtype: str) -> dict[str, Any]:
    q, k, v = (lib.tensor(_array(s, dtype, i), requires_grad=True) for i, s in enumerate(shapes))
    leaves = [q, k, v]
    kw = dict(kwargs)
    mask = kw.get("attn_mask")
    if isinstance(mask, np.ndarray):
        kw["attn_mask"] = lib.tensor(mask)
    elif mask is not None:
        kind, shape = mask
        if kind == "bool":
            kw["attn_mask"] = lib.tensor(_bool_mask(shape))
        else:
            kw["attn_mask"] = lib.tensor(_array(shape, dtype, 9), requires_grad=kind == "grad")
            if kind == "grad":
                leaves.append(kw["attn_mask"])
    lib.manual_seed(3)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    out.backward(lib.tensor(_array(tuple(out.shape), dtype, 11)))
    return {"out": out, "node": out.grad_fn.name(), "grads": [x.grad for x in leaves]}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", SDPA, ids=lambda c: c[0])
def test_scaled_dot_product_attention_matches_torch(torch, dtype, case):
    _, shapes, kwargs = case
    ours, theirs = _sdpa(hookgrad, shapes, kwargs, dtype), _sdpa(torch, shapes, kwargs, dtype)
    assert ours["node"] == theirs["node"]
    assert_close(ours["out"], theirs["out"], **_tol(dtype))
    assert_close(ours["grads"], theirs["grads"], **_tol(dtype))


def test_flash_node_saves_what_torch_saves(torch):
    def run(lib):
        q, k, v = (lib.tensor(_array((1, 2, 3, 4), "float32", i)) for i in range(3))
        q.requires_grad_()
        mask = lib.tensor(_bool_mask((3, 3)))
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, mask, scale=0.5).grad_fn

    ours, theirs = saved_values(run(hookgrad)), saved_values(run(torch))
    assert ours.keys() == theirs.keys()
    assert_close(list(ours.values()), list(theirs.values()))


def test_flash_double_backward_fails_as_torch(torch):
    def run(lib):
        q = lib.tensor(_array((1, 1, 3, 4), "float64", 0), requires_grad=True)
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        (grad,) = lib.autograd.grad(out.sum(), q, create_graph=True)
        return grad.grad_fn.name(), outcome(lambda _: lib.autograd.grad(grad.sum(), q), lib)

    assert run(hookgrad) == run(torch)


def test_sdpa_gradcheck():
    gen = np.random.default_rng(0)
    flash = [
        hookgrad.tensor(gen.standard_normal((1, 2, 3, 2)), requires_grad=True) for _ in range(3)
    ]
    mask = hookgrad.tensor(gen.standard_normal((3, 3)))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, mask), flash)
    math = [hookgrad.tensor(gen.standard_normal((2, 3, 2)), requires_grad=True) for _ in range(3)]
    math.append(hookgrad.tensor(gen.standard_normal((3, 3)), requires_grad=True))

    def run(q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, m, is_causal=False, scale=0.7)

    assert gradcheck(run, math)
    assert gradgradcheck(run, math)


SDPA_ERRORS = {
    "dtypes": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 2, 3), t.ones(1, 2, 3, dtype=t.float64), t.ones(1, 2, 3)
    ),
    "rank": lambda t: t.nn.functional.scaled_dot_product_attention(t.ones(3), t.ones(3), t.ones(3)),
    "mask_dtype": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(2, 2, dtype=t.int64)
    ),
    "mask_dtype_double": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(2, 2, dtype=t.float64)
    ),
    "mask_shape": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 1, 2, 3), t.ones(1, 1, 2, 3), t.ones(1, 1, 2, 3), t.ones(2, 4)
    ),
    "mask_1d": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 1, 2, 3), t.ones(1, 1, 2, 3), t.ones(1, 1, 2, 3), t.ones(2)
    ),
    "math_mask_and_causal": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(2, 2), is_causal=True
    ),
    "gqa_heads": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 3, 2, 4), t.ones(1, 2, 2, 4), t.ones(1, 2, 2, 4), enable_gqa=True
    ),
    "dropout": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 2, 3), t.ones(1, 2, 3), t.ones(1, 2, 3), dropout_p=1.5
    ),
    "negative_dropout": lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(1, 1, 2, 3), t.ones(1, 1, 2, 3), t.ones(1, 1, 2, 3), dropout_p=-0.5
    ),
}


@pytest.mark.parametrize("name", SDPA_ERRORS)
def test_sdpa_errors_match_torch(torch, name):
    assert outcome(SDPA_ERRORS[name], hookgrad) == outcome(SDPA_ERRORS[name], torch)


# ---------------------------------------------------------------- multi-head attention

E, HEADS, L, S, N = 8, 2, 3, 4, 2

# name, constructor keywords, inputs ("self": query is key is value; "kv": key is value;
# "kvdim": key and value of their own sizes; "unbatched"), forward keywords (masks as
# names, made below)
MHA = [
    ("self", {}, "self", {}),
    (
        "batch_first_bool_mask_no_weights",
        {"batch_first": True},
        "self",
        {"attn_mask": "bool2", "need_weights": False},
    ),
    (
        "per_head_weights_3d_mask_padding",
        {"batch_first": True},
        "self",
        {"attn_mask": "float3", "key_padding_mask": "bool", "average_attn_weights": False},
    ),
    (
        "kv_bias_kv_zero_attn_float_masks",
        {"add_bias_kv": True, "add_zero_attn": True},
        "kv",
        {"attn_mask": "float2", "key_padding_mask": "float"},
    ),
    (
        "kdim_vdim_no_bias",
        {"kdim": 5, "vdim": 6, "bias": False, "batch_first": True},
        "kvdim",
        {"key_padding_mask": "bool", "need_weights": False},
    ),
    ("dropout", {"dropout": 0.3}, "self", {}),
    (
        "causal",
        {"batch_first": True},
        "self",
        {"attn_mask": "causal", "is_causal": True, "need_weights": False},
    ),
    (
        "unbatched",
        {"add_bias_kv": True},
        "unbatched",
        {"attn_mask": "bool2", "key_padding_mask": "bool"},
    ),
]


def _masks(name: str | None, dtype: str, batched: bool, source: int) -> Any:
    rng = np.random.default_rng(5)
    if name is None:
        return None
    if name == "bool2":
        mask = rng.random((L, source)) > 0.7
        mask[:, 0] = False
        return mask
    if name == "float2":
        return rng.standard_normal((L, source)).astype(dtype)
    if name == "float3":
        return rng.standard_normal(((N if batched else 1) * HEADS, L, source)).astype(dtype)
    if name == "causal":
        return np.triu(np.ones((L, source), bool), 1)
    padding = np.zeros((N, source) if batched else (source,), bool)
    padding[..., -1] = True
    if name == "float":
        return np.where(padding, -np.inf, 0.0).astype(dtype)
    return padding


def _mha(lib: Any, make: dict, inputs: str, call: dict, dtype: str) -> dict[str, Any]:
    lib.manual_seed(1)
    mha = lib.nn.MultiheadAttention(E, HEADS, dtype=getattr(lib, dtype), **make)
    batched = inputs != "unbatched"
    first = make.get("batch_first", False)

    def shape(length: int, size: int) -> tuple[int, ...]:
        if not batched:
            return (length, size)
        return (N, length, size) if first else (length, N, size)

    query = lib.tensor(_array(shape(L, E), dtype, 0), requires_grad=True)
    leaves = [query]
    if inputs == "self":
        key = value = query
    elif inputs == "kvdim":
        key = lib.tensor(_array(shape(S, make["kdim"]), dtype, 1), requires_grad=True)
        value = lib.tensor(_array(shape(S, make["vdim"]), dtype, 2), requires_grad=True)
        leaves += [key, value]
    else:
        key = value = lib.tensor(_array(shape(S, E), dtype, 1), requires_grad=True)
        leaves.append(key)
    source = L if inputs == "self" else S
    kwargs = dict(call)
    for name in ("attn_mask", "key_padding_mask"):
        if name in kwargs:
            kwargs[name] = lib.tensor(_masks(kwargs[name], dtype, batched, source))
    lib.manual_seed(5)
    out, weights = mha(query, key, value, **kwargs)
    loss = (out * lib.tensor(_array(tuple(out.shape), dtype, 3))).sum()
    if weights is not None:
        loss = loss + (weights * weights).sum()
    loss.backward()
    return {
        "values": [out, weights],
        "nodes": [t.grad_fn.name() if t is not None else None for t in (out, weights)],
        "grads": [x.grad for x in leaves] + [p.grad for p in mha.parameters()],
        "params": [(n, p) for n, p in mha.named_parameters()],
    }


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MHA, ids=lambda c: c[0])
def test_multihead_attention_matches_torch(torch, dtype, case):
    _, make, inputs, call = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _mha(hookgrad, make, inputs, call, dtype)
        theirs = _mha(torch, make, inputs, call, dtype)
    assert [n for n, _ in ours["params"]] == [n for n, _ in theirs["params"]]
    assert_close([p for _, p in ours["params"]], [p for _, p in theirs["params"]], rtol=0, atol=0)
    assert ours["nodes"] == theirs["nodes"]
    assert_close(ours["values"], theirs["values"], **_tol(dtype))
    assert_close(ours["grads"], theirs["grads"], **_tol(dtype))


def test_multi_head_attention_forward_static_kv_matches_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(E, HEADS).double()
        x = lib.tensor(_array((L, N, E), "float64", 0), requires_grad=True)
        static = lib.tensor(_array((N * HEADS, S, E // HEADS), "float64", 1), requires_grad=True)
        out, weights = lib.nn.functional.multi_head_attention_forward(
            x,
            x,
            x,
            E,
            HEADS,
            mha.in_proj_weight,
            mha.in_proj_bias,
            None,
            None,
            False,
            0.0,
            mha.out_proj.weight,
            mha.out_proj.bias,
            static_k=static,
            static_v=static,
        )
        (out.sum() + weights.sum()).backward()
        return out, weights, x.grad, static.grad

    assert_close(run(hookgrad), run(torch), **_tol("float64"))


def test_multihead_attention_hooks_and_repr(torch):
    def run(lib):
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(E, HEADS, batch_first=True)
        log = []
        mha.register_full_backward_hook(lambda m, gi, go: log.append((gi, go)))
        x = lib.tensor(_array((N, L, E), "float32", 0), requires_grad=True)
        out, weights = mha(x, x, x)
        (out.sum() + weights.sum()).backward()
        return repr(mha), log

    ours, theirs = run(hookgrad), run(torch)
    assert ours[0] == theirs[0]
    assert_close(ours[1], theirs[1])


def test_multihead_attention_gradcheck_and_gradgradcheck():
    hookgrad.manual_seed(0)
    mha = hookgrad.nn.MultiheadAttention(4, 2, add_bias_kv=True).double()
    x = hookgrad.randn(2, 1, 4, dtype=hookgrad.float64, requires_grad=True)
    mask = hookgrad.tensor([[False, True], [False, False]])

    def run(x):
        return mha(x, x, x, attn_mask=mask)

    assert gradcheck(run, [x])
    assert gradgradcheck(run, [x])


MHA_ERRORS = {
    "sizes": lambda t: t.nn.MultiheadAttention(0, 2),
    "divisible": lambda t: t.nn.MultiheadAttention(6, 4),
    "rank": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 2, 2, 4), t.ones(2, 2, 4), t.ones(2, 2, 4)
    ),
    "key_rank": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 2, 4), t.ones(2, 4), t.ones(2, 4)
    ),
    "mask_2d": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 4), t.ones(3, 1, 4), t.ones(3, 1, 4), attn_mask=t.ones(2, 2)
    ),
    "mask_3d": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 4), t.ones(3, 1, 4), t.ones(3, 1, 4), attn_mask=t.ones(1, 2, 3)
    ),
    "mask_int": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 4), t.ones(3, 1, 4), t.ones(3, 1, 4), attn_mask=t.ones(2, 3, dtype=t.int64)
    ),
    "padding_shape": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 4),
        t.ones(3, 1, 4),
        t.ones(3, 1, 4),
        key_padding_mask=t.zeros(1, 2, dtype=t.bool),
    ),
    "embed_dim": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 5), t.ones(3, 1, 5), t.ones(3, 1, 5)
    ),
    "key_value_shapes": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 4), t.ones(3, 1, 4), t.ones(2, 1, 4)
    ),
    "causal_without_mask": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 1, 4), t.ones(2, 1, 4), t.ones(2, 1, 4), is_causal=True
    ),
}


@pytest.mark.parametrize("name", MHA_ERRORS)
def test_mha_errors_match_torch(torch, name):
    assert outcome(MHA_ERRORS[name], hookgrad) == outcome(MHA_ERRORS[name], torch)
