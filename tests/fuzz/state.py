"""The generator's state while it builds one program: the slots and its belief about each.

``Slot`` models a tensor well enough to emit mostly valid programs (shape, dtype,
requires_grad, leaf, positivity, contiguity, the view base, which tensors it depends on);
``Generator`` holds the slots, the instructions emitted so far and the random stream, with
helpers to pick slots, make data and leaves, and emit. ``generator.py`` drives it.

Example::

    >>> g = Generator(0)
    >>> x = g.leaf((2, 3), rg=True)
    >>> (x.name, x.shape, g.instrs[0].op)
    ('t0', (2, 3), 'leaf')
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import specs
from .program import Data, Instr, Ref

SIZES = [1, 2, 2, 3, 3, 4]


@dataclass
class Slot:
    """What the generator believes about the tensor in slot ``name``."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    rg: bool = False
    leaf: bool = True
    pos: bool = False  # every value > 0
    contig: bool = True
    base: str | None = None  # the slot whose storage this one views
    ancestors: frozenset[str] = frozenset()  # slots requiring grad that it depends on
    leaf_input: bool = False  # made by a one-input op from a leaf requiring grad

    @property
    def ref(self) -> Ref:
        return Ref(self.name)

    @property
    def floating(self) -> bool:
        return self.dtype in ("float32", "float64")

    @property
    def numel(self) -> int:
        n = 1
        for size in self.shape:
            n *= size
        return n


def promote(*dtypes: str) -> str:
    """torch's promotion among the float dtypes the fuzzer uses."""
    return "float64" if "float64" in dtypes else "float32"


class Generator:
    """The state of one program being generated (see ``generator.generate``)."""

    def __init__(self, seed: int, available: Callable[[str], bool] | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.available = available or (lambda name: True)
        self.slots: dict[str, Slot] = {}
        self.instrs: list[Instr] = []
        self.count = 0
        self.hooks = 0
        self.no_grad = False

    # -- bookkeeping ----------------------------------------------------------------------

    def name(self) -> str:
        self.count += 1
        return f"t{self.count - 1}"

    def hook_name(self) -> str:
        self.hooks += 1
        return f"h{self.hooks - 1}"

    def emit(self, ins: Instr, outs: list[Slot] = ()) -> list[Slot]:
        ins.no_grad = ins.no_grad or self.no_grad
        self.instrs.append(ins)
        for slot in outs:
            self.slots[slot.name] = slot
        return list(outs)

    def pick(self, pred: Callable[[Slot], bool] = lambda s: True) -> Slot | None:
        """A slot satisfying ``pred``, recent ones more likely."""
        found = [s for s in self.slots.values() if pred(s)]
        if not found:
            return None
        weights = [1.0 + i for i in range(len(found))]
        return self.rng.choices(found, weights)[0]

    def spec(self, table: list[specs.OpSpec], pred: Callable[[specs.OpSpec], bool]) -> Any:
        options = [s for s in table if pred(s) and (not s.optional or self.available(s.name))]
        if not options:
            return None
        return self.rng.choices(options, [s.weight for s in options])[0]

    def derived(self, inputs: list[Slot], shape: tuple[int, ...], **kw: Any) -> Slot:
        """A new slot computed from ``inputs`` (requires_grad, dtype, ancestry follow)."""
        differentiable = kw.pop("differentiable", True)
        rg = any(s.rg for s in inputs) and not self.no_grad and differentiable
        ancestors = frozenset().union(*(s.ancestors | {s.name} for s in inputs if s.rg))
        dtype = kw.pop("dtype", None) or promote(*(s.dtype for s in inputs))
        slot = Slot(self.name(), shape, dtype, rg=rg, leaf=not rg, **kw)
        slot.ancestors = ancestors if rg else frozenset()
        return slot

    # -- data -----------------------------------------------------------------------------

    def random_shape(self) -> tuple[int, ...]:
        ndim = self.rng.choices([0, 1, 2, 3], [1, 6, 9, 4])[0]
        return tuple(self.rng.choice(SIZES) for _ in range(ndim))

    def values(self, shape: tuple[int, ...], pos: bool) -> Any:
        if not shape:
            low = 0.2 if pos else -2.0
            return round(self.rng.uniform(low, 2.0), 4)
        return [self.values(shape[1:], pos) for _ in range(shape[0])]

    def data(self, shape: tuple[int, ...], dtype: str = "float32", pos: bool = False) -> Data:
        return Data(self.values(shape, pos), dtype)

    def leaf(
        self,
        shape: tuple[int, ...] | None = None,
        rg: bool | None = None,
        pos: bool | None = None,
        dtype: str | None = None,
    ) -> Slot:
        """Emit a new leaf tensor and return its slot."""
        shape = self.random_shape() if shape is None else shape
        rg = self.rng.random() < 0.8 if rg is None else rg
        pos = self.rng.random() < 0.35 if pos is None else pos
        dtype = dtype or self.rng.choices(["float32", "float64"], [4, 1])[0]
        slot = Slot(self.name(), shape, dtype, rg=rg, leaf=True, pos=pos)
        ins = Instr("leaf", (slot.name,), (self.data(shape, dtype, pos),), {"requires_grad": rg})
        saved, self.no_grad = self.no_grad, False
        self.emit(ins, [slot])
        self.no_grad = saved
        return slot

    def operand(self, shape: tuple[int, ...], pos: bool, dtype: str | None = None) -> Any:
        """A tensor operand of ``shape``: an existing slot, a new leaf or inline data."""
        match = self.pick(
            lambda s: (
                s.shape == shape
                and s.floating
                and (s.pos or not pos)
                and (dtype is None or s.dtype == dtype)
            )
        )
        roll = self.rng.random()
        if match is not None and roll < 0.4:
            return match
        if roll < 0.8:
            return self.leaf(shape, pos=pos or None, dtype=dtype)
        return self.data(shape, dtype or "float32", pos)
