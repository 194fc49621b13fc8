"""Complex autograd: values and gradients against torch and finite differences.

torch's convention: for a real loss ``L`` of complex ``z = x + iy`` the gradient is
``dL/dx + i dL/dy`` (the conjugate Wirtinger derivative, times two), and a holomorphic
``f`` sends ``grad * conj(f'(z))`` back. Each case runs in complex64 and complex128 and
pulls a random gradient (complex where the output is) back through the graph.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck

C = "c"  # an input spec: (shape, "c") complex, (shape, "r") real, both requiring grad
R = "r"

# name: (fn(lib, *inputs), input specs)
CASES: dict[str, tuple[Callable[..., Any], tuple[tuple[tuple[int, ...], str], ...]]] = {
    # elementwise binary, with broadcasting, scalars and real operands
    "add": (lambda t, a, b: a + b, (((2, 3), C), ((3,), C))),
    "sub_alpha": (lambda t, a, b: t.sub(a, b, alpha=2), (((2, 3), C), ((2, 3), C))),
    "mul": (lambda t, a, b: a * b, (((2, 3), C), ((2, 1), C))),
    "mul_real": (lambda t, a, b: a * b, (((2, 3), C), ((2, 3), R))),
    "mul_complex_scalar": (lambda t, a: a * (1 - 2j), (((2, 3), C),)),
    "div": (lambda t, a, b: a / b, (((2, 3), C), ((2, 3), C))),
    "rdiv": (lambda t, a: (2 + 1j) / a, (((2, 3), C),)),
    "pow_int": (lambda t, a: a**3, (((2, 3), C),)),
    "pow_float": (lambda t, a: a**-1.5, (((2, 3), C),)),
    "pow_complex": (lambda t, a: a ** (0.5 + 1j), (((2, 3), C),)),
    "pow_tensor": (lambda t, a, b: a**b, (((2, 3), C), ((2, 3), C))),
    "rpow_complex": (lambda t, a: (1.5 + 0.5j) ** a, (((2, 3), C),)),
    # elementwise unary
    "exp": (lambda t, a: a.exp(), (((2, 3), C),)),
    "log": (lambda t, a: a.log(), (((2, 3), C),)),
    "sin": (lambda t, a: a.sin(), (((2, 3), C),)),
    "cos": (lambda t, a: a.cos(), (((2, 3), C),)),
    "tanh": (lambda t, a: a.tanh(), (((2, 3), C),)),
    "sqrt": (lambda t, a: a.sqrt(), (((2, 3), C),)),
    "reciprocal": (lambda t, a: a.reciprocal(), (((2, 3), C),)),
    "sigmoid": (lambda t, a: a.sigmoid(), (((2, 3), C),)),
    "abs": (lambda t, a: a.abs(), (((2, 3), C),)),
    "sgn": (lambda t, a: a.sgn(), (((2, 3), C),)),
    "conj": (lambda t, a, b: a.conj() * b, (((2, 3), C), ((2, 3), C))),
    "real_imag": (lambda t, a: a.real * a.imag, (((2, 3), C),)),
    "angle": (lambda t, a: a.angle(), (((2, 3), C),)),
    "abs_squared": (lambda t, a: a.abs() ** 2, (((2, 3), C),)),
    # reductions
    "sum": (lambda t, a: a.sum(), (((2, 3), C),)),
    "mean_dim": (lambda t, a: a.mean(0), (((2, 3), C),)),
    "prod": (lambda t, a: a.prod(1), (((2, 3), C),)),
    "prod_all": (lambda t, a: a.prod(), (((2, 3), C),)),
    "norm": (lambda t, a: a.norm(), (((2, 3), C),)),
    "norm_dim_p3": (lambda t, a: a.norm(p=3, dim=1), (((2, 3), C),)),
    "var": (lambda t, a: a.var(1), (((2, 3), C),)),
    "std_all": (lambda t, a: a.std(), (((2, 3), C),)),
    "cumsum": (lambda t, a: a.cumsum(1), (((2, 3), C),)),
    "cumprod": (lambda t, a: a.cumprod(1), (((2, 3), C),)),
    "logsumexp": (lambda t, a: a.logsumexp(1), (((2, 3), C),)),
    # products
    "matmul": (lambda t, a, b: a @ b, (((2, 3), C), ((3, 4), C))),
    "matmul_batched": (lambda t, a, b: a @ b, (((2, 2, 3), C), ((3, 2), C))),
    "mm": (lambda t, a, b: t.mm(a, b), (((2, 3), C), ((3, 2), C))),
    "mv": (lambda t, a, b: t.mv(a, b), (((2, 3), C), ((3,), C))),
    "dot": (lambda t, a, b: t.dot(a, b), (((3,), C), ((3,), C))),
    "vdot": (lambda t, a, b: t.vdot(a, b), (((3,), C), ((3,), C))),
    "einsum": (lambda t, a, b: t.einsum("ij,kj->ik", a, b), (((2, 3), C), ((4, 3), C))),
    "addmm": (
        lambda t, c, a, b: t.addmm(c, a, b, beta=0.5 + 1j, alpha=2 - 1j),
        (((2, 4), C), ((2, 3), C), ((3, 4), C)),
    ),
    "matmul_real_matrix": (lambda t, a, b: a @ b.to(a.dtype), (((2, 3), C), ((3, 2), R))),
    # views and shapes
    "reshape": (lambda t, a: a.reshape(3, 2), (((2, 3), C),)),
    "transpose": (lambda t, a: a.transpose(0, 1) * 2, (((2, 3), C),)),
    "index": (lambda t, a: a[1, :2], (((2, 3), C),)),
    "index_advanced": (lambda t, a: a[[0, 1, 1], [2, 0, 0]], (((2, 3), C),)),
    "index_mask": (lambda t, a: a[a.real > 0], (((2, 3), C),)),
    "cat": (lambda t, a, b: t.cat([a, b], 0), (((2, 3), C), ((1, 3), C))),
    "stack": (lambda t, a, b: t.stack([a, b], 1), (((2, 3), C), ((2, 3), C))),
    "expand": (lambda t, a: a.expand(4, 2, 3), (((2, 3), C),)),
    "gather": (lambda t, a: a.gather(1, t.tensor([[0, 0], [2, 1]])), (((2, 3), C),)),
    "where": (
        lambda t, a, b: t.where(t.tensor([[True, False, True]]), a, b),
        (((2, 3), C), ((2, 3), C)),
    ),
    "view_as_real": (lambda t, a: t.view_as_real(a), (((2, 3), C),)),
    "view_as_complex": (lambda t, a: t.view_as_complex(a * 2), (((2, 3, 2), R),)),
    "view_as_round_trip": (
        lambda t, a: t.view_as_complex(t.view_as_real(a) * a.abs().unsqueeze(-1)),
        (((2, 3), C),),
    ),
    # dtype changes
    "real_to_complex": (lambda t, a, b: a.to(b.dtype) * b, (((2, 3), R), ((2, 3), C))),
    "complex_to_real": (lambda t, a: a.real.exp() + a.imag.sin(), (((2, 3), C),)),
}

# torch builds these from other ops, so its grad_fn names differ from hookgrad's.
NAMES_DIFFER = {"einsum"}
# the real-valued inputs of these cases carry a torch dtype chosen by the case
REAL_DTYPE = {"complex64": "float32", "complex128": "float64"}


def make_inputs(lib: Any, name: str, dtype: str) -> list[Any]:
    """The case's inputs, the same values for both libraries."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    tensors = []
    for shape, kind in CASES[name][1]:
        values = rng.uniform(0.2, 1.5, shape) * rng.choice([-1, 1], shape)
        if kind == C:
            values = values + 1j * rng.uniform(-1.5, 1.5, shape)
            tensors.append(lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True))
        else:
            real = getattr(lib, REAL_DTYPE[dtype])
            tensors.append(lib.tensor(values, dtype=real, requires_grad=True))
    return tensors


