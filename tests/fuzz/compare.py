"""Diffs the records of one program run on torch and on hookgrad into ``Diff``s and a report.

The records are walked in step: the same entry must come at the same position (the same
tensor created, the same hook fired, the same error raised). The first place where they
stop lining up is reported as one ``order`` (or ``error``) diff and the walk ends there;
entries that line up are compared field by field (shape, dtype, values within a dtype
tolerance, requires_grad, is_leaf, node class and ``name()``, version, None positions).

Example::

    >>> import hookgrad, torch
    >>> from tests.fuzz.generator import generate
    >>> from tests.fuzz.interpreter import run
    >>> program = generate(0)
    >>> diffs = compare(run(program, torch), run(program, hookgrad), program)
    >>> isinstance(diffs, list)
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .interpreter import Entry, Raised, TensorInfo
from .program import Data, Program

FIELDS = ("shape", "dtype", "requires_grad", "is_leaf", "node", "node_name", "next", "version")
TOLERANCE = {"float64": (1e-7, 1e-9), "float32": (2e-4, 1e-5)}


@dataclass
class Diff:
    """One disagreement: its kind (``error``, ``order``, ``values``, ``node``, a field name,
    ``arity``, ``none``, ``value``), where (step, label, e.g. ``t3.grad`` or ``h2[1]``), the
    step's source line, and what each library gave."""

    kind: str
    step: int
    label: str
    torch: Any
    hookgrad: Any
    source: str = ""

    def line(self) -> str:
        where = f"step {self.step} `{self.source}`" if self.source else f"step {self.step}"
        return f"{where}: {self.label} {self.kind}: torch {self.torch}, hookgrad {self.hookgrad}"


def compare(torch_record: list[Entry], hg_record: list[Entry], program: Program) -> list[Diff]:
    """All disagreements between the two records of ``program``."""
    diffs: list[Diff] = []
    strict = all(d.dtype == "float64" for d in data_of(program))
    for position, (t, h) in enumerate(zip(torch_record, hg_record)):
        if (t.step, t.label) != (h.step, h.label):
            diffs.append(misaligned(torch_record[position:], hg_record[position:]))
            break
        if isinstance(t.value, Raised) or isinstance(h.value, Raised):
            if t.value.type != h.value.type:
                diffs.append(Diff("error", t.step, "error", t.value, h.value))
            continue
        diffs += compare_values(t.step, t.label, t.value, h.value, strict)
    else:
        if len(torch_record) != len(hg_record):
            shorter = min(len(torch_record), len(hg_record))
            diffs.append(misaligned(torch_record[shorter:], hg_record[shorter:]))
    for diff in diffs:
        if diff.step < len(program.instrs):
            diff.source = program.instrs[diff.step].source()
    return diffs


def describe(entries: list[Entry], count: int = 4) -> str:
    """The next few entries of a record, as ``step:label`` (errors with their type)."""
    parts = []
    for entry in entries[:count]:
        if isinstance(entry.value, Raised):
            parts.append(f"{entry.step}:{entry.value.type}({entry.value.message[:80]!r})")
        else:
            parts.append(f"{entry.step}:{entry.label}")
    return "[" + ", ".join(parts) + (", ...]" if len(entries) > count else "]")


def misaligned(torch_rest: list[Entry], hg_rest: list[Entry]) -> Diff:
    """The records stop lining up: an error on one side only, or a different order."""
    first = min(torch_rest[:1] + hg_rest[:1], key=lambda e: e.step)
    raised = [e for e in torch_rest[:1] + hg_rest[:1] if isinstance(e.value, Raised)]
    kind = "error" if raised else "order"
    return Diff(kind, first.step, "sequence", describe(torch_rest), describe(hg_rest))


def data_of(program: Program) -> list[Data]:
    """Every literal tensor of ``program`` (leaves and inline operands)."""
    found: list[Data] = []

    def walk(value: Any) -> None:
        if isinstance(value, Data):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            walk(list(value.values()))

    for ins in program.instrs:
        walk(ins.args)
        walk(ins.kwargs)
    return found


def compare_values(step: int, label: str, a: Any, b: Any, strict: bool) -> list[Diff]:
    """Disagreements between two recorded values (torch's ``a``, hookgrad's ``b``). Float64
    values get float64's tolerance only when ``strict`` (the program has no float32 data:
    otherwise a float64 value may have gone through float32 arithmetic, whose rounding
    depends on the summation order)."""
    if isinstance(a, TensorInfo) and isinstance(b, TensorInfo):
        return compare_tensors(step, label, a, b, strict)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return [Diff("arity", step, label, shapes(a), shapes(b))]
        diffs = []
        for i, (x, y) in enumerate(zip(a, b)):
            diffs += compare_values(step, f"{label}[{i}]", x, y, strict)
        return diffs
    if a is None or b is None or type(a) is not type(b):
        if a is None and b is None:
            return []
        return [Diff("none" if a is None or b is None else "type", step, label, short(a), short(b))]
    return [] if a == b else [Diff("value", step, label, a, b)]


def compare_tensors(
    step: int, label: str, a: TensorInfo, b: TensorInfo, strict: bool
) -> list[Diff]:
    diffs = []
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            diffs.append(Diff(name, step, label, x, y))
    dtype = a.dtype if strict else "float32"
    if a.shape == b.shape and not close(a.values, b.values, dtype):
        diffs.append(Diff("values", step, label, a.values.tolist(), b.values.tolist()))
    return diffs


def close(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    """Equal within the dtype's tolerance, relative to the largest magnitude (NaN == NaN)."""
    if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    rtol, atol = TOLERANCE.get(dtype, TOLERANCE["float32"])
    a, b = a.astype(np.float64), b.astype(np.float64)
    finite = np.isfinite(a)
    scale = float(np.max(np.abs(a[finite]), initial=1.0))
    return bool(np.allclose(b, a, rtol=rtol, atol=atol * scale, equal_nan=True))


def shapes(value: Any) -> Any:
    """A value with tensors shown as their shape (for arity diffs)."""
    if isinstance(value, tuple):
        return tuple(shapes(v) for v in value)
    return short(value)


def short(value: Any) -> Any:
    if isinstance(value, TensorInfo):
        return f"tensor{list(value.shape)}"
    return value


def report(program: Program, diffs: list[Diff], known: list[str] | None = None) -> str:
    """A readable report of one program's disagreements, with its listing to reproduce it.
    ``known`` gives, per diff, the name of the known entry that matches it (or "")."""
    known = known or [""] * len(diffs)
    lines = [f"seed {program.seed}: {len(diffs)} disagreement(s)"]
    for diff, name in zip(diffs, known):
        lines.append("  " + diff.line() + (f"  [known: {name}]" if name else ""))
    lines.append("  program:")
    lines += ["    " + line for line in program.listing().splitlines()]
    return "\n".join(lines)
