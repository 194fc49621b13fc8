"""Deep graphs: a chain of 100,000 ops runs forward, backward and is freed without recursion."""

from __future__ import annotations

import gc
import weakref

import hookgrad

DEPTH = 100_000


def chain(x: hookgrad.Tensor, depth: int) -> hookgrad.Tensor:
    y = x
    for _ in range(depth):
        y = y * 1.0
    return y


def test_chain_of_100k_ops_backward_grad_and_delete() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = chain(x, DEPTH)
    loss = y.sum()
    (grad,) = hookgrad.autograd.grad(loss, x, retain_graph=True)
    assert grad.tolist() == [1.0, 1.0]
    loss.backward(retain_graph=True)
    assert x.grad.tolist() == [1.0, 1.0]
    first = weakref.ref(loss.grad_fn.next_functions[0][0])
    del y, loss
    # Freeing the chain must not recurse either (it would crash the interpreter).
    gc.collect()
    assert first() is None


def test_deep_chain_with_hooks_and_inputs() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    middle = chain(x, 10_000)
    seen = []
    middle.register_hook(lambda g: seen.append(g.item()))
    top = chain(middle * 2, 10_000).sum()
    top.backward(inputs=[middle])
    assert seen == [2.0]
    assert middle.grad.item() == 2.0
    assert x.grad is None


def test_deep_double_backward() -> None:
    x = hookgrad.tensor([3.0], requires_grad=True)
    y = x
    for _ in range(2_000):
        y = y * 1.0 + 0.0
    (gx,) = hookgrad.autograd.grad((y * y).sum(), x, create_graph=True)
    assert gx.item() == 6.0
    (ggx,) = hookgrad.autograd.grad(gx.sum(), x)
    assert ggx.item() == 2.0
