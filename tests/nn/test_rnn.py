"""RNN, LSTM, GRU, their cells and ``nn.utils.rnn`` against torch: parameters and their
seeded initialisation, outputs, gradients and the graph's output nodes (float32, which
runs torch's oneDNN LSTM node, and float64), packed sequences, dropout between layers,
full backward hooks, errors; gradcheck/gradgradcheck; an LSTM language model trained for
a few steps."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn.functional.rnn import rnn
from hookgrad.ops.rnn import MkldnnRnnLayer
from hookgrad.tensor.dispatch import apply
from tests.oracle import assert_close, outcome, saved_values

DTYPES = ["float32", "float64"]


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-5, "atol": 2e-6} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _flat(value: Any) -> list[Any]:
    """The tensors of a layer's result, in order (a PackedSequence gives its data)."""
    if hasattr(value, "batch_sizes"):
        return [value.data]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return [value]


def _run(lib: Any, make: Any, inputs: Any, dtype: str, seed: int = 0) -> dict[str, Any]:
    """Build a seeded module, call it on ``inputs(lib, dtype)`` (tensors needing grad),
    back-propagate random gradients: values, node names, gradients."""
    lib.manual_seed(seed)
    module = make(lib).to(getattr(lib, dtype))
    args, leaves = inputs(lib, dtype)
    result = _flat(module(*args))
    rng = np.random.default_rng(seed)
    grads = [lib.tensor(rng.standard_normal(tuple(t.shape)).astype(dtype)) for t in result]
    lib.autograd.backward(result, grads)
    return {
        "values": result,
        "nodes": [t.grad_fn.name() for t in result],
        "grads": [leaf.grad for leaf in leaves] + [p.grad for p in module.parameters()],
        "names": [name for name, _ in module.named_parameters()],
    }


