"""The step kinds a program is made of: ops, in-place ops, hooks, ``retain_grad``,
``backward`` and ``autograd.grad``. Each is ``step(g)`` on a ``Generator``.

Misuse is emitted on purpose at a low rate (a hook on a tensor without grad, an in-place op
on a leaf that requires grad, ``allow_unused=False`` with an unused input), so that both
libraries' errors are compared.

Example::

    >>> from tests.fuzz.state import Generator
    >>> g = Generator(0)
    >>> x = g.leaf((2,), rg=True)
    >>> backward(g, final=True)
    >>> g.instrs[-1].op
    'backward'
"""

from __future__ import annotations

import numpy as np

from . import specs
from .families import BUILDERS, broadcast_shape, fits
from .program import Data, Instr, Ref
from .state import Generator, Slot
from .views import random_index

FAMILIES = {
    "unary": 14,
    "binary": 12,
    "scalar": 6,
    "rscalar": 2,
    "reduce": 7,
    "multi": 5,
    "view": 14,
    "matmul": 4,
    "join": 3,
    "compare": 1,
}


def op(g: Generator) -> None:
    """An out-of-place op of a random family (``specs.py``), retried a few times."""
    for _ in range(4):
        family = g.rng.choices(list(FAMILIES), list(FAMILIES.values()))[0]
        spec = g.spec(specs.ALL, lambda s, f=family: s.family == f)
        if spec is not None and BUILDERS[family](g, spec):
            return


# -- in-place -------------------------------------------------------------------------------


def inplace_target(g: Generator) -> Slot | None:
    """Mostly non-leaf tensors and views of them; sometimes a leaf (which raises when it
    requires grad, unless under no_grad, like an optimizer step)."""
    roll = g.rng.random()
    if roll < 0.3:
        found = g.pick(lambda s: s.floating and s.base is not None and not s.leaf)
    elif roll < 0.75:
        found = g.pick(lambda s: s.floating and not s.leaf)
    elif roll < 0.88:
        found = g.pick(lambda s: s.floating and not s.rg)
    else:
        found = g.pick(lambda s: s.floating and s.leaf and s.rg)
        g.no_grad = g.no_grad or g.rng.random() < 0.6
    return found or g.pick(lambda s: s.floating)


def inplace(g: Generator) -> None:
    """``x.add_(y)``, ``x.relu_()``, ``x[i] = v`` ... on a slot and everything sharing its
    storage (the generator's view of what changes)."""
    spec = g.spec(specs.INPLACE, lambda s: True)
    x = inplace_target(g)
    if x is None:
        return
    args: tuple = (x.ref,)
    kwargs = dict(spec.kwargs)
    sources: list[Slot] = []
    if spec.name in ("add_", "sub_", "mul_", "div_", "copy_"):
        if spec.name != "copy_" and g.rng.random() < 0.4:
            args += (2.0 if spec.domain == "positive" else g.rng.choice([0.5, -1.5, 2]),)
        else:
            other = g.operand(shrink(g, x.shape), pos=spec.domain == "positive")
            args += (other.ref if isinstance(other, Slot) else other,)
            sources += [other] if isinstance(other, Slot) else []
        if spec.name in ("add_", "sub_") and g.rng.random() < 0.3:
            kwargs["alpha"] = 0.5
    if spec.name == "setitem":
        setitem(g, x)
        return
    g.emit(Instr("inplace", (), args, kwargs, spec.name))
    changed(g, x, sources, pos=spec.name in ("sigmoid_", "exp_"))


