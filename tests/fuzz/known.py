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
from .program import Instr, Program, Ref


@dataclass(frozen=True)
class Known:
    """A tolerated disagreement: ``name``, why it is tolerated, and which diffs it covers."""

    name: str
    reason: str
    matches: Callable[[Diff, Program], bool]


# -- helpers for matchers: what the program did to the slot a diff is about -------------------

VIEWS = {
    "view",
    "reshape",
    "transpose",
    "t",
    "permute",
    "unsqueeze",
    "squeeze",
    "expand",
    "select",
    "narrow",
    "flatten",
    "detach",
    "split",
    "unbind",
    "chunk",
    "getitem",
}


def slot_of(label: str) -> str:
    """The slot a diff label is about: ``final t3`` -> ``t3``, ``t3.grad`` -> ``t3``."""
    return label.removeprefix("final ").split(".")[0].split("[")[0]


def producer(program: Program, name: str) -> Instr | None:
    """The instruction whose outputs include slot ``name``."""
    for ins in program.instrs:
        if name in ins.out:
            return ins
    return None


def hook_instr(program: Program, label: str) -> Instr | None:
    """The hook registration a hook label (``h3``, ``h3[0][1]``) refers to."""
    return producer(program, label.split("[")[0])


def made_by(program: Program, name: str, names: set[str]) -> bool:
    ins = producer(program, name)
    return ins is not None and ins.name in names


def is_matmul(ins: Instr | None) -> bool:
    return ins is not None and ins.name == "matmul"


def step(program: Program, diff: Diff) -> Instr | None:
    return program.instrs[diff.step] if diff.step < len(program.instrs) else None


def refs(value: object) -> list[str]:
    """Slot names referenced anywhere in an instruction's arguments."""
    if isinstance(value, Ref):
        return [value.name]
    if isinstance(value, (tuple, list)):
        return [name for v in value for name in refs(v)]
    return []


# -- matchers -------------------------------------------------------------------------------


def copy_backwards_name(diff: Diff, program: Program) -> bool:
    return diff.kind == "node" and diff.hookgrad == "torch::autograd::CopyBackwards"


def fused_matmul(diff: Diff, program: Program) -> bool:
    """The node of a matmul that torch builds as a chain (a 1-D or batched operand)."""
    if diff.kind == "next":
        ins = producer(program, slot_of(diff.label))
        return is_matmul(ins) and any(n in str(diff.torch) for n in ("MmBackward0", "Bmm"))
    if diff.kind in ("arity", "shape", "none") and diff.label.startswith("h"):
        hook = hook_instr(program, diff.label)
        if hook is None or hook.op not in ("hook.pre", "hook.post") or hook.kwargs["path"]:
            return False
        return is_matmul(producer(program, hook.args[0].name))
    return False


def fused_indexing(diff: Diff, program: Program) -> bool:
    """The node of ``x[index]`` that torch builds as a chain of per-dim view nodes."""
    ins = producer(program, slot_of(diff.label))
    return diff.kind == "next" and ins is not None and ins.op == "getitem"


def grad_capture_after_hooks(diff: Diff, program: Program) -> bool:
    """autograd.grad's result differs from torch's by a product of the scales of tensor
    hooks registered before (on the input or on an alias of it, e.g. ``x.float()``)."""
    ins = step(program, diff)
    if diff.kind != "values" or ins is None or ins.op != "grad":
        return False
    if not diff.label.startswith("grad results["):
        return False
    scales = [
        h.kwargs["scale"]
        for h in program.instrs[: diff.step]
        if h.op == "hook.tensor" and isinstance(h.kwargs.get("scale"), float)
    ]
    torch_values, hg_values = np.asarray(diff.torch), np.asarray(diff.hookgrad)
    products = {1.0}
    for scale in scales:
        products |= {p * scale for p in products}
    return any(
        p != 1.0 and np.allclose(hg_values, torch_values * p, rtol=1e-4, atol=1e-6)
        for p in products
    )


def saved_not_freed(diff: Diff, program: Program) -> bool:
    """A second backward through max(dim)/min(dim) or an advanced index after the graph was
    freed: torch raises, hookgrad runs it."""
    if diff.kind != "error" or "backward through the graph a second time" not in str(diff.torch):
        return False
    if "graph a second time" in str(diff.hookgrad).split(", ")[0]:
        return False
    return any(
        (ins.name in ("max", "min") and len(ins.out) == 2)
        or (ins.op == "getitem" and "[" in repr(ins.args[1]))
        for ins in program.instrs[: diff.step]
    )


