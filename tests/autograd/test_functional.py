"""``autograd.functional``: the same values, structures, graphs and errors as torch."""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import functional, gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def arrays(*shapes: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    return tuple(RNG.uniform(0.5, 1.5, shape) for shape in shapes)


# name -> (function of (lib, *inputs), input arrays, whether the inputs are given as a tuple)
FUNCTIONS = {
    "elementwise": (lambda lib, x: x.exp() * x.sin(), arrays((2, 3)), False),
    "matmul": (lambda lib, a, b: a @ b, arrays((2, 3), (3, 2)), True),
    "reduction": (lambda lib, x: (x**2).sum(dim=1) + x.mean(), arrays((3, 4)), False),
    "multi_output": (
        lambda lib, x, y: (x * y, (x + y).sum(), y.tanh()),
        arrays((3,), (3,)),
        True,
    ),
    "scalar_output": (lambda lib, x: (x.tanh() ** 2).sum(), arrays((4,)), False),
    "scalar_input": (lambda lib, x: (x.sin(), x * x), arrays(()), False),
    "linear": (lambda lib, x, y: 2 * x + 3 * y, arrays((2,), (2,)), True),
    "unused_input": (lambda lib, x, y: (x * x, x.sum()), arrays((2,), (3,)), True),
    "constant_output": (
        lambda lib, x: (x * 2, lib.ones(2, dtype=lib.float64)),
        arrays((2,)),
        False,
    ),
}

# Scalar functions for hessian, vhp and hvp.
SCALAR_FUNCTIONS = {
    "cubic": (lambda lib, x: x.pow(3).sum(), arrays((3,)), False),
    "coupled": (lambda lib, x, y: (x @ y @ x).sin(), arrays((2,), (2, 2)), True),
    "separable": (lambda lib, x, y: (x**2).sum() + (y**3).sum(), arrays((2,), (3,)), True),
    "linear": (lambda lib, x: (2 * x).sum(), arrays((2,)), False),
    "one_by_one": (lambda lib, x: (x**3).sum().reshape(1, 1), arrays((2,)), False),
    "unused_input": (lambda lib, x, y: x.exp().sum(), arrays((2,), (2,)), True),
}


def to_lib(lib: Any, value: Any, requires_grad: bool = False) -> Any:
    if isinstance(value, tuple):
        return tuple(to_lib(lib, el, requires_grad) for el in value)
    return lib.tensor(value, dtype=lib.float64, requires_grad=requires_grad)


def leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for el in value for leaf in leaves(el)]
    return [value]


def assert_same(result: Any, expected: Any, path: str = "result") -> None:
    """Same nesting, shapes, dtypes, values and graph state as torch's result."""
    if isinstance(expected, tuple):
        assert isinstance(result, tuple), path
        assert len(result) == len(expected), path
        for index, (res, exp) in enumerate(zip(result, expected)):
            assert_same(res, exp, f"{path}[{index}]")
        return
    assert isinstance(result, hookgrad.Tensor), path
    assert tuple(result.shape) == tuple(expected.shape), path
    assert str(result.dtype) == str(expected.dtype), path
    assert result.requires_grad == expected.requires_grad, path
    assert (result.grad_fn is None) == (expected.grad_fn is None), path
    np.testing.assert_allclose(
        result.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=path
    )


def outcome(call: Any) -> tuple[str, Any]:
    """``("ok", result)`` or ``("error", (type name, message))``."""
    try:
        return "ok", call()
    except (RuntimeError, TypeError, AssertionError, NotImplementedError) as error:
        return "error", (type(error).__name__, str(error))


# NOTE: for a block of the jacobian that does not depend on the inputs (strict mode with
# create_graph), torch's message names the *output's* index as "input {i}"; hookgrad names
# the input. Only the index differs.
CONSTANT_BLOCK = "The jacobian of the user-provided function is independent of input "


def without_index(error: tuple[str, str], api: str) -> tuple[str, str]:
    kind, message = error
    from_jacobian = api in ("jacobian", "hessian")
    if from_jacobian and message.startswith(CONSTANT_BLOCK) and "create_graph=True" in message:
        return kind, re.sub(r"input \d+", "input ?", message)
    return error


def shapes_of(value: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(t.shape) for t in (value if isinstance(value, tuple) else (value,)))


def make_v(lib: Any, shapes: tuple[tuple[int, ...], ...], as_tuple: bool) -> Any:
    """A ``v`` with these shapes, or None where ``v`` may be left out (one element)."""
    if len(shapes) == 1 and int(np.prod(shapes[0])) == 1:
        return None
    v = tuple(
        lib.tensor(np.linspace(-1.0, 1.0, int(np.prod(s))).reshape(s), dtype=lib.float64)
        for s in shapes
    )
    return v if as_tuple else v[0]