def _compare(torch: Any, make: Any, inputs: Any, dtype: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _run(torch, make, inputs, dtype)
        ours = _run(hookgrad, make, inputs, dtype)
    assert ours["names"] == theirs["names"]
    assert ours["nodes"] == theirs["nodes"]
    assert_close(ours["values"], theirs["values"], **_tol(dtype))
    assert_close(ours["grads"], theirs["grads"], **_tol(dtype))


def _randn(lib: Any, dtype: str, *shape: int, seed: int = 1) -> Any:
    data = np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(dtype)
    return lib.tensor(data, requires_grad=True)


def _sequence(*shape: int) -> Any:
    def inputs(lib: Any, dtype: str) -> tuple[tuple[Any, ...], list[Any]]:
        x = _randn(lib, dtype, *shape)
        return (x,), [x]

    return inputs


def _with_state(shape: tuple[int, ...], state: tuple[int, ...], pair: bool) -> Any:
    def inputs(lib: Any, dtype: str) -> tuple[tuple[Any, ...], list[Any]]:
        x = _randn(lib, dtype, *shape)
        h = _randn(lib, dtype, *state, seed=2)
        if not pair:
            return (x, h), [x, h]
        c = _randn(lib, dtype, *state, seed=3)
        return (x, (h, c)), [x, h, c]

    return inputs


LAYERS = [
    ("lstm", lambda lib: lib.nn.LSTM(4, 5), _sequence(3, 2, 4)),
    (
        "lstm_2layer_bidir_batch_first_state",
        lambda lib: lib.nn.LSTM(4, 5, 2, batch_first=True, bidirectional=True),
        _with_state((2, 3, 4), (4, 2, 5), pair=True),
    ),
    (
        "lstm_proj_nobias",
        lambda lib: lib.nn.LSTM(4, 5, 2, bias=False, proj_size=3),
        _sequence(3, 2, 4),
    ),
    (
        "lstm_unbatched_state",
        lambda lib: lib.nn.LSTM(4, 5, bidirectional=True),
        _with_state((3, 4), (2, 5), pair=True),
    ),
    (
        "gru_bidir_batch_first",
        lambda lib: lib.nn.GRU(4, 5, 2, batch_first=True, bidirectional=True),
        _sequence(2, 3, 4),
    ),
    ("gru_unbatched_state", lambda lib: lib.nn.GRU(4, 5), _with_state((3, 4), (1, 5), pair=False)),
    (
        "rnn_tanh_state",
        lambda lib: lib.nn.RNN(4, 5, 2),
        _with_state((3, 2, 4), (2, 2, 5), pair=False),
    ),
    (
        "rnn_relu_bidir_batch_first_nobias",
        lambda lib: lib.nn.RNN(
            4, 5, nonlinearity="relu", bias=False, batch_first=True, bidirectional=True
        ),
        _sequence(2, 3, 4),
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LAYERS, ids=lambda c: c[0])
def test_layers_match_torch(torch, dtype, case):
    _, make, inputs = case
    _compare(torch, make, inputs, dtype)


CELLS = [
    ("lstm_cell", lambda lib: lib.nn.LSTMCell(4, 5), _with_state((3, 4), (3, 5), pair=True)),
    ("lstm_cell_unbatched_nobias", lambda lib: lib.nn.LSTMCell(4, 5, bias=False), _sequence(4)),
    ("gru_cell", lambda lib: lib.nn.GRUCell(4, 5), _with_state((3, 4), (3, 5), pair=False)),
    ("gru_cell_unbatched", lambda lib: lib.nn.GRUCell(4, 5), _with_state((4,), (5,), pair=False)),
    ("rnn_cell_relu", lambda lib: lib.nn.RNNCell(4, 5, nonlinearity="relu"), _sequence(3, 4)),
    ("rnn_cell_tanh", lambda lib: lib.nn.RNNCell(4, 5), _with_state((3, 4), (3, 5), pair=False)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CELLS, ids=lambda c: c[0])
def test_cells_match_torch(torch, dtype, case):
    _, make, inputs = case
    _compare(torch, make, inputs, dtype)


def _packed(mode: str) -> Any:
    def inputs(lib: Any, dtype: str) -> tuple[tuple[Any, ...], list[Any]]:
        x = _randn(lib, dtype, 4, 3, 4)
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        h = _randn(lib, dtype, 4, 3, 5, seed=2)
        if mode != "LSTM":
            return (packed, h), [x, h]
        c = _randn(lib, dtype, 4, 3, 5, seed=3)
        return (packed, (h, c)), [x, h, c]

    return inputs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_packed_input_matches_torch(torch, dtype, mode):
    def make(lib):
        return getattr(lib.nn, mode)(4, 5, 2, bidirectional=True)

    _compare(torch, make, _packed(mode), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_dropout_between_layers_draws_torch_masks(torch, dtype, mode):
    def make(lib):
        return getattr(lib.nn, mode)(4, 5, 3, dropout=0.5)

    _compare(torch, make, _sequence(3, 2, 4), dtype)


def test_eval_mode_skips_dropout():
    hookgrad.manual_seed(0)
    lstm = hookgrad.nn.LSTM(3, 4, 2, dropout=0.9).eval()
    x = hookgrad.randn(5, 2, 3)
    assert hookgrad.equal(lstm(x)[0], lstm(x)[0])


def test_seeded_initialisation_is_torch(torch):
    def make(lib):
        lib.manual_seed(3)
        modules = [
            lib.nn.LSTM(3, 6, 2, proj_size=2, bidirectional=True),
            lib.nn.GRU(3, 4, bias=False),
            lib.nn.RNN(3, 4, nonlinearity="relu"),
            lib.nn.LSTMCell(3, 4),
            lib.nn.GRUCell(3, 4, bias=False),
        ]
        return [(n, p) for m in modules for n, p in m.named_parameters()]

    ours, theirs = make(hookgrad), make(torch)
    assert [n for n, _ in ours] == [n for n, _ in theirs]
    assert_close([p for _, p in ours], [p for _, p in theirs], rtol=0, atol=0)


def test_mkldnn_layer_node_matches_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(3, 4, 2, batch_first=True)
        out, _ = lstm(lib.ones(2, 5, 3, requires_grad=True))
        return out.grad_fn.next_functions[0][0]

    ours, theirs = run(hookgrad), run(torch)
    assert type(ours).__name__ == type(theirs).__name__ == "MkldnnRnnLayerBackward0"
    assert [type(n).__name__ for n, _ in ours.next_functions] == [
        type(n).__name__ for n, _ in theirs.next_functions
    ]
    ours_saved, theirs_saved = saved_values(ours), saved_values(theirs)
    assert ours_saved.keys() == theirs_saved.keys()
    for name, value in theirs_saved.items():
        if name == "_saved_result3":  # oneDNN's workspace: its own layout
            continue
        assert_close(ours_saved[name], value)


@pytest.mark.parametrize("reverse", [False, True])
def test_mkldnn_layer_gradcheck_and_gradgradcheck(reverse):
    gen = np.random.default_rng(0)
    shapes = [(2, 1, 2), (8, 2), (8, 2), (8,), (8,), (1, 2), (1, 2)]
    args = [hookgrad.tensor(gen.standard_normal(s), requires_grad=True) for s in shapes]

    def layer(*inputs):
        return apply(MkldnnRnnLayer(reverse, 2, 1, True, False, False, True), *inputs)[:3]

    assert gradcheck(layer, args)
    assert gradgradcheck(layer, args)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
def test_layers_gradcheck_and_gradgradcheck(mode):
    # One reverse-direction layer (bidirectional, the forward direction's weights fixed):
    # 2 steps of a batch of 1, input 2, hidden 2; the LSTM projects to 1.
    gen = np.random.default_rng(0)
    lstm = mode == "LSTM"
    gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1}[mode] * 2
    state = 1 if lstm else 2
    weights = [(gates, 2), (gates, state), (gates,), (gates,)] + [(1, 2)] * lstm
    states = [(2, 1, state)] + [(2, 1, 2)] * lstm
    shapes = [(2, 1, 2), *states, *weights]
    args = [hookgrad.tensor(gen.standard_normal(s), requires_grad=True) for s in shapes]
    fixed = [hookgrad.tensor(gen.standard_normal(s)) for s in weights]

    def run(x, *rest):
        hx = rest[: len(states)] if lstm else rest[0]
        params = fixed + list(rest[len(states) :])
        return rnn(mode, x, hx, params, True, 1, 0.0, False, True, False)

    assert gradcheck(run, args)
    assert gradgradcheck(run, args)


def test_float32_lstm_double_backward_matches_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(3, 4, 2, bidirectional=True)
        x = lib.randn(4, 2, 3, requires_grad=True)
        out, (h, c) = lstm(x)
        loss = (out * out).sum() + h.sum() + c.sum()
        grads = lib.autograd.grad(loss, [x, *lstm.parameters()], create_graph=True)
        penalty = sum((g * g).sum() for g in grads)
        penalty.backward()
        return [x.grad] + [p.grad for p in lstm.parameters()]

    assert_close(run(hookgrad), run(torch), rtol=1e-4, atol=1e-5)


def test_full_backward_hooks_see_torchs_gradients(torch):
    def run(lib):
        lib.manual_seed(0)
        log = []
        for make, x in (
            (lambda: lib.nn.LSTM(3, 4), lib.ones(2, 2, 3, requires_grad=True)),
            (lambda: lib.nn.GRU(3, 4, dtype=lib.float64), lib.ones(2, 2, 3, dtype=lib.float64)),
            (lambda: lib.nn.LSTMCell(3, 4), lib.ones(2, 3, requires_grad=True)),
        ):
            module = make()
            module.register_full_backward_pre_hook(lambda m, go: log.append(("pre", go)))
            module.register_full_backward_hook(lambda m, gi, go: log.append(("hook", gi, go)))
            out, state = module(x)
            first = state[0] if isinstance(state, tuple) else state
            (out.sum() + first.sum()).backward()
        return log

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = run(hookgrad), run(torch)
    assert [entry[0] for entry in ours] == [entry[0] for entry in theirs]
    assert_close([entry[1:] for entry in ours], [entry[1:] for entry in theirs])


def test_parameters_api(torch):
    def run(lib):
        gru = lib.nn.GRU(3, 4, 2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)
        lstm = lib.nn.LSTM(3, 4, proj_size=2)
        lstm.flatten_parameters()
        return [
            repr(gru),
            repr(lstm),
            repr(lib.nn.GRUCell(3, 4, bias=False)),
            repr(lib.nn.RNN(3, 4, nonlinearity="relu")),
            gru._flat_weights_names,
            [[tuple(p.shape) for p in layer] for layer in lstm.all_weights],
            [tuple(p.shape) for p in lstm._flat_weights],
        ]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(hookgrad) == run(torch)


ERRORS = {
    "rnn_rank": lambda t: t.nn.RNN(3, 4)(t.ones(2, 2, 2, 3)),
    "gru_rank": lambda t: t.nn.GRU(3, 4)(t.ones(3)),
    "lstm_rank": lambda t: t.nn.LSTM(3, 4)(t.ones(3)),
    "features": lambda t: t.nn.LSTM(3, 4)(t.ones(2, 2, 5)),
    "dtype": lambda t: t.nn.GRU(3, 4)(t.ones(2, 2, 3, dtype=t.float64)),
    "hidden_size": lambda t: t.nn.GRU(3, 4)(t.ones(2, 2, 3), t.zeros(1, 3, 4)),
    "hidden_rank": lambda t: t.nn.GRU(3, 4)(t.ones(2, 2, 3), t.zeros(3, 4)),
    "unbatched_hidden_rank": lambda t: t.nn.RNN(3, 4)(t.ones(2, 3), t.zeros(1, 3, 4)),
    "lstm_cell_state": lambda t: t.nn.LSTM(3, 4)(
        t.ones(2, 2, 3), (t.zeros(1, 2, 4), t.zeros(1, 2, 5))
    ),
    "lstm_state_rank": lambda t: t.nn.LSTM(3, 4)(t.ones(2, 2, 3), (t.zeros(2, 4), t.zeros(2, 4))),
    "lstm_unbatched_rank": lambda t: t.nn.LSTM(3, 4)(
        t.ones(2, 3), (t.zeros(1, 2, 4), t.zeros(1, 2, 4))
    ),
    "lstm_proj_state": lambda t: t.nn.LSTM(3, 4, proj_size=2)(
        t.ones(2, 2, 3), (t.zeros(1, 2, 4), t.zeros(1, 2, 4))
    ),
    "empty_sequence": lambda t: t.nn.GRU(3, 4)(t.ones(0, 2, 3)),
    "packed_state": lambda t: t.nn.GRU(3, 4)(
        t.nn.utils.rnn.pack_sequence([t.ones(2, 3)]), t.zeros(1, 2, 4)
    ),
    "dropout": lambda t: t.nn.LSTM(3, 4, dropout=1.5),
    "dropout_bool": lambda t: t.nn.LSTM(3, 4, dropout=True),
    "bias_type": lambda t: t.nn.LSTM(3, 4, bias=1),
    "batch_first_type": lambda t: t.nn.LSTM(3, 4, batch_first=1),
    "input_size_type": lambda t: t.nn.LSTM(3.0, 4),
    "input_size": lambda t: t.nn.LSTM(0, 4),
    "hidden_size_type": lambda t: t.nn.LSTM(3, 4.0),
    "zero_layers": lambda t: t.nn.LSTM(3, 4, 0),
    "proj_negative": lambda t: t.nn.LSTM(3, 4, proj_size=-1),
    "proj_too_big": lambda t: t.nn.LSTM(3, 4, proj_size=4),
    "gru_proj": lambda t: t.nn.GRU(3, 4, proj_size=2),
    "nonlinearity": lambda t: t.nn.RNN(3, 4, nonlinearity="gelu"),
    "cell_rank": lambda t: t.nn.LSTMCell(3, 4)(t.ones(2, 2, 3)),
    "cell_state_rank": lambda t: t.nn.LSTMCell(3, 4)(t.ones(2, 3), (t.ones(2, 4), t.ones(1, 2, 4))),
    "gru_cell_state_rank": lambda t: t.nn.GRUCell(3, 4)(t.ones(2, 3), t.ones(1, 2, 4)),
    "cell_features": lambda t: t.nn.LSTMCell(3, 4)(t.ones(2, 5)),
    "cell_batch": lambda t: t.nn.LSTMCell(3, 4)(t.ones(2, 3), (t.ones(2, 4), t.ones(3, 4))),
    "cell_hidden": lambda t: t.nn.LSTMCell(3, 4)(t.ones(2, 3), (t.ones(2, 5), t.ones(2, 4))),
    "gru_cell_batch": lambda t: t.nn.GRUCell(3, 4)(t.ones(2, 3), t.ones(3, 4)),
    "rnn_cell_hidden": lambda t: t.nn.RNNCell(3, 4)(t.ones(2, 3), t.ones(2, 5)),
    "pack_unsorted": lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(3, 2, 1), [2, 3]),
    "pack_zero_length": lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(3, 2, 1), [3, 0]),
    "pack_lengths_count": lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(3, 2), [3, 2, 1]),
    "pack_empty": lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(0, 2, 3), [0, 0]),
    "pad_empty": lambda t: t.nn.utils.rnn.pad_sequence([]),
    "pad_side": lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2)], padding_side="top"),
    "pad_not_iterable": lambda t: t.nn.utils.rnn.pad_sequence(5),
    "pad_total_length": lambda t: t.nn.utils.rnn.pad_packed_sequence(
        t.nn.utils.rnn.pack_sequence([t.ones(3)]), total_length=2
    ),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch, name):
    assert outcome(ERRORS[name], hookgrad) == outcome(ERRORS[name], torch)


