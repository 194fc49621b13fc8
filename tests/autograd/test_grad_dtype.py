"""``Tensor.grad_dtype`` as torch's: a leaf's gradients cast to it before its hooks see
them, None keeps any dtype, and torch's errors for non-leaves, bad values and a
mismatched ``.grad``."""

from __future__ import annotations

from typing import Any

import pytest

import hookgrad


def _custom(lib: Any) -> Any:
    class Widen(lib.autograd.Function):
        """Identity whose backward returns a float64 gradient."""

        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 1

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad.double()

    return Widen


def _run(lib: Any, grad_dtype: Any, custom: bool) -> dict[str, Any]:
    seen: list[str] = []
    x = lib.ones(3, requires_grad=True)
    if grad_dtype != "unset":
        x.grad_dtype = None if grad_dtype is None else getattr(lib, grad_dtype)
    x.register_hook(lambda g: seen.append(str(g.dtype)))
    for _ in range(2):
        y = _custom(lib).apply(x) if custom else x * 2
        y.sum().backward()
    return {"grad": x.grad.tolist(), "dtype": str(x.grad.dtype), "hook": seen,
            "grad_dtype": str(x.grad_dtype)}  # fmt: skip


@pytest.mark.parametrize("custom", [False, True])
@pytest.mark.parametrize("grad_dtype", ["unset", None, "float64", "float16"])
def test_gradients_take_the_leafs_grad_dtype(torch: Any, grad_dtype: Any, custom: bool) -> None:
    assert _run(hookgrad, grad_dtype, custom) == _run(torch, grad_dtype, custom)


def _errors(lib: Any) -> list[str]:
    messages = []
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    attempts = [
        lambda: y.grad_dtype,
        lambda: setattr(y, "grad_dtype", lib.float64),
        lambda: setattr(x, "grad_dtype", "float64"),
        lambda: setattr(x, "grad", lib.ones(2, dtype=lib.float64)),
    ]
    for attempt in attempts:
        with pytest.raises(RuntimeError) as error:
            attempt()
        messages.append(str(error.value))
    x.grad_dtype = None
    x.grad = lib.ones(2, dtype=lib.float64)
    with pytest.raises(RuntimeError) as error:
        x.grad_dtype = lib.float16
    messages.append(str(error.value))
    x.grad_dtype = lib.float64  # matches the gradient it has
    with pytest.raises(RuntimeError) as error:
        x.grad = lib.ones(2)
    messages.append(str(error.value))
    messages.append(str(lib.ones(2).grad_dtype))  # a leaf that needs no gradient
    return messages


def test_errors_are_torchs(torch: Any) -> None:
    assert _errors(hookgrad) == _errors(torch)