def double_backward_nodes(diff: Diff, program: Program) -> bool:
    """Node names of a graph built by a backward pass with create_graph=True."""
    ins = step(program, diff)
    if ins is None or not ins.kwargs.get("create_graph"):
        return False
    return diff.kind in ("node", "node_name", "next")


def no_grad_view_retain_grad(diff: Diff, program: Program) -> bool:
    ins = step(program, diff)
    return (
        diff.kind == "error"
        and "A view was created in no_grad mode" in str(diff.hookgrad).split(", ")[0]
        and ins is not None
        and ins.op == "retain_grad"
    )


def list_op_grads_for_constants(diff: Diff, program: Program) -> bool:
    """A node hook of cat/stack: torch computes the grad of an input that does not require
    grad too."""
    if diff.kind != "none" or diff.hookgrad is not None or not diff.label.startswith("h"):
        return False
    hook = hook_instr(program, diff.label)
    if hook is None or hook.op not in ("hook.pre", "hook.post"):
        return False
    return made_by(program, hook.args[0].name, {"cat", "stack"})


def write_to_expanded(diff: Diff, program: Program) -> bool:
    ins = step(program, diff)
    messages = ("more than one element of the written-to tensor", "memory is read-only")
    return (
        diff.kind == "error"
        and any(m in str(diff.hookgrad).split(", ")[0] for m in messages)
        and ins is not None
        and (ins.op == "setitem" or ins.name in ("zero_", "copy_"))
    )


def grad_result_inplace(diff: Diff, program: Program) -> bool:
    """An in-place op with a grad-requiring operand on a result of autograd.grad."""
    ins = step(program, diff)
    if diff.kind != "error" or ins is None or ins.op != "inplace":
        return False
    if "A view was created in no_grad mode and is being" not in str(diff.hookgrad):
        return False
    source = producer(program, ins.args[0].name)
    return source is not None and source.op == "grad"


def grad_results_alias(diff: Diff, program: Program) -> bool:
    """The version counter of an autograd.grad result that torch made a view of another."""
    source = producer(program, slot_of(diff.label))
    return diff.kind == "version" and source is not None and source.op == "grad"


def retain_grad_after_regenerated_view(diff: Diff, program: Program) -> bool:
    """``.grad`` of a view whose base was modified in place under no_grad, after
    retain_grad() was called on it again."""
    name = slot_of(diff.label)
    calls = [i for i in program.instrs[: diff.step] if i.op == "retain_grad"]
    again = sum(1 for i in calls if i.args[0].name == name) >= 2
    inplace_no_grad = any(
        i.no_grad and i.op in ("inplace", "setitem") for i in program.instrs[: diff.step]
    )
    return (
        diff.kind == "values"
        and diff.label.endswith(".grad")
        and again
        and inplace_no_grad
        and made_by(program, name, VIEWS)
    )


def multi_hook_without_grads(diff: Diff, program: Program) -> bool:
    """hookgrad fires a multi-grad hook (mode "all") in a pass where torch does not."""
    if diff.kind != "order" or not str(diff.hookgrad).startswith(f"[{diff.step}:h"):
        return False
    hid = str(diff.hookgrad)[1:].split(",")[0].split(":")[1]
    hook = producer(program, hid)
    return hook is not None and hook.op == "hook.multi" and hid not in str(diff.torch)