# ---------------------------------------------------------------- nn.utils.rnn

UTILS = {
    "pad_sequence": lambda lib, s: lib.nn.utils.rnn.pad_sequence(s),
    "pad_sequence_batch_first_left": lambda lib, s: lib.nn.utils.rnn.pad_sequence(
        s, batch_first=True, padding_value=-2.0, padding_side="left"
    ),
    "pack_sequence_unsorted": lambda lib, s: lib.nn.utils.rnn.pack_sequence(
        s, enforce_sorted=False
    ),
    "pack_padded_batch_first": lambda lib, s: lib.nn.utils.rnn.pack_padded_sequence(
        lib.nn.utils.rnn.pad_sequence(s, batch_first=True), [len(x) for x in s], True, False
    ),
    "round_trip": lambda lib, s: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence(s, enforce_sorted=False), True, 0.5, 6
    ),
    "unpack_sequence": lambda lib, s: lib.nn.utils.rnn.unpack_sequence(
        lib.nn.utils.rnn.pack_sequence(s, enforce_sorted=False)
    ),
    "unpad_sequence": lambda lib, s: lib.nn.utils.rnn.unpad_sequence(
        lib.nn.utils.rnn.pad_sequence(s, batch_first=True),
        lib.tensor([len(x) for x in s]),
        batch_first=True,
    ),
}