def shrink(g: Generator, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``shape`` (as an in-place op's operand must)."""
    for _ in range(5):
        candidate = broadcast_shape(g, shape)
        if fits(candidate, shape):
            return candidate
    return shape


def setitem(g: Generator, x: Slot) -> None:
    if not x.shape:
        return
    index = random_index(g, x.shape)
    shape = np.empty(x.shape)[index].shape
    sources: list[Slot] = []
    if g.rng.random() < 0.4:
        value = 0.5
    else:
        other = g.operand(shrink(g, tuple(shape)), pos=False)
        value = other.ref if isinstance(other, Slot) else other
        sources += [other] if isinstance(other, Slot) else []
    g.emit(Instr("setitem", (), (x.ref, index, value)))
    changed(g, x, sources, pos=False)


def changed(g: Generator, x: Slot, sources: list[Slot], pos: bool) -> None:
    """Update every slot sharing ``x``'s storage after an in-place op."""
    base = x.base or x.name
    rg = (x.rg or any(s.rg for s in sources)) and not g.no_grad
    ancestors = frozenset().union(*(s.ancestors | {s.name} for s in sources if s.rg))
    for slot in g.slots.values():
        if slot.name == base or slot.base == base:
            slot.pos = pos and slot is x
            if rg and not (slot.rg and slot.leaf):
                slot.rg, slot.leaf = True, False
                slot.ancestors = slot.ancestors | ancestors | x.ancestors


# -- hooks ----------------------------------------------------------------------------------


def scale(g: Generator, p: float) -> dict:
    """Whether a hook returns its grads scaled (``scale``), rarely with a wrong shape."""
    if g.rng.random() < 0.02:
        return {"scale": "wrong shape"}
    return {"scale": g.rng.choice(SCALES)} if g.rng.random() < p else {}


SCALES = [2.0, -1.0, 0.5]


def remove(g: Generator) -> None:
    """``h.remove()`` for a hook registered earlier (sometimes twice: it is idempotent)."""
    hooks = [ins.out[0] for ins in g.instrs if ins.op.startswith("hook.")]
    if hooks:
        g.emit(Instr("remove", (), (g.rng.choice(hooks),)))


def hook(g: Generator) -> None:
    """A tensor hook, node pre-/post-hook, multi-grad hook or post-accumulate-grad hook."""
    kind = g.rng.choices(["tensor", "pre", "post", "multi", "acc"], [5, 2, 2, 1.5, 1.5])[0]
    hid = g.hook_name()
    if kind == "tensor":
        x = g.pick(lambda s: s.rg) if g.rng.random() < 0.97 else g.pick(lambda s: not s.rg)
        if x is not None:
            g.emit(Instr("hook.tensor", (hid,), (x.ref,), scale(g, 0.4)))
    elif kind in ("pre", "post"):
        x = g.pick(lambda s: s.rg and not s.leaf)
        if x is None:
            return
        path = (0,) if x.leaf_input and g.rng.random() < 0.4 else ()
        g.emit(Instr(f"hook.{kind}", (hid,), (x.ref,), {"path": path, **scale(g, 0.3)}))
    elif kind == "multi":
        found = [s for s in g.slots.values() if s.rg]
        if len(found) < 2:
            return
        chosen = g.rng.sample(found, min(len(found), g.rng.choice([2, 2, 3])))
        mode = g.rng.choice(["all", "all", "any"])
        tensors = tuple(s.ref for s in chosen)
        g.emit(Instr("hook.multi", (hid,), (tensors,), {"mode": mode}))
    else:
        x = g.pick(lambda s: s.rg and s.leaf) if g.rng.random() < 0.95 else g.pick()
        if x is not None:
            g.emit(Instr("hook.acc", (hid,), (x.ref,)))


def retain_grad(g: Generator) -> None:
    x = g.pick(lambda s: s.rg and not s.leaf) if g.rng.random() < 0.9 else g.pick()
    if x is not None:
        g.emit(Instr("retain_grad", (), (x.ref,)))


# -- backward passes ------------------------------------------------------------------------


def root(g: Generator) -> Slot | None:
    found = g.pick(lambda s: s.rg and not s.leaf and s.floating)
    return found or g.pick(lambda s: s.rg and s.floating)


def seed_grad(g: Generator, x: Slot) -> Data | None:
    if not x.shape and g.rng.random() < 0.8:
        return None
    return g.data(x.shape, x.dtype)


def backward(g: Generator, final: bool = False) -> None:
    """``y.backward(gradient=, inputs=, retain_graph=, create_graph=)``."""
    y = root(g)
    if y is None:
        return
    kwargs: dict = {}
    gradient = seed_grad(g, y)
    if gradient is not None:
        kwargs["gradient"] = gradient
    if g.rng.random() < 0.25 and y.ancestors:
        chosen = g.rng.sample(sorted(y.ancestors), min(len(y.ancestors), g.rng.randint(1, 2)))
        kwargs["inputs"] = [Ref(n) for n in chosen]
    if g.rng.random() < (0.5 if final else 0.9):
        kwargs["retain_graph"] = True
    if g.rng.random() < 0.1:
        kwargs["create_graph"] = True
    g.emit(Instr("backward", (), (y.ref,), kwargs))


def grad(g: Generator) -> None:
    """``autograd.grad(y, inputs, grad_outputs=, allow_unused=, create_graph=)``; the
    results become slots (with create_graph, a second backward can go through them)."""
    y = root(g)
    if y is None or not y.ancestors:
        return
    names = sorted(y.ancestors)
    chosen = [g.slots[n] for n in g.rng.sample(names, min(len(names), g.rng.randint(1, 3)))]
    kwargs: dict = {}
    unrelated = [s for s in g.slots.values() if s.rg and s.name not in y.ancestors and s != y]
    if unrelated and g.rng.random() < 0.2:
        chosen.append(g.rng.choice(unrelated))
        kwargs["allow_unused"] = g.rng.random() < 0.8
    gradient = seed_grad(g, y)
    if gradient is not None:
        kwargs["grad_outputs"] = [gradient]
    create = g.rng.random() < 0.3
    if create:
        kwargs["create_graph"] = True
    if g.rng.random() < 0.85:
        kwargs["retain_graph"] = True
    outs = [
        Slot(g.name(), s.shape, s.dtype, rg=create, leaf=not create, ancestors=y.ancestors)
        for s in chosen
    ]
    if not create:
        for out in outs:
            out.ancestors = frozenset()
    inputs = [s.ref for s in chosen]
    g.emit(Instr("grad", tuple(o.name for o in outs), ([y.ref], inputs), kwargs), outs)