def run_both(torch: Any, api: str, entry: tuple, v_of: str | None, **kwargs: Any) -> dict:
    """``{lib: (outcome, inputs)}`` of ``api`` on both libraries; ``v_of`` says what ``v``
    is shaped like ("inputs", "outputs" or None for no ``v`` argument)."""
    func, values, as_tuple = entry
    requires_grad = kwargs.pop("inputs_require_grad")
    runs = {}
    for lib in (torch, hookgrad):
        inputs = to_lib(lib, values, requires_grad)
        args: tuple[Any, ...] = (inputs if as_tuple else inputs[0],)
        if v_of == "inputs":
            args += (make_v(lib, shapes_of(inputs), as_tuple),)
        elif v_of == "outputs":
            outputs = func(lib, *inputs)
            args += (make_v(lib, shapes_of(outputs), isinstance(outputs, tuple)),)
        call = getattr(lib.autograd.functional, api)
        bound = functools.partial(call, functools.partial(func, lib), *args, **kwargs)
        runs[lib] = outcome(bound), inputs
    return runs


def compare_call(torch: Any, api: str, entry: tuple, v_of: str | None, **kwargs: Any) -> None:
    """The same error as torch, or the same results; with ``create_graph`` the results
    also have the same gradients with respect to inputs that require grad."""
    runs = run_both(torch, api, entry, v_of, **kwargs)
    (kind, expected), torch_inputs = runs[torch]
    (hg_kind, result), hg_inputs = runs[hookgrad]
    if kind == "error":
        assert (hg_kind, without_index(result, api)) == (kind, without_index(expected, api))
        return
    assert hg_kind == "ok", result
    assert_same(result, expected)
    wanted = [leaf for leaf in leaves(expected) if leaf.requires_grad]
    got = [leaf for leaf in leaves(result) if leaf.requires_grad]
    if not wanted or not torch_inputs[0].requires_grad:
        return
    torch_grads = torch.autograd.grad(sum(t.sum() for t in wanted), torch_inputs, allow_unused=True)
    hg_grads = hookgrad.autograd.grad(sum(t.sum() for t in got), hg_inputs, allow_unused=True)
    for hg_grad, torch_grad in zip(hg_grads, torch_grads):
        assert (hg_grad is None) == (torch_grad is None)
        if torch_grad is not None:
            np.testing.assert_allclose(hg_grad.numpy(), torch_grad.numpy(), rtol=1e-10)


FLAGS = [
    pytest.param(create_graph, strict, grad, id=f"cg={create_graph}-strict={strict}-rg={grad}")
    for create_graph in (False, True)
    for strict in (False, True)
    for grad in (False, True)
]


# -- values, structures, graphs and strict errors against torch ---------------------------