def seed_like(lib: Any, output: Any, name: str) -> Any:
    """A random gradient for ``output``: complex if the output is."""
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
    values = rng.standard_normal(tuple(output.shape))
    if output.is_complex():
        values = values + 1j * rng.standard_normal(tuple(output.shape))
    return lib.tensor(values, dtype=output.dtype)


def run_case(lib: Any, name: str, dtype: str) -> tuple[Any, Any, list[Any]]:
    inputs = make_inputs(lib, name, dtype)
    output = CASES[name][0](lib, *inputs)
    grads = lib.autograd.grad(output, inputs, seed_like(lib, output, name))
    return output, output.grad_fn, list(grads)


def as_array(value: Any) -> np.ndarray:
    if hasattr(value, "resolve_conj"):  # torch: conj() may give a lazy conjugate
        value = value.resolve_conj()
    return np.asarray(value.detach().numpy())


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients_match_torch(torch: Any, name: str, dtype: str) -> None:
    output, node, grads = run_case(hookgrad, name, dtype)
    expected, expected_node, expected_grads = run_case(torch, name, dtype)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == "complex64" else {"rtol": 1e-10, "atol": 1e-12}
    assert str(output.dtype) == str(expected.dtype)
    np.testing.assert_allclose(as_array(output), as_array(expected), **tol)
    if name not in NAMES_DIFFER:
        assert node.name() == type(expected_node).__name__
    for grad, expected_grad in zip(grads, expected_grads):
        assert str(grad.dtype) == str(expected_grad.dtype)
        np.testing.assert_allclose(as_array(grad), as_array(expected_grad), **tol)


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name: str) -> None:
    inputs = make_inputs(hookgrad, name, "complex128")
    assert gradcheck(lambda *xs: CASES[name][0](hookgrad, *xs), inputs)


