"""The optimizers written with ``hookgrad.optim.kernels`` against torch's, to the last bit.

Each runs six steps from identical parameters with identical gradients, in float32,
float64 and (where torch allows it) complex64, and must leave torch's parameters and
state exactly. The two kernels that do not round as torch's do (``sqrt`` and ``dot``,
MKL's in torch) are replaced by torch's own for that check (the ``torch_rounding``
fixture), so everything else in each update is checked bit for bit; without the replacement the
parameters must agree to 1e-6 relative. Adafactor (torch's norms) and Muon (bfloat16
products) are compared to a tolerance, said at their rows.
"""

import numpy as np
import pytest

import hookgrad
from hookgrad.optim import kernels

F32, F64, C64 = "float32", "float64", "complex64"
ALL = (F32, F64, C64)
REAL = (F32, F64)
SHAPES = [(3, 5), (37,), ()]

# (optimizer, options, dtypes, shapes, tolerance relative to the largest parameter or
# None for bit for bit)
CONFIGS = [
    ("Adamax", {}, ALL, SHAPES, None),
    ("Adamax", {"lr": 0.1, "betas": (0.5, 0.8), "weight_decay": 0.1}, ALL, SHAPES, None),
    ("Adamax", {"maximize": True, "eps": 1e-3}, REAL, SHAPES, None),
    ("Rprop", {}, ALL, SHAPES, None),
    ("Rprop", {"lr": 0.2, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.25)}, ALL, SHAPES, None),
    ("Rprop", {"maximize": True}, REAL, SHAPES, None),
    ("ASGD", {}, ALL, SHAPES, None),
    (
        "ASGD",
        {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 2, "weight_decay": 0.1},
        ALL,
        SHAPES,
        None,
    ),
    ("ASGD", {"maximize": True, "t0": 0}, REAL, SHAPES, None),
    ("Adadelta", {}, ALL, SHAPES, None),
    ("Adadelta", {"lr": 0.5, "rho": 0.7, "eps": 1e-3, "weight_decay": 0.1}, ALL, SHAPES, None),
    ("Adadelta", {"maximize": True}, REAL, SHAPES, None),
    ("NAdam", {}, ALL, SHAPES, None),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.1}, ALL, SHAPES, None),
    (
        "NAdam",
        {
            "weight_decay": 0.2,
            "decoupled_weight_decay": True,
            "maximize": True,
            "betas": (0.8, 0.9),
        },
        REAL,
        SHAPES,
        None,
    ),
    ("RAdam", {}, ALL, SHAPES, None),
    ("RAdam", {"lr": 0.05, "betas": (0.9, 0.5), "weight_decay": 0.1}, ALL, SHAPES, None),
    (
        "RAdam",
        {"weight_decay": 0.2, "decoupled_weight_decay": True, "maximize": True, "eps": 1e-4},
        REAL,
        SHAPES,
        None,
    ),
    ("SparseAdam", {}, REAL, SHAPES, None),
    (
        "SparseAdam",
        {"lr": 0.1, "betas": (0.5, 0.7), "eps": 1e-4, "maximize": True},
        REAL,
        SHAPES,
        None,
    ),
    ("Adafactor", {}, REAL, [(4, 6), (2, 3, 4), (7,), ()], 1e-6),
    (
        "Adafactor",
        {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-4, 1e-2), "d": 1.5, "weight_decay": 0.1},
        REAL,
        [(4, 6), (2, 3, 4), (7,), ()],
        1e-6,
    ),
    ("Adafactor", {"maximize": True}, REAL, [(5, 3)], 1e-6),
    ("Muon", {}, REAL, [(6, 4), (3, 5)], 1e-4),
    (
        "Muon",
        {"lr": 0.02, "nesterov": False, "weight_decay": 0.0, "adjust_lr_fn": "match_rms_adamw"},
        REAL,
        [(6, 4), (24, 40)],
        1e-4,
    ),
    ("Muon", {"ns_steps": 3, "momentum": 0.5, "adjust_lr_fn": "original"}, REAL, [(8, 2)], 1e-4),
]
CASES = [
    pytest.param(name, options, dtype, shapes, tol, id=f"{name}{i}-{dtype}")
    for i, (name, options, dtypes, shapes, tol) in enumerate(CONFIGS)
    for dtype in dtypes
]
STEPS = 6


def _sparse(grad):
    """A torch gradient in the layout of an embedding's: rows (dim 0) as entries."""
    return grad.to_sparse(sparse_dim=1) if grad.ndim > 1 else grad.to_sparse()


def _values(rng, shape, dtype):
    values = rng.standard_normal(shape)
    if dtype == C64:
        values = values + 1j * rng.standard_normal(shape)
    return values