@pytest.mark.parametrize(("create_graph", "strict", "inputs_require_grad"), FLAGS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_vjp_matches_torch(torch, name, create_graph, strict, inputs_require_grad):
    compare_call(
        torch,
        "vjp",
        FUNCTIONS[name],
        "outputs",
        create_graph=create_graph,
        strict=strict,
        inputs_require_grad=inputs_require_grad,
    )


@pytest.mark.parametrize(("create_graph", "strict", "inputs_require_grad"), FLAGS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_jvp_matches_torch(torch, name, create_graph, strict, inputs_require_grad):
    compare_call(
        torch,
        "jvp",
        FUNCTIONS[name],
        "inputs",
        create_graph=create_graph,
        strict=strict,
        inputs_require_grad=inputs_require_grad,
    )


@pytest.mark.parametrize(("create_graph", "strict", "inputs_require_grad"), FLAGS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_jacobian_matches_torch(torch, name, create_graph, strict, inputs_require_grad):
    compare_call(
        torch,
        "jacobian",
        FUNCTIONS[name],
        None,
        create_graph=create_graph,
        strict=strict,
        inputs_require_grad=inputs_require_grad,
    )


@pytest.mark.parametrize(("create_graph", "strict", "inputs_require_grad"), FLAGS)
@pytest.mark.parametrize("name", SCALAR_FUNCTIONS)
def test_hessian_matches_torch(torch, name, create_graph, strict, inputs_require_grad):
    compare_call(
        torch,
        "hessian",
        SCALAR_FUNCTIONS[name],
        None,
        create_graph=create_graph,
        strict=strict,
        inputs_require_grad=inputs_require_grad,
    )


@pytest.mark.parametrize(("create_graph", "strict", "inputs_require_grad"), FLAGS)
@pytest.mark.parametrize("name", SCALAR_FUNCTIONS)
@pytest.mark.parametrize("api", ["vhp", "hvp"])
def test_hessian_products_match_torch(torch, api, name, create_graph, strict, inputs_require_grad):
    compare_call(
        torch,
        api,
        SCALAR_FUNCTIONS[name],
        "inputs",
        create_graph=create_graph,
        strict=strict,
        inputs_require_grad=inputs_require_grad,
    )


def weight(lib: Any, *shape: int) -> Any:
    """A tensor that requires grad but is not one of the inputs (a captured parameter)."""
    return lib.ones(*shape, dtype=lib.float64, requires_grad=True)


# Functions that reach the rarer strict-mode errors: (api, function, inputs, as_tuple, v).
STRICT_CASES = {
    "jvp-output_from_captured_weight": (
        "jvp",
        (lambda lib, x: (x * 2, weight(lib, 2) * 3), arrays((2,)), False),
        "inputs",
    ),
    "jvp-gradient_not_requiring_grad": (
        "jvp",
        (lambda lib, x: x.sign() * 2, arrays((2,)), False),
        "inputs",
    ),
    "vhp-gradient_from_captured_weight": (
        "vhp",
        (lambda lib, x, y: (x**2).sum() + (y * weight(lib, 2)).sum(), arrays((2,), (2,)), True),
        "inputs",
    ),
    "hvp-gradient_from_captured_weight": (
        "hvp",
        (lambda lib, x, y: (x**2).sum() + (y * weight(lib, 2)).sum(), arrays((2,), (2,)), True),
        "inputs",
    ),
    "vhp-constant_hessian": ("vhp", (lambda lib, x: (x * x).sum(), arrays((3,)), False), "inputs"),
    "hvp-constant_hessian": ("hvp", (lambda lib, x: (x * x).sum(), arrays((3,)), False), "inputs"),
    "hessian-constant_hessian": (
        "hessian",
        (lambda lib, x: (x * x).sum(), arrays((3,)), False),
        None,
    ),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("case", STRICT_CASES)
def test_rare_strict_errors_match_torch(torch, case, strict, create_graph):
    api, entry, v_of = STRICT_CASES[case]
    compare_call(
        torch,
        api,
        entry,
        v_of,
        create_graph=create_graph,
        strict=strict,
        inputs_require_grad=False,
    )


# -- bad arguments: torch's error types and messages ---------------------------------------


def vec(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, dtype=lib.float64)


# name -> function of (functional module, lib) making the call that must fail.
BAD_CALLS = {
    "vjp-v_missing_for_vector_output": lambda F, lib: F.vjp(lambda x: x * 2, vec(lib, 3)),
    "vjp-v_tuple_too_short": lambda F, lib: F.vjp(
        lambda x: (x, x * 2), vec(lib, 3), (vec(lib, 3),)
    ),
    "vjp-v_tuple_for_single_output": lambda F, lib: F.vjp(
        lambda x: x * 2, vec(lib, 3), (vec(lib, 3), vec(lib, 3))
    ),
    "vjp-v_wrong_size": lambda F, lib: F.vjp(lambda x: x * 2, vec(lib, 3), vec(lib, 2)),
    "vjp-v_entry_wrong_size": lambda F, lib: F.vjp(
        lambda x: (x, x.sum()), vec(lib, 3), (vec(lib, 3), vec(lib, 2))
    ),
    "vjp-v_is_a_list": lambda F, lib: F.vjp(lambda x: x * 2, vec(lib, 3), [vec(lib, 3)]),
    "vjp-output_is_a_list": lambda F, lib: F.vjp(lambda x: [x], vec(lib, 3), vec(lib, 3)),
    "vjp-integer_input": lambda F, lib: F.vjp(
        lambda x: x * 2, lib.ones(3, dtype=lib.int64), vec(lib, 3)
    ),
    "jacobian-inputs_is_a_list": lambda F, lib: F.jacobian(lambda x: x, [vec(lib, 2)]),
    "jvp-input_tuple_holds_a_float": lambda F, lib: F.jvp(
        lambda x, y: x * y, (vec(lib, 2), 2.0), vec(lib, 2)
    ),
    "jvp-v_missing_for_vector_input": lambda F, lib: F.jvp(lambda x: x * 2, vec(lib, 3)),
    "jvp-v_wrong_size": lambda F, lib: F.jvp(lambda x: x * 2, vec(lib, 3), vec(lib, 3, 1)),
    "hessian-output_is_a_float": lambda F, lib: F.hessian(lambda x: 2.0, vec(lib, 2)),
    "hessian-output_is_a_tuple": lambda F, lib: F.hessian(lambda x: (x.sum(),), vec(lib, 2)),
    "hessian-output_not_scalar": lambda F, lib: F.hessian(lambda x: x**3, vec(lib, 2)),
    "hessian-inputs_is_a_list": lambda F, lib: F.hessian(lambda x: x.sum(), [vec(lib, 2)]),
    "hessian-bad_strategy": lambda F, lib: F.hessian(
        lambda x: x.sum(), vec(lib, 2), outer_jacobian_strategy="sideways"
    ),
    "vhp-output_is_a_tuple": lambda F, lib: F.vhp(lambda x: (x.sum(),), vec(lib, 2), vec(lib, 2)),
    "hvp-output_not_scalar": lambda F, lib: F.hvp(lambda x: x**3, vec(lib, 2), vec(lib, 2)),
    "hvp-v_missing_for_two_inputs": lambda F, lib: F.hvp(
        lambda x, y: (x * y).sum(), (vec(lib, 1), vec(lib, 1))
    ),
    "jacobian-bad_strategy": lambda F, lib: F.jacobian(lambda x: x, vec(lib, 2), strategy="up"),
    "jacobian-forward_mode_create_graph": lambda F, lib: F.jacobian(
        lambda x: x, vec(lib, 2), create_graph=True, strategy="forward-mode"
    ),
    "jacobian-forward_mode_strict": lambda F, lib: F.jacobian(
        lambda x: x, vec(lib, 2), strict=True, strategy="forward-mode"
    ),
    "jacobian-forward_mode_inputs_is_a_list": lambda F, lib: F.jacobian(
        lambda x: x, [vec(lib, 2)], strategy="forward-mode"
    ),
    "jacobian-vectorize_and_strict": lambda F, lib: F.jacobian(
        lambda x: x * x, vec(lib, 2), strict=True, vectorize=True
    ),
}


@pytest.mark.parametrize("name", BAD_CALLS)
def test_bad_arguments_raise_like_torch(torch, name):
    make_call = BAD_CALLS[name]
    kind, expected = outcome(lambda: make_call(torch.autograd.functional, torch))
    assert kind == "error", "torch accepted the call"
    assert outcome(lambda: make_call(functional, hookgrad)) == ("error", expected)


def test_forward_mode_needs_vectorize():
    x = hookgrad.ones(2)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        functional.jacobian(lambda x: x, x, strategy="forward-mode")


def test_vectorize_gives_the_same_jacobian():
    x = hookgrad.tensor([1.0, 2.0, 3.0], dtype=hookgrad.float64)
    rowwise = functional.jacobian(lambda x: x.exp().cumsum(0), x)
    vectorized = functional.jacobian(lambda x: x.exp().cumsum(0), x, vectorize=True)
    np.testing.assert_array_equal(vectorized.numpy(), rowwise.numpy())
    np.testing.assert_allclose(rowwise.numpy(), np.tril(np.exp([1.0, 2.0, 3.0]) * np.ones((3, 3))))


# -- graphs: fresh inputs, no leaks, grad mode ---------------------------------------------


def all_apis(F: Any, x: Any, **kwargs: Any) -> list[Any]:
    """Every function of the module on ``x`` of shape (3,) (a scalar function where needed)."""
    elementwise = lambda x: x.exp() * x  # noqa: E731
    cubic = lambda x: x.pow(3).sum()  # noqa: E731
    v = x.detach() + 1
    return [
        F.vjp(elementwise, x, v, **kwargs),
        F.jvp(elementwise, x, v, **kwargs),
        F.jacobian(elementwise, x, **kwargs),
        F.hessian(cubic, x, **kwargs),
        F.vhp(cubic, x, v, **kwargs),
        F.hvp(cubic, x, v, **kwargs),
    ]


def test_results_keep_no_graph_without_create_graph():
    x = hookgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    for result in all_apis(functional, x):
        for leaf in leaves(result):
            assert not leaf.requires_grad
            assert leaf.grad_fn is None
    assert x.grad is None


def test_results_under_no_grad_match_torch(torch):
    """The function always runs with grad enabled; ``create_graph`` decides the results'
    graphs, also under ``no_grad``, which stays in force afterwards."""
    for create_graph in (False, True):
        results = {}
        for lib in (torch, hookgrad):
            x = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64)
            with lib.no_grad():
                results[lib] = tuple(
                    all_apis(lib.autograd.functional, x, create_graph=create_graph)
                )
                assert not lib.is_grad_enabled()
        assert_same(results[hookgrad], results[torch])


def test_grad_mode_is_restored_after_an_error():
    def failing(x):
        raise ValueError("boom")

    with hookgrad.no_grad():
        with pytest.raises(ValueError, match="boom"):
            functional.jacobian(failing, hookgrad.ones(2))
        assert not hookgrad.is_grad_enabled()


def test_function_gets_fresh_tensors_like_torch(torch):
    """The function sees new tensors that require grad: leaves, or (with create_graph, for
    an input that requires grad) views that keep the caller's graph."""
    for create_graph in (False, True):
        for requires_grad in (False, True):
            seen = {}
            for lib in (torch, hookgrad):
                x = lib.ones(2, dtype=lib.float64, requires_grad=requires_grad)
                record = []

                def func(inp, x=x, record=record):
                    record.append((inp is x, inp.requires_grad, inp.is_leaf))
                    return inp * 2

                lib.autograd.functional.vjp(func, x, x.detach(), create_graph=create_graph)
                seen[lib] = record
            assert seen[hookgrad] == seen[torch]


def test_input_captured_by_the_function_is_a_constant(torch):
    """``func`` may close over the tensor it is also given; only the argument is varied."""
    results = {}
    for lib in (torch, hookgrad):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        results[lib] = lib.autograd.functional.jacobian(lambda inp, x=x: inp * x, x)
    assert_same(results[hookgrad], results[torch])
    np.testing.assert_allclose(results[hookgrad].numpy(), np.diag([1.0, 2.0, 3.0]))


def test_jacobian_blocks_take_the_input_dtype(torch):
    results = {}
    for lib in (torch, hookgrad):
        x = lib.tensor([1.0, 2.0], dtype=lib.float32)
        y = lib.tensor([3.0, 4.0], dtype=lib.float64)
        results[lib] = lib.autograd.functional.jacobian(lambda x, y: (x * y, x.sum()), (x, y))
    assert_same(results[hookgrad], results[torch])


def test_jacobian_of_an_empty_output_is_empty():
    # NOTE: torch raises "stack expects a non-empty TensorList" here.
    x = hookgrad.ones(3)
    jac = functional.jacobian(lambda x: (x[:0] * 2, x * 2), (x,))
    assert jac[0][0].shape == (0, 3)
    np.testing.assert_array_equal(jac[1][0].numpy(), 2 * np.eye(3))


# -- create_graph: the results differentiate correctly (finite differences) ------------------


def f64(*values: Any) -> Any:
    return hookgrad.tensor(values, dtype=hookgrad.float64, requires_grad=True)


def curve(x: Any, y: Any) -> Any:
    return (x.sin() * y, (x * y).exp().sum())


def bowl(x: Any, y: Any) -> Any:
    return (x.pow(3) * y).sum() + (x * y).sin().sum()


def flat(value: Any) -> tuple[Any, ...]:
    return tuple(leaves(value))


def test_jacobian_with_create_graph_passes_gradcheck_and_gradgradcheck():
    x, y = f64(0.3, -0.7), f64(1.1, 0.4)
    jac = lambda x, y: flat(functional.jacobian(curve, (x, y), create_graph=True))  # noqa: E731
    assert gradcheck(jac, (x, y))
    assert gradgradcheck(jac, (x, y))


def test_hessian_with_create_graph_passes_gradcheck():
    x, y = f64(0.3, -0.7), f64(1.1, 0.4)
    assert gradcheck(lambda x, y: flat(functional.hessian(bowl, (x, y), create_graph=True)), (x, y))


@pytest.mark.parametrize("api", ["vjp", "jvp"])
def test_products_with_create_graph_pass_gradcheck(api):
    """Differentiable with respect to the inputs and to ``v`` (``vjp``'s ``v`` has the
    outputs' shapes, ``jvp``'s the inputs')."""
    x, y = f64(0.3, -0.7), f64(1.1, 0.4)
    v = (f64(0.5, 2.0), f64(-1.5)[0]) if api == "vjp" else (f64(0.5, 2.0), f64(-1.5, 0.2))
    call = getattr(functional, api)

    def product(x, y, v0, v1):
        return flat(call(curve, (x, y), (v0, v1), create_graph=True))

    assert gradcheck(product, (x, y, *v))


@pytest.mark.parametrize("api", ["vhp", "hvp"])
def test_hessian_products_with_create_graph_pass_gradcheck(api):
    x, y = f64(0.3, -0.7), f64(1.1, 0.4)
    v0, v1 = f64(0.5, 2.0), f64(-1.5, 0.2)
    call = getattr(functional, api)

    def product(x, y, v0, v1):
        return flat(call(bowl, (x, y), (v0, v1), create_graph=True))

    assert gradcheck(product, (x, y, v0, v1))