def _sequences(lib: Any, dtype: str) -> list[Any]:
    rng = np.random.default_rng(0)
    return [
        lib.tensor(rng.standard_normal((n, 2)).astype(dtype), requires_grad=True)
        for n in (3, 5, 3, 1)
    ]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UTILS)
def test_rnn_utils_match_torch(torch, dtype, name):
    def run(lib):
        seqs = _sequences(lib, dtype)
        result = UTILS[name](lib, seqs)
        tensors = [t for t in _flat(result) if t.is_floating_point()]
        total = sum((t * (k + 1.5)).sum() for k, t in enumerate(tensors))
        total.backward()
        extras = (
            []
            if not hasattr(result, "batch_sizes")
            else [result.batch_sizes, result.sorted_indices, result.unsorted_indices]
        )
        nodes = [t.grad_fn.name() for t in tensors]
        return _flat(result), extras, nodes, [s.grad for s in seqs]

    ours, theirs = run(hookgrad), run(torch)
    assert ours[2] == theirs[2]
    assert_close(ours[:2], theirs[:2], rtol=0, atol=0)
    assert_close(ours[3], theirs[3], **_tol(dtype))


# ---------------------------------------------------------------- a language model


def _language_model(lib: Any) -> Any:
    """Embedding -> dropout -> 2-layer LSTM (dropout between layers) on packed sentences
    -> dropout -> linear; the next-token loss over the real (unpadded) steps."""
    R = lib.nn.utils.rnn

    class LanguageModel(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = lib.nn.Embedding(20, 8, padding_idx=0)
            self.drop = lib.nn.Dropout(0.2)
            self.lstm = lib.nn.LSTM(8, 12, num_layers=2, dropout=0.3)
            self.out = lib.nn.Linear(12, 20)

        def forward(self, tokens, lengths):
            packed = R.pack_padded_sequence(
                self.drop(self.embed(tokens)), lengths, enforce_sorted=False
            )
            output, _ = self.lstm(packed)
            return self.out(self.drop(output.data)), output.batch_sizes, output.sorted_indices

    return LanguageModel()


def _train_language_model(lib: Any, dtype: str) -> list[Any]:
    lib.manual_seed(0)
    model = _language_model(lib).to(getattr(lib, dtype))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    rng = np.random.default_rng(0)
    lengths = [5, 7, 3, 6]
    tokens = np.zeros((8, 4), np.int64)  # time-major, 0 is padding
    for b, n in enumerate(lengths):
        tokens[:n, b] = rng.integers(1, 20, n)
    inputs, targets = lib.tensor(tokens[:-1]), lib.tensor(tokens[1:])
    lengths = [n - 1 for n in lengths]
    record = []
    for _ in range(3):
        optimizer.zero_grad()
        logits, batch_sizes, order = model(inputs, lengths)
        packed_targets = lib.nn.utils.rnn.pack_padded_sequence(
            targets.index_select(1, order), sorted(lengths, reverse=True)
        ).data
        loss = lib.nn.functional.cross_entropy(logits, packed_targets)
        loss.backward()
        record.append((loss, [p.grad.clone() for p in model.parameters()]))
        optimizer.step()
    return record + [list(model.parameters())]


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstm_language_model_trains_as_torch(torch, dtype):
    ours = _train_language_model(hookgrad, dtype)
    theirs = _train_language_model(torch, dtype)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else _tol(dtype)
    assert_close(ours, theirs, **tol)


def test_torch_level_recurrent_functions_match_torch(torch):
    def run(lib, fns):
        lib.manual_seed(0)
        x = lib.randn(4, 2, 3, dtype=lib.float64, requires_grad=True)
        h = lib.randn(2, 2, 5, dtype=lib.float64, requires_grad=True)
        lstm = lib.nn.LSTM(3, 5, bidirectional=True).double()
        gru = lib.nn.GRU(3, 5, batch_first=True).double()
        rnn = lib.nn.RNN(3, 5, nonlinearity="relu").double()
        packed = lib.nn.utils.rnn.pack_sequence([x[:, 0], x[:3, 1]])
        results = [
            *fns.lstm(x, (h, h), lstm._flat_weights, True, 1, 0.0, False, True, False),
            *fns.gru(x.transpose(0, 1), h[:1], gru._flat_weights, True, 1, 0.0, False, False, True),
            *fns.rnn_relu(
                packed.data,
                packed.batch_sizes,
                h[:1],
                rnn._flat_weights,
                True,
                1,
                0.0,
                False,
                False,
            ),
            *fns.rnn_tanh(x, h[:1], rnn._flat_weights, True, 1, 0.0, False, False, False),
            *fns.lstm_cell(x[0], (h[0], h[1]), *lstm.all_weights[0]),
            fns.gru_cell(x[0], h[0], *gru.all_weights[0][:2]),
            fns.rnn_relu_cell(x[0], h[0], *rnn.all_weights[0]),
            fns.rnn_tanh_cell(x[0], h[0], *rnn.all_weights[0]),
        ]
        sum((r * r).sum() for r in results).backward()
        return results, [x.grad, h.grad], [r.grad_fn.name() for r in results]

    ours = run(hookgrad, hookgrad)
    theirs = run(torch, torch)
    assert ours[2] == theirs[2]
    assert_close(ours[:2], theirs[:2], **_tol("float64"))