def run(lib, name, options, dtype, shapes, steps=STEPS):
    """``steps`` steps of optimizer ``name`` of library ``lib`` on seeded parameters and
    gradients; SparseAdam's gradients have zeros (torch's are made sparse by rows)."""
    rng = np.random.default_rng(7)
    kind = getattr(lib, dtype)
    params = [lib.nn.Parameter(lib.tensor(_values(rng, s, dtype), dtype=kind)) for s in shapes]
    optimizer = getattr(lib.optim, name)(params, **options)
    for _ in range(steps):
        for param in params:
            values = _values(rng, param.shape, dtype)
            if name == "SparseAdam":  # zeros inside rows, and rows of zeros (no entry)
                values = values * (rng.random(param.shape) < 0.8)
                if values.ndim > 1:
                    values[rng.random(values.shape[0]) < 0.4] = 0
            grad = lib.tensor(values, dtype=kind)
            param.grad = _sparse(grad) if name == "SparseAdam" and lib is not hookgrad else grad
        optimizer.step()
    return params, optimizer


def _assert_same(ours, theirs, tol):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if tol is None:
        np.testing.assert_array_equal(ours, theirs)
    else:
        scale = np.abs(theirs).max() if theirs.size else 1.0
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=tol * scale)


def compare(name, options, dtype, shapes, tol, torch):
    ours, optimizer = run(hookgrad, name, options, dtype, shapes)
    theirs, reference = run(torch, name, options, dtype, shapes)
    for p, q in zip(ours, theirs):
        _assert_same(p.detach().numpy(), q.detach().numpy(), tol)
    state, expected = optimizer.state_dict(), reference.state_dict()
    assert state["param_groups"] == expected["param_groups"]
    for index, entry in expected["state"].items():
        assert list(state["state"][index]) == list(entry)
        for key, value in entry.items():
            mine = state["state"][index][key]
            if isinstance(value, torch.Tensor):
                assert str(mine.dtype) == str(value.dtype)
                _assert_same(mine.numpy(), value.numpy(), tol)
            else:
                assert mine == value


@pytest.mark.parametrize("name, options, dtype, shapes, tol", CASES)
def test_steps_match_torch_bit_for_bit(torch, torch_rounding, name, options, dtype, shapes, tol):
    compare(name, options, dtype, shapes, tol, torch)


@pytest.mark.parametrize(
    "name, options, dtype",
    [
        ("Adadelta", {"rho": 0.5}, F32),
        ("NAdam", {"lr": 0.05}, F32),
        ("RAdam", {"lr": 0.05, "betas": (0.9, 0.5)}, F32),
        ("SparseAdam", {"lr": 0.05}, F32),
        ("NAdam", {}, F64),
    ],
)
def test_steps_match_torch_with_numpys_square_root(torch, name, options, dtype):
    compare(name, options, dtype, [(9, 11), (21,)], 1e-6, torch)


def test_default_dtype_float64_keeps_float64_scalar_state(torch):
    states = []
    for lib in (hookgrad, torch):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            _, optimizer = run(lib, "NAdam", {}, F32, [(2,)], steps=2)
        finally:
            lib.set_default_dtype(previous)
        state = optimizer.state_dict()["state"][0]
        states.append({k: (str(v.dtype), v.tolist()) for k, v in state.items() if v.ndim == 0})
    assert states[0] == states[1]
    assert states[0]["mu_product"][0] == "torch.float64"


def test_float16_parameters_follow_torch(torch):
    ours, _ = run(hookgrad, "Adamax", {"lr": 0.01}, "float16", [(64,)])
    theirs, _ = run(torch, "Adamax", {"lr": 0.01}, "float16", [(64,)])
    np.testing.assert_array_equal(ours[0].detach().numpy(), theirs[0].detach().numpy())


def test_kernels_round_as_torchs_ops(torch):
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        a, b, c = (rng.standard_normal(1037).astype(dtype) for _ in range(3))
        c = np.abs(c) + 0.1
        t = [torch.from_numpy(x.copy()) for x in (a, b, c)]
        pairs = [
            (kernels.add(a, b, 0.37), t[0].clone().add_(t[1], alpha=0.37)),
            (kernels.mul(a, 0.9), t[0].clone().mul_(0.9)),
            (kernels.div(a, 0.3), t[0].clone().div_(0.3)),
            (kernels.addcmul(a, b, c, 0.01), t[0].clone().addcmul_(t[1], t[2], value=0.01)),
            (kernels.addcdiv(a, b, c, -0.2), t[0].clone().addcdiv_(t[1], t[2], value=-0.2)),
            (kernels.lerp(a, b, 0.1), t[0].clone().lerp_(t[1], 0.1)),
            (kernels.lerp(a, b, 0.8), t[0].clone().lerp_(t[1], 0.8)),
        ]
        for ours, theirs in pairs:
            np.testing.assert_array_equal(ours, theirs.numpy())
    real = kernels.as_real(np.array(1 + 2j, np.complex64))
    assert real.tolist() == [1.0, 2.0] and real.dtype == np.float32
