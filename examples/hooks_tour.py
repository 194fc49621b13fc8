"""A short tour of hookgrad's backward-pass hooks: watch them fire, in PyTorch's order.

Run: python examples/hooks_tour.py   (the same file runs on PyTorch with TORCHLIKE=torch)
"""

import importlib
import os

torch = importlib.import_module(os.environ.get("TORCHLIKE", "hookgrad"))


def log(*parts):
    print("  ", *parts)


x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
w = torch.tensor([0.5, -1.0, 0.75], requires_grad=True)

h = x * w  # MulBackward0
y = h.exp() + x  # ExpBackward0 and AddBackward0: x is used twice
loss = y.sum()  # SumBackward0

print("forward:", loss)
print(
    "graph:  ",
    loss.grad_fn.name(),
    "->",
    [fn.name() if fn is not None else None for fn, _ in loss.grad_fn.next_functions],
)

print("hooks, in the order the engine fires them:")
h.register_hook(lambda g: log("tensor hook on h        grad", g))
h.retain_grad()
h.grad_fn.register_prehook(lambda grad_outputs: log("node pre-hook  MulBackward0"))
h.grad_fn.register_hook(
    lambda grad_inputs, grad_outputs: log("node post-hook MulBackward0  grad_inputs", grad_inputs)
)
x.register_hook(lambda g: log("tensor hook on leaf x   grad", g))
x.register_post_accumulate_grad_hook(lambda t: log("post-accumulate on x    .grad", t.grad))
torch.autograd.graph.register_multi_grad_hook(
    (x, w), lambda grads: log("multi-grad hook (x, w)  both grads ready")
)

# A hook that returns a tensor replaces the gradient: double what flows into w.
handle = w.register_hook(lambda g: g * 2)

loss.backward()
print("x.grad =", x.grad)
print("w.grad =", w.grad, "(doubled by the hook)")
print("h.grad =", h.grad, "(kept by retain_grad)")

handle.remove()
print("hooks left on w after remove():", len(w._backward_hooks), "(the multi-grad hook)")
