"""Fit a quartic with one linear layer and hand-written SGD until the loss drops below a
threshold: the step at which that happens depends on every last bit of the run."""

import importlib
import itertools
import os

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
F = importlib.import_module(torch.__name__ + ".nn.functional")

torch.manual_seed(0)
DEGREE = 4
true_weights = torch.randn(DEGREE, 1) * 5
true_bias = torch.randn(1) * 5


def powers(x):
    """The columns x, x^2, ..., x^DEGREE."""
    column = x.unsqueeze(1)
    return torch.cat([column**k for k in range(1, DEGREE + 1)], 1)


def batch(size=32):
    x = powers(torch.randn(size))
    return x, x.mm(true_weights) + true_bias.item()


layer = torch.nn.Linear(DEGREE, 1)
for step in itertools.count(1):
    x, y = batch()
    layer.zero_grad()
    loss = F.smooth_l1_loss(layer(x), y)
    value = loss.item()
    loss.backward()
    for parameter in layer.parameters():
        parameter.data.add_(-0.1 * parameter.grad)
    if step % 100 == 0:
        print(f"step {step}: loss {value:.8f}")
    if value < 1e-3:
        break

print(f"loss {value:.8f} after {step} steps")
print("weights", [f"{w:+.6f}" for w in layer.weight.view(-1).tolist()])
print("bias", f"{layer.bias.item():+.6f}")
