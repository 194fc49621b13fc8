"""Generates a fuzz program from a seed.

The generator keeps a model of each slot (``state.Slot``) good enough to emit mostly valid
programs: an op is only applied where its shape rule and domain hold (``log`` to positive
slots, ``view`` mostly to contiguous ones...). Misuse still happens on purpose at a low
rate (a hook on a tensor that does not require grad, an in-place op on a leaf, a hook
returning a wrong shape, a second backward through a freed graph), so errors are compared
too. The model is approximate; where it is wrong, the program just raises, on both
libraries alike if they agree.

A program is one to three leaves, then a random mix of the steps in ``STEPS`` (ops from the
table in ``specs.py`` built by ``families.py`` / ``views.py``; in-place ops, hooks,
``retain_grad``, hook removal, backward passes and ``autograd.grad`` calls from
``builders.py``), then a final backward.

Example::

    >>> print(generate(3).listing().splitlines()[0])  # doctest: +ELLIPSIS
     0  t0 = torch.tensor(..., requires_grad=...)
"""

from __future__ import annotations

from collections.abc import Callable

from . import builders
from .program import Program
from .state import Generator

# Each step kind with its weight; one of them is drawn per step.
STEPS: list[tuple[Callable[[Generator], object], float]] = [
    (builders.op, 50),
    (builders.inplace, 9),
    (builders.hook, 15),
    (builders.retain_grad, 4),
    (builders.remove, 2),
    (builders.backward, 4),
    (builders.grad, 4),
    (lambda g: g.leaf(), 3),
]
NO_GRAD_RATE = 0.05  # steps run inside torch.no_grad()


def generate(seed: int, available: Callable[[str], bool] | None = None) -> Program:
    """The program for ``seed``. ``available(name)`` says whether an optional op (marked
    ``optional`` in ``specs.py``, e.g. ``topk``) may be used; by default all may."""
    g = Generator(seed, available)
    for _ in range(g.rng.choice([1, 2, 2, 3])):
        g.leaf()
    for _ in range(g.rng.randint(5, 20)):
        step = g.rng.choices([s for s, _ in STEPS], [w for _, w in STEPS])[0]
        g.no_grad = g.rng.random() < NO_GRAD_RATE
        step(g)
        g.no_grad = False
    builders.backward(g, final=True)
    if g.rng.random() < 0.1:
        builders.backward(g, final=True)
    return Program(seed, g.instrs)
