"""Transformer, TransformerEncoder(Layer), TransformerDecoder(Layer) against torch:
seeded parameters, outputs, gradients and output nodes (float32 and float64) with
post-/pre-norm, string and callable activations, batch-first, masks, causal hints and
dropout; the zeros of torch's nested-tensor inference path; warnings, errors and repr;
gradcheck; a small Transformer-encoder classifier trained for a few steps."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck
from tests.oracle import assert_close, outcome

DTYPES = ["float32", "float64"]
E, HEADS, FF = 8, 2, 16


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-5, "atol": 5e-6} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _array(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _causal(size: int) -> np.ndarray:
    return np.triu(np.full((size, size), -np.inf), 1)


PADDING = np.array([[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]], bool)

# name, module (given lib), inputs: arrays of floats (requiring grad) for the sequences,
# masks as arrays, other keywords as they are
CASES = [
    (
        "encoder_layer",
        lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0),
        {"src": (5, 2, E)},
    ),
    (
        "encoder_layer_gelu_norm_first_batch_first_padding_dropout",
        lambda lib: lib.nn.TransformerEncoderLayer(
            E, HEADS, FF, dropout=0.2, activation="gelu", norm_first=True, batch_first=True
        ),
        {"src": (2, 5, E), "src_key_padding_mask": PADDING},
    ),
    (
        "encoder_layer_callable_causal",
        lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.1, activation=lib.tanh),
        {"src": (5, 2, E), "src_mask": _causal(5), "is_causal": True},
    ),
    (
        "encoder_bool_mask_final_norm",
        lambda lib: lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.1, batch_first=True),
            2,
            lib.nn.LayerNorm(E),
        ),
        {"src": (2, 5, E), "mask": np.triu(np.ones((5, 5), bool), 1)},
    ),
    (
        "decoder_layer_masks",
        lambda lib: lib.nn.TransformerDecoderLayer(E, HEADS, FF, dropout=0.1),
        {
            "tgt": (4, 2, E),
            "memory": (5, 2, E),
            "tgt_mask": _causal(4),
            "memory_key_padding_mask": PADDING,
        },
    ),
    (
        "decoder_norm_first_batch_first",
        lambda lib: lib.nn.TransformerDecoder(
            lib.nn.TransformerDecoderLayer(
                E, HEADS, FF, dropout=0.0, norm_first=True, batch_first=True
            ),
            2,
        ),
        {"tgt": (2, 4, E), "memory": (2, 5, E)},
    ),
    (
        "transformer",
        lambda lib: lib.nn.Transformer(E, HEADS, 2, 2, FF, dropout=0.1),
        {
            "src": (5, 2, E),
            "tgt": (4, 2, E),
            "tgt_mask": _causal(4),
            "src_key_padding_mask": PADDING,
        },
    ),
    (
        "transformer_unbatched_no_bias",
        lambda lib: lib.nn.Transformer(
            E, HEADS, 1, 1, FF, dropout=0.0, batch_first=True, bias=False
        ),
        {"src": (5, E), "tgt": (4, E)},
    ),
]


def _run(lib: Any, make: Any, spec: dict, dtype: str, train: bool = True) -> dict[str, Any]:
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = make(lib).to(getattr(lib, dtype))
    if not train:
        module.eval()
    inputs, leaves = {}, []
    for seed, (name, value) in enumerate(spec.items()):
        if isinstance(value, tuple):
            inputs[name] = lib.tensor(_array(value, dtype, seed), requires_grad=train)
            leaves.append(inputs[name])
        elif isinstance(value, np.ndarray):
            inputs[name] = lib.tensor(value if value.dtype == bool else value.astype(dtype))
        else:
            inputs[name] = value
    lib.manual_seed(7)
    if not train:
        with lib.no_grad():
            return {"out": module(**inputs)}
    out = module(**inputs)
    out.backward(lib.tensor(_array(tuple(out.shape), dtype, 99)))
    return {
        "out": out,
        "node": out.grad_fn.name(),
        "grads": [x.grad for x in leaves] + [p.grad for p in module.parameters()],
        "params": [(n, p) for n, p in module.named_parameters()],
    }


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_transformer_modules_match_torch(torch, dtype, case):
    _, make, spec = case
    ours, theirs = _run(hookgrad, make, spec, dtype), _run(torch, make, spec, dtype)
    assert [n for n, _ in ours["params"]] == [n for n, _ in theirs["params"]]
    assert_close([p for _, p in ours["params"]], [p for _, p in theirs["params"]], rtol=0, atol=0)
    assert ours["node"] == theirs["node"]
    assert_close(ours["out"], theirs["out"], **_tol(dtype))
    assert_close(ours["grads"], theirs["grads"], **_tol(dtype))


@pytest.mark.parametrize("batch_first", [True, False])
def test_inference_with_padding_zeroes_padded_positions_as_torch(torch, batch_first):
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(E, HEADS, FF, batch_first=batch_first)
        return lib.nn.TransformerEncoder(layer, 2)

    shape = (2, 5, E) if batch_first else (5, 2, E)
    spec = {"src": shape, "src_key_padding_mask": PADDING}
    ours = _run(hookgrad, make, spec, "float32", train=False)["out"]
    theirs = _run(torch, make, spec, "float32", train=False)["out"]
    assert_close(ours, theirs, **_tol("float32"))
    if batch_first:  # the nested-tensor path: zeros where the keys are padding
        assert not ours[0, 3:].any()


def test_masks_warnings_and_errors(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer = lib.nn.TransformerEncoderLayer(E, HEADS, FF)
            lib.nn.TransformerEncoder(layer, 1)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(E, 1, FF, batch_first=True), 1)
        return [
            lib.nn.Transformer.generate_square_subsequent_mask(3),
            lib.nn.Transformer.generate_square_subsequent_mask(2, dtype=lib.float64),
            [str(w.message) for w in caught],
            repr(lib.nn.TransformerDecoderLayer(E, HEADS, FF)),
            outcome(lambda _: lib.nn.TransformerEncoderLayer(E, HEADS, activation="tanh"), lib),
            outcome(
                lambda _: lib.nn.Transformer(E, HEADS, 1, 1, FF)(
                    lib.ones(3, 2, E), lib.ones(3, 1, E)
                ),
                lib,
            ),
            outcome(
                lambda _: lib.nn.Transformer(E, HEADS, 1, 1, FF)(
                    lib.ones(3, 2, 4), lib.ones(3, 2, 4)
                ),
                lib,
            ),
        ]

    ours, theirs = run(hookgrad), run(torch)
    assert_close(ours[:2], theirs[:2], rtol=0, atol=0)
    assert ours[2:] == theirs[2:]


def test_full_backward_hooks_on_an_encoder_layer(torch):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0)
        log = []
        layer.register_full_backward_hook(lambda m, gi, go: log.append((gi, go)))
        layer.self_attn.register_full_backward_hook(lambda m, gi, go: log.append((gi, go)))
        x = lib.tensor(_array((3, 2, E), "float32", 0), requires_grad=True)
        layer(x).sum().backward()
        return log

    assert_close(run(hookgrad), run(torch))


def test_encoder_and_decoder_layers_gradcheck():
    # No gradgradcheck: their attention is torch's flash node, which has no second
    # derivative (test_attention.py checks that it fails as torch's does).
    hookgrad.manual_seed(0)
    encoder = hookgrad.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu")
    decoder = hookgrad.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, norm_first=True)
    encoder, decoder = encoder.double(), decoder.double()
    x = hookgrad.randn(3, 1, 4, dtype=hookgrad.float64, requires_grad=True)
    memory = hookgrad.randn(2, 1, 4, dtype=hookgrad.float64, requires_grad=True)
    mask = hookgrad.nn.Transformer.generate_square_subsequent_mask(3, dtype=hookgrad.float64)
    assert gradcheck(lambda x: encoder(x, src_mask=mask), [x])
    assert gradcheck(lambda x, m: decoder(x, m, tgt_mask=mask), [x, memory])


# ---------------------------------------------------------------- a classifier


def _classifier(lib: Any) -> Any:
    """Token embedding + learned positions -> 2 encoder layers (batch first, padding
    mask) -> mean over the real tokens -> linear to 3 classes."""

    class Classifier(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = lib.nn.Embedding(12, E, padding_idx=0)
            self.position = lib.nn.Parameter(lib.randn(6, E) * 0.1)
            layer = lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.1, batch_first=True)
            self.encoder = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = lib.nn.Linear(E, 3)

        def forward(self, tokens):
            padding = tokens == 0
            x = self.embed(tokens) + self.position[: tokens.shape[1]]
            x = self.encoder(x, src_key_padding_mask=padding)
            keep = (~padding).unsqueeze(-1).to(x.dtype)
            return self.head((x * keep).sum(1) / keep.sum(1))

    return Classifier()


def _train_classifier(lib: Any, dtype: str) -> list[Any]:
    lib.manual_seed(0)
    model = _classifier(lib).to(getattr(lib, dtype))
    optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    tokens = rng.integers(1, 12, (4, 6))
    tokens[1, 4:] = 0
    tokens[3, 2:] = 0
    tokens, labels = lib.tensor(tokens), lib.tensor(rng.integers(0, 3, 4))
    record = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(tokens), labels)
        loss.backward()
        record.append((loss, [p.grad.clone() for p in model.parameters()]))
        optimizer.step()
    model.eval()
    with lib.no_grad():
        record.append(model(tokens))
    return record


@pytest.mark.parametrize("dtype", DTYPES)
def test_transformer_classifier_trains_as_torch(torch, dtype):
    ours = _train_classifier(hookgrad, dtype)
    theirs = _train_classifier(torch, dtype)
    tol = {"rtol": 1e-4, "atol": 2e-5} if dtype == "float32" else _tol(dtype)
    assert_close(ours, theirs, **tol)