GRADGRAD = ["mul", "div", "pow_tensor", "exp", "log", "abs", "sgn", "angle", "prod", "norm"]
GRADGRAD += ["var", "logsumexp", "matmul", "einsum", "view_as_round_trip", "complex_to_real"]


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name: str) -> None:
    inputs = make_inputs(hookgrad, name, "complex128")
    assert gradgradcheck(lambda *xs: CASES[name][0](hookgrad, *xs), inputs)


# -- torch's convention -----------------------------------------------------------------
@pytest.mark.parametrize(
    "loss",
    [
        lambda z: (z * z.conj()).real.sum(),
        lambda z: (z.abs() ** 2).sum(),
        lambda z: hookgrad.view_as_real(z).square().sum(),
    ],
)
def test_gradient_of_squared_magnitude_is_2z(loss: Callable[[Any], Any]) -> None:
    z = hookgrad.tensor([1 + 2j], requires_grad=True)
    loss(z).backward()
    assert z.grad.tolist() == [2 + 4j]


def test_holomorphic_gradient_is_the_conjugate_derivative() -> None:
    z = hookgrad.tensor([1 + 2j, -0.5 + 1j], dtype=hookgrad.complex128, requires_grad=True)
    (grad,) = hookgrad.autograd.grad(z**2, z, hookgrad.ones_like(z))
    np.testing.assert_allclose(grad.numpy(), np.conj(2 * z.detach().numpy()))


