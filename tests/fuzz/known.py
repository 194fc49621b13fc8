"""Known disagreements between hookgrad and torch that the fuzz test tolerates.

Each ``Known`` entry has a precise matcher on one ``Diff`` (see ``compare.py``; the
matcher also sees the program) and a written reason: a real bug not yet fixed (the entry
says so and should be deleted when it is fixed) or an intentional difference documented in
SPEC.md section 2. A program passes when its first diff, the root cause, is matched by an
entry here: the diffs after it are usually its consequences (a wrong gradient makes every
later value computed from it wrong), and are reported but not matched.

Example::

    >>> from tests.fuzz.compare import Diff
    >>> from tests.fuzz.program import Program
    >>> match(Diff("values", 0, "t0", [1.0], [2.0]), Program(0, [])) is None
    True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .compare import Diff
from .program import Instr, Program


@dataclass(frozen=True)
class Known:
    """A tolerated disagreement: ``name``, why it is tolerated, and which diffs it covers."""

    name: str
    reason: str
    matches: Callable[[Diff, Program], bool]


# -- helpers for matchers: what the program did to the slot a diff is about -------------------


def slot_of(label: str) -> str:
    """The slot a diff label is about: ``final t3`` -> ``t3``, ``t3.grad`` -> ``t3``."""
    return label.removeprefix("final ").split(".")[0].split("[")[0]


def producer(program: Program, name: str) -> Instr | None:
    """The instruction whose outputs include slot ``name``."""
    for ins in program.instrs:
        if name in ins.out:
            return ins
    return None


def step(program: Program, diff: Diff) -> Instr | None:
    return program.instrs[diff.step] if diff.step < len(program.instrs) else None


# -- matchers -------------------------------------------------------------------------------


def grad_capture_after_hooks(diff: Diff, program: Program) -> bool:
    """autograd.grad's result differs from torch's by a product of the scales of tensor
    hooks registered before (on the input or on an alias of it, e.g. ``x.float()``); under
    create_graph its node is then the last hook's ``grad * scale`` (``MulBackward0``, whose
    second edge, the number, is None)."""
    ins = step(program, diff)
    if ins is None or ins.op != "grad" or not diff.label.startswith("grad results["):
        return False
    scales = [
        h.kwargs["scale"]
        for h in program.instrs[: diff.step]
        if h.op == "hook.tensor" and isinstance(h.kwargs.get("scale"), float)
    ]
    if diff.kind in ("node", "node_name", "next"):
        made = diff.hookgrad
        by_hook = made == "MulBackward0" or (
            isinstance(made, tuple) and len(made) == 2 and made[1] is None
        )
        return bool(scales) and bool(ins.kwargs.get("create_graph")) and by_hook
    if diff.kind != "values":
        return False
    torch_values, hg_values = np.asarray(diff.torch), np.asarray(diff.hookgrad)
    products = {1.0}
    for scale in scales:
        products |= {p * scale for p in products}
    return any(
        p != 1.0 and np.allclose(hg_values, torch_values * p, rtol=1e-4, atol=1e-6)
        for p in products
    )


def grad_results_alias(diff: Diff, program: Program) -> bool:
    """The version counter of an autograd.grad result that torch made a view of another."""
    source = producer(program, slot_of(diff.label))
    return diff.kind == "version" and source is not None and source.op == "grad"


def zero_tensor_grad(diff: Diff, program: Program) -> bool:
    """torch refuses to accumulate into a ``.grad`` that is its internal ZeroTensor."""
    return diff.kind == "error" and "ZeroTensors are immutable" in str(diff.torch)


def periodic_of_large(diff: Diff, program: Program) -> bool:
    ins = step(program, diff)
    return diff.kind == "values" and ins is not None and ins.name in ("sin", "cos")


KNOWN: list[Known] = [
    Known(
        "float32-periodic-of-large",
        "NOT A BUG (conditioning): float32 sin/cos of large arguments (a pow/reciprocal "
        "chain can reach |x| ~ 1e3) differ by more than the tolerance between NumPy's and "
        "torch's kernels; everything computed from them differs too.",
        periodic_of_large,
    ),
    Known(
        "grad-capture-vs-tensor-hooks",
        "BUG, not fixed: autograd.grad(outputs, [x, y]) where x's node must run to reach y: "
        "torch captures x's grad BEFORE x's tensor hooks (engine.cpp evaluate_function calls "
        "tensor pre-hooks before capture only when the node is not needed); hookgrad "
        "captures after them (returns the hook's result), as SPEC section 3 words it.",
        grad_capture_after_hooks,
    ),
    Known(
        "grad-results-alias",
        "NOT A BUG (torch internals): torch's autograd.grad may return one result as a view of "
        "another (SumBackward0 expands the grad), sharing its version counter; an in-place "
        "op on one then bumps both. hookgrad's results do not alias. Values still agree.",
        grad_results_alias,
    ),
    Known(
        "torch-zero-tensor-grad",
        "NOT A BUG (torch internals): the double backward of abs (sgn_backward of a real "
        "input) gives torch's internal ZeroTensor, which AccumulateGrad keeps as a leaf's "
        ".grad; a later backward that accumulates into that .grad fails ('ZeroTensors are "
        "immutable', seed 11440). hookgrad's .grad is a tensor of zeros and accumulates; "
        "the values agree until then.",
        zero_tensor_grad,
    ),
]


def match(diff: Diff, program: Program) -> Known | None:
    """The known entry covering ``diff`` (a diff of ``program``), or None."""
    for known in KNOWN:
        if known.matches(diff, program):
            return known
    return None
