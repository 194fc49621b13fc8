"""A fuzz program: a library-independent list of instructions, and its source-like listing.

A program is generated once from a seed (``generator.py``) and then interpreted on each
library (``interpreter.py``). It never holds a tensor of either library: tensor operands are
``Ref``s to named slots (``t3``) and literal data is a ``Data`` (nested lists and a dtype
name), so the same program object runs on hookgrad and on torch.

Example::

    >>> prog = Program(seed=1, instrs=[Instr("leaf", ("t0",), (Data([1.0], "float32"),),
    ...                                      {"requires_grad": True})])
    >>> print(prog.listing())
     0  t0 = torch.tensor([1.0], dtype=torch.float32, requires_grad=True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Operators rendered infix in the listing, keyed by their ``operator`` module name.
INFIX = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "matmul": "@"}


@dataclass(frozen=True)
class Ref:
    """A reference to the tensor held in slot ``name`` (``t3``) when the program runs."""

    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Data:
    """Literal tensor data: nested Python lists of numbers and a dtype name (``float32``)."""

    values: Any
    dtype: str

    def __repr__(self) -> str:
        return f"torch.tensor({self.values!r}, dtype=torch.{self.dtype})"


@dataclass(frozen=True)
class DType:
    """A dtype argument (``torch.float64``), by name."""

    name: str

    def __repr__(self) -> str:
        return f"torch.{self.name}"


@dataclass
class Instr:
    """One step of a program.

    ``op`` is the instruction kind: ``leaf``, ``method`` / ``function`` / ``operator`` /
    ``getitem`` (a call on the library; ``name`` says which), ``inplace``, ``setitem``,
    ``retain_grad``, the hook kinds ``hook.tensor``, ``hook.pre``, ``hook.post``,
    ``hook.multi``, ``hook.acc``, and ``backward`` / ``grad``. ``out`` names the slots the
    result is stored in; ``args`` / ``kwargs`` may contain ``Ref``s and ``Data``.
    ``no_grad`` runs the step inside ``torch.no_grad()``.
    """

    op: str
    out: tuple[str, ...] = ()
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    no_grad: bool = False

    def source(self) -> str:
        """The step as a line of Python that would do the same thing on torch."""
        line = _render(self)
        return f"with torch.no_grad(): {line}" if self.no_grad else line


@dataclass
class Program:
    """A generated program: its seed and instructions."""

    seed: int
    instrs: list[Instr]

    def listing(self) -> str:
        """Numbered, source-like lines, one per instruction (the numbers are step indices)."""
        return "\n".join(f"{i:2d}  {ins.source()}" for i, ins in enumerate(self.instrs))


def fmt(value: Any) -> str:
    """A value as it would appear in Python source (slices as ``a:b:c``)."""
    if isinstance(value, slice):
        parts = ["" if v is None else str(v) for v in (value.start, value.stop, value.step)]
        text = ":".join(parts[:2]) + (f":{parts[2]}" if value.step is not None else "")
        return text
    if isinstance(value, tuple) and value and any(isinstance(v, slice) for v in value):
        return ", ".join(fmt(v) for v in value)
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    return repr(value)


def _call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [fmt(a) for a in args] + [f"{k}={fmt(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _lhs(ins: Instr) -> str:
    if not ins.out:
        return ""
    return ", ".join(ins.out) + (" = " if len(ins.out) > 1 or ins.op != "grad" else ", = ")


def _render(ins: Instr) -> str:
    """The source line of one instruction (see ``Instr.source``)."""
    lhs = _lhs(ins)
    a, kw = ins.args, ins.kwargs
    if ins.op == "leaf":
        data = a[0]
        extra = _call((), kw)
        return f"{lhs}torch.tensor({data.values!r}, dtype=torch.{data.dtype}, {extra})"
    if ins.op in ("method", "inplace"):
        return f"{lhs}{fmt(a[0])}.{ins.name}({_call(a[1:], kw)})"
    if ins.op == "function":
        return f"{lhs}torch.{ins.name}({_call(a, kw)})"
    if ins.op == "operator":
        if ins.name == "neg":
            return f"{lhs}-{fmt(a[0])}"
        return f"{lhs}{fmt(a[0])} {INFIX[ins.name]} {fmt(a[1])}"
    if ins.op == "getitem":
        return f"{lhs}{fmt(a[0])}[{fmt(a[1])}]"
    if ins.op == "setitem":
        return f"{fmt(a[0])}[{fmt(a[1])}] = {fmt(a[2])}"
    if ins.op == "retain_grad":
        return f"{fmt(a[0])}.retain_grad()"
    if ins.op == "remove":
        return f"{ins.args[0]}.remove()"
    if ins.op.startswith("hook."):
        return _render_hook(ins)
    if ins.op == "backward":
        return f"{fmt(a[0])}.backward({_call((), kw)})"
    if ins.op == "grad":
        return f"{lhs}torch.autograd.grad({_call(a, kw)})"
    raise ValueError(f"unknown instruction {ins.op!r}")


def _render_hook(ins: Instr) -> str:
    """Hooks are rendered with a helper: ``log_hook("h2", scale=2.0)`` records its arguments
    and, when ``scale`` is set, returns them multiplied by it (``scale="wrong shape"``:
    returns a tensor of another shape, which must raise)."""
    hid, target = ins.out[0], ins.args[0]
    scale = ins.kwargs.get("scale")
    helper = f'log_hook("{hid}"' + (f", scale={scale!r})" if scale else ")")
    if ins.op == "hook.tensor":
        return f"{hid} = {target}.register_hook({helper})"
    if ins.op == "hook.acc":
        return f"{hid} = {target}.register_post_accumulate_grad_hook({helper})"
    if ins.op == "hook.multi":
        tensors = "(" + ", ".join(fmt(t) for t in target) + ",)"
        mode = ins.kwargs["mode"]
        call = f'register_multi_grad_hook({tensors}, {helper}, mode="{mode}")'
        return f"{hid} = torch.autograd.graph.{call}"
    path = "".join(f".next_functions[{i}][0]" for i in ins.kwargs["path"])
    method = "register_prehook" if ins.op == "hook.pre" else "register_hook"
    return f"{hid} = {target}.grad_fn{path}.{method}({helper})"