def test_real_leaf_gets_a_real_gradient(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        z = lib.tensor([1 + 1j, 2 - 3j])
        ((x * z).abs() + (x.to(lib.complex64) * z).angle()).sum().backward()
        return [str(x.grad.dtype), x.grad.tolist()]

    got, expected = run(hookgrad), run(torch)
    assert got[0] == expected[0] == "torch.float32"
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, z: (z * z).sum().backward(),
        lambda lib, z: (z * 2).backward(),
        lambda lib, z: lib.autograd.grad(z.sum(), z),
        lambda lib, z: lib.autograd.backward([(z * z).sum()]),
    ],
)
def test_backward_from_a_complex_output_needs_a_gradient(torch: Any, call: Any) -> None:
    def message(lib: Any) -> str:
        z = lib.tensor([1 + 2j], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            call(lib, z)
        return str(info.value)

    expected = message(torch)
    assert message(hookgrad) == expected
    assert expected.startswith("grad can be implicitly created only for real scalar outputs")


def test_backward_from_a_complex_output_with_a_gradient(torch: Any) -> None:
    def run(lib: Any) -> Any:
        z = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        (z * z).sum().backward(lib.tensor(1 - 1j))
        return z.grad.tolist()

    assert run(hookgrad) == run(torch)


# -- angle, view_as_real, view_as_complex -----------------------------------------------
def test_angle_matches_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        z = lib.tensor([1 + 1j, 0j, -1 + 0j, -2j], requires_grad=True)
        x = lib.tensor([-1.0, 0.0, 2.0, float("inf"), -float("inf"), -0.0], requires_grad=True)
        angles = [lib.angle(z), x.angle()]
        grads = [lib.autograd.grad(a.sum(), leaf)[0] for a, leaf in zip(angles, (z, x))]
        ints = lib.angle(lib.tensor([-3, 0, 5]))
        nan = lib.angle(lib.tensor([float("nan")]))
        return [
            angles[1].tolist(),
            [str(a.dtype) for a in angles + [ints]],
            [g.tolist() for g in grads],
            [a.grad_fn.name() for a in angles],
            ints.tolist(),
            str(nan.tolist()),
        ]

    got, expected = run(hookgrad), run(torch)
    for grad, expected_grad in zip(got.pop(2), expected.pop(2)):
        np.testing.assert_allclose(grad, expected_grad, rtol=1e-6)
    assert got == expected
    assert got[2] == ["AngleBackward0", "AngleBackward0"]
    np.testing.assert_allclose(
        hookgrad.tensor([1 + 1j, -2j]).angle().numpy(), [np.pi / 4, -np.pi / 2]
    )


def test_view_as_real_and_complex_share_memory() -> None:
    z = hookgrad.tensor([[1 + 2j, 3 - 4j]], requires_grad=True)
    pairs = hookgrad.view_as_real(z)
    assert pairs.tolist() == [[[1.0, 2.0], [3.0, -4.0]]]
    assert np.shares_memory(pairs.detach().numpy(), z.detach().numpy())
    back = hookgrad.view_as_complex(pairs)
    assert back.tolist() == z.tolist()
    assert np.shares_memory(back.detach().numpy(), z.detach().numpy())
    assert [pairs.grad_fn.name(), back.grad_fn.name()] == [
        "ViewAsRealBackward0",
        "ViewAsComplexBackward0",
    ]


def test_view_as_real_of_strided_and_scalar_tensors(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        z = lib.tensor([[1 + 2j, 3 - 4j], [5j, 6.0]], requires_grad=True)
        pairs = lib.view_as_real(z.t())
        (grad,) = lib.autograd.grad(pairs, z, lib.arange(8.0).reshape(2, 2, 2))
        return [pairs.tolist(), grad.tolist(), lib.view_as_real(lib.tensor(1 - 1j)).tolist()]

    assert run(hookgrad) == run(torch)


def test_view_as_complex_gradient_of_a_broadcast_gradient(torch: Any) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        # sum's backward expands the gradient: the pairs reach view_as_real with stride 0
        (lib.view_as_complex(x).sum() * (1 + 2j)).real.backward()
        return x.grad.tolist()

    assert run(hookgrad) == run(torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.view_as_real(t.ones(2)),
        lambda t: t.view_as_complex(t.ones(2, dtype=t.complex64)),
        lambda t: t.view_as_complex(t.ones(2, dtype=t.int64)),
        lambda t: t.view_as_complex(t.ones(())),
        lambda t: t.view_as_complex(t.ones(2, 3)),
        lambda t: t.view_as_complex(t.ones(2, 2).t()),
        lambda t: t.view_as_complex(t.ones(3, 3)[:, :2]),
        lambda t: t.view_as_complex(t.ones(4)[1:3]),
    ],
)
def test_view_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(hookgrad)
    assert str(got.value) == str(expected.value)


def test_view_as_complex_accepts_torch_compatible_strides(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        base = lib.arange(16.0).reshape(4, 4)
        return [
            lib.view_as_complex(base[:, :2]).tolist(),
            lib.view_as_complex(base[::2, 2:]).tolist(),
        ]

    assert run(hookgrad) == run(torch)


# -- ops that need an ordering ----------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda t, z: z.max(),
        lambda t, z: z.min(0),
        lambda t, z: z.amax(),
        lambda t, z: z.argmin(),
        lambda t, z: z.median(),
        lambda t, z: z.median(0),
        lambda t, z: z < 1,
        lambda t, z: t.tensor([1.0], dtype=t.float64) >= z,
        lambda t, z: t.maximum(z, z),
        lambda t, z: t.max(z, z),
        lambda t, z: z % 2,
        lambda t, z: z // 2,
        lambda t, z: t.div(z, 2, rounding_mode="trunc"),
        lambda t, z: z.softmax(0),
        lambda t, z: z.log_softmax(0),
    ],
)
def test_ordering_ops_reject_complex_like_torch(torch: Any, call: Any) -> None:
    def error(lib: Any) -> tuple[str, str]:
        z = lib.tensor([1 + 2j, -1 - 1j], requires_grad=True)
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            call(lib, z)
        return type(info.value).__name__, str(info.value)

    assert error(hookgrad) == error(torch)


def test_pow_at_a_zero_base_matches_torch(torch: Any) -> None:
    def run(lib: Any) -> list[str]:
        a = lib.tensor([0j, 0j, 0j, 1 + 1j], requires_grad=True)
        b = lib.tensor([2 + 0j, 1 + 1j, -1 + 2j, 2j], requires_grad=True)
        grads = lib.autograd.grad(a**b, (a, b), lib.ones(4, dtype=lib.complex64))
        return [str(np.round(g.numpy(), 4).tolist()) for g in grads]

    assert run(hookgrad) == run(torch)