def copy_from_itself(diff: Diff, program: Program) -> bool:
    ins = step(program, diff)
    return (
        diff.kind == "next"
        and ins is not None
        and ins.name == "copy_"
        and ins.args[0] == ins.args[1]
        and "CopySlices" in str(diff.torch)
    )


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
        "copy-backwards-class-name",
        "BUG, not fixed: the node of copy_() has type(fn).__name__ == "
        "'torch::autograd::CopyBackwards' (its name() string); torch's class is CopyBackwards. "
        "Part of issue 8's renaming of node classes to torch's.",
        copy_backwards_name,
    ),
    Known(
        "fused-matmul-node",
        "BUG, not fixed: matmul with a 1-D or 3-D operand is one hookgrad node named as torch's "
        "outer node (SqueezeBackward4, UnsafeViewBackward0, ...) with both inputs as edges; "
        "torch builds a chain ending in MmBackward0/BmmBackward0, so next_functions and the "
        "grads a node hook on it sees differ.",
        fused_matmul,
    ),
    Known(
        "fused-indexing-node",
        "BUG, not fixed: x[i, a:b, None, [..]] is one hookgrad node; torch applies one view "
        "op per index entry (SliceBackward0, SelectBackward0, UnsqueezeBackward0, "
        "IndexBackward0) so next_functions differ.",
        fused_indexing,
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
        "saved-not-freed",
        "BUG, not fixed: MaxBackward0/MinBackward0 (max(dim)) and IndexBackward0 (advanced "
        "index) keep their saved tensors after a backward/grad without retain_graph, so a "
        "second backward through them runs instead of raising RuntimeError.",
        saved_not_freed,
    ),
    Known(
        "double-backward-node-names",
        "BUG, not fixed: graphs built under create_graph=True use other ops than torch's "
        "derivative formulas (IndexPutBackward0 for SelectBackwardBackward0, "
        "SliceScatterBackward0 for SliceBackwardBackward0, MulBackward0 for "
        "SoftmaxBackwardDataBackward0, UnbindBackward0 for stack's SelectBackward0, ...).",
        double_backward_nodes,
    ),
    Known(
        "no-grad-view-retain-grad",
        "BUG, not fixed: retain_grad() on a view made under no_grad whose base was then "
        "modified in place raises in hookgrad ('A view was created in no_grad mode...'); torch "
        "accepts it (it raises that error only when grad_fn is read).",
        no_grad_view_retain_grad,
    ),
    Known(
        "list-op-grads-for-constants",
        "BUG, not fixed: CatBackward0/StackBackward0 in torch compute the grads of all inputs "
        "when any is needed, so node hooks see a tensor for an input that does not require "
        "grad; hookgrad passes None there.",
        list_op_grads_for_constants,
    ),
    Known(
        "write-to-expanded",
        "BUG, not fixed: zero_(), copy_() and index assignment into an expanded tensor raise "
        "in hookgrad ('unsupported operation: more than one element...', or 'the tensor's "
        "memory is read-only' as np.broadcast_to arrays are); torch allows them (it checks "
        "internal overlap for other in-place ops only).",
        write_to_expanded,
    ),
    Known(
        "grad-result-is-a-no-grad-view",
        "BUG, not fixed: some autograd.grad results are views made under no_grad inside the "
        "backward formulas (e.g. an expand), so x.add_(y) with y requiring grad on such a "
        "result raises 'A view was created in no_grad mode...'; torch's results are plain.",
        grad_result_inplace,
    ),
    Known(
        "grad-results-alias",
        "NOT A BUG (torch internals): torch's autograd.grad may return one result as a view of "
        "another (SumBackward0 expands the grad), sharing its version counter; an in-place "
        "op on one then bumps both. hookgrad's results do not alias. Values still agree.",
        grad_results_alias,
    ),
    Known(
        "retain-grad-after-regenerated-view",
        "BUG, not fixed: for a view whose base was modified in place under no_grad (its "
        "grad_fn becomes AsStridedBackward0), calling retain_grad() again makes hookgrad "
        "overwrite .grad on the next backward; torch keeps accumulating into it.",
        retain_grad_after_regenerated_view,
    ),
    Known(
        "multi-hook-without-grads",
        "BUG, not fixed: a register_multi_grad_hook(mode='all') hook fires in hookgrad during "
        "an autograd.grad call in which torch does not fire it (none of its tensors is "
        "reached; e.g. an unused input with allow_unused=True).",
        multi_hook_without_grads,
    ),
    Known(
        "copy-from-itself",
        "BUG, not fixed: v.copy_(v) on a view: torch rebases the view onto its base's "
        "CopySlices (next_functions[0] is CopySlices); hookgrad's view node keeps its old "
        "input.",
        copy_from_itself,
    ),
]


def match(diff: Diff, program: Program) -> Known | None:
    """The known entry covering ``diff`` (a diff of ``program``), or None."""
    for known in KNOWN:
        if known.matches(diff, program):
            return known
    return None
