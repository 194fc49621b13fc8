"""Runs a fuzz program on one library (hookgrad or torch) and returns a comparable record.

The same code runs both libraries: the module is passed in (``run(program, torch)``).
The record is a flat list of ``Entry``s in the order things happened: each step's outputs
as they were created, every hook call as it fired (with its arguments), the gradients after
each backward pass, an error if a step raised (the program then stops), and a final
snapshot of every slot. Tensors are recorded as ``TensorInfo`` (NumPy values plus their
autograd state), so records of the two libraries can be diffed (``compare.py``).

Example::

    >>> import torch
    >>> from tests.fuzz.generator import generate
    >>> record = run(generate(0), torch)
    >>> record[0].label
    't0'
"""

from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .program import Data, DType, Instr, Program, Ref


@dataclass
class TensorInfo:
    """What is compared of a tensor: value, dtype, shape and autograd state."""

    shape: tuple[int, ...]
    dtype: str
    values: np.ndarray
    requires_grad: bool
    is_leaf: bool
    node: str | None  # type(t.grad_fn).__name__
    node_name: str | None  # t.grad_fn.name()
    next: tuple[str | None, ...] | None  # type(f).__name__ of t.grad_fn.next_functions
    version: int | None = None


@dataclass
class Entry:
    """One recorded fact: the step it happened in, what it is (``label``) and its value."""

    step: int
    label: str
    value: Any


@dataclass(frozen=True)
class Raised:
    """A step raised: the exception's type name and the first line of its message."""

    type: str
    message: str


class Skipped(Exception):
    """A step used a slot holding None (e.g. an unused input's grad); it is not run."""


def guarded(read: Any) -> Any:
    """``read()``, or the type name of the error it raised in angle brackets (torch raises
    on reading ``grad_fn`` or ``is_leaf`` of a no_grad view whose base was modified in
    place; the error is what is compared then)."""
    try:
        return read()
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return f"<{type(error).__name__}>"


def info(t: Any, version: int | None = None) -> Any:
    """A tensor (or a tuple of them, None, or a Python value) as a comparable value;
    ``version`` is recorded as given (see ``_Run.version``)."""
    if t is None or isinstance(t, (bool, int, float, str)):
        return t
    if isinstance(t, (tuple, list)):
        return tuple(info(v) for v in t)
    fn = guarded(lambda: t.grad_fn)
    if fn is None or isinstance(fn, str):
        node = node_name = fn
        edges = None
    else:
        node, node_name = type(fn).__name__, guarded(fn.name)
        edges = tuple(None if f is None else type(f).__name__ for f, _ in fn.next_functions)
    # NOTE: force=True: torch's ``.grad`` may be its internal ZeroTensor (abs's double
    # backward gets one from ``sgn_backward`` of a real input), which numpy() refuses.
    return TensorInfo(
        shape=tuple(t.shape),
        dtype=str(t.dtype).rsplit(".", 1)[-1],
        values=np.array(t.detach().numpy(force=True), copy=True),
        requires_grad=guarded(lambda: bool(t.requires_grad)),
        is_leaf=guarded(lambda: bool(t.is_leaf)),
        node=node,
        node_name=node_name,
        next=edges,
        version=version,
    )


def run(program: Program, lib: ModuleType) -> list[Entry]:
    """Run ``program`` on ``lib`` (``hookgrad`` or ``torch``); return its record."""
    return _Run(program, lib).execute()


class _Run:
    """The state of one run: slots, the record, and the step being executed."""

    def __init__(self, program: Program, lib: ModuleType) -> None:
        self.program = program
        self.lib = lib
        self.slots: dict[str, Any] = {}
        self.handles: dict[str, Any] = {}  # hook name -> its RemovableHandle
        self.versions: dict[int, int] = {}  # id(tensor) -> its version when first stored
        self.record: list[Entry] = []
        self.step = 0

    def execute(self) -> list[Entry]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for index, ins in enumerate(self.program.instrs):
                self.step = index
                try:
                    self.run_step(ins)
                except Skipped:
                    self.add("skipped", None)
                except Exception as error:  # noqa: BLE001 - every error is data here
                    message = str(error).strip().splitlines()
                    self.add("error", Raised(type(error).__name__, message[0] if message else ""))
                    break
            self.snapshot()
        return self.record

    def add(self, label: str, value: Any) -> None:
        self.record.append(Entry(self.step, label, value))

    # -- operands -------------------------------------------------------------------------

    def value(self, arg: Any) -> Any:
        """An instruction argument with its ``Ref``s and ``Data`` made into tensors."""
        if isinstance(arg, Ref):
            held = self.slots[arg.name]
            if held is None:
                raise Skipped(arg.name)
            return held
        if isinstance(arg, Data):
            return self.lib.tensor(arg.values, dtype=getattr(self.lib, arg.dtype))
        if isinstance(arg, DType):
            return getattr(self.lib, arg.name)
        if isinstance(arg, tuple):
            return tuple(self.value(a) for a in arg)
        if isinstance(arg, list):
            return [self.value(a) for a in arg]
        if isinstance(arg, dict):
            return {k: self.value(v) for k, v in arg.items()}
        return arg

    def store(self, ins: Instr, result: Any) -> None:
        """Put a step's result into its output slots and record each of them."""
        results = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(results) != len(ins.out):
            raise AssertionError(f"{len(results)} results for {len(ins.out)} outputs")
        for name, tensor in zip(ins.out, results):
            self.slots[name] = tensor
            self.versions.setdefault(id(tensor), tensor._version)
            self.add(name, info(tensor))

    def version(self, t: Any) -> int:
        """How many times ``t`` was modified in place since the program made it. (The
        absolute counter is not compared: torch's kernels and engine bump it internally,
        e.g. for a vector-matrix matmul result or a gradient buffer.)"""
        return t._version - self.versions.get(id(t), 0)

    # -- steps ----------------------------------------------------------------------------

    def run_step(self, ins: Instr) -> None:
        handler = getattr(self, "do_" + ins.op.replace(".", "_"))
        if ins.no_grad:
            with self.lib.no_grad():
                handler(ins)
        else:
            handler(ins)

    def do_leaf(self, ins: Instr) -> None:
        data = ins.args[0]
        dtype = getattr(self.lib, data.dtype)
        self.store(ins, self.lib.tensor(data.values, dtype=dtype, **ins.kwargs))

    def do_method(self, ins: Instr) -> None:
        target, *rest = self.value(ins.args)
        self.store(ins, getattr(target, ins.name)(*rest, **self.value(ins.kwargs)))

    def do_function(self, ins: Instr) -> None:
        fn: Any = self.lib
        for part in ins.name.split("."):
            fn = getattr(fn, part)
        self.store(ins, fn(*self.value(ins.args), **self.value(ins.kwargs)))

    def do_operator(self, ins: Instr) -> None:
        self.store(ins, getattr(operator, ins.name)(*self.value(ins.args)))

    def do_getitem(self, ins: Instr) -> None:
        self.store(ins, operator.getitem(*self.value(ins.args)))

    def do_inplace(self, ins: Instr) -> None:
        target, *rest = self.value(ins.args)
        result = getattr(target, ins.name)(*rest, **self.value(ins.kwargs))
        self.add("returns self", result is target)
        self.add(ins.args[0].name, info(target, self.version(target)))

    def do_setitem(self, ins: Instr) -> None:
        target, index, source = self.value(ins.args)
        target[index] = source
        self.add(ins.args[0].name, info(target, self.version(target)))

    def do_retain_grad(self, ins: Instr) -> None:
        self.value(ins.args[0]).retain_grad()

    def do_backward(self, ins: Instr) -> None:
        root = self.value(ins.args[0])
        root.backward(**self.value(ins.kwargs))
        self.record_grads()

    def do_grad(self, ins: Instr) -> None:
        grads = self.lib.autograd.grad(*self.value(ins.args), **self.value(ins.kwargs))
        self.add("grad results", info(grads))
        for name, grad in zip(ins.out, grads):
            self.slots[name] = grad
            if grad is not None:
                self.versions.setdefault(id(grad), grad._version)
        self.record_grads()

    def record_grads(self) -> None:
        """``.grad`` of every slot, after a backward pass (all of them, so that the records
        stay aligned when the libraries disagree on which tensors require grad)."""
        for name, t in self.slots.items():
            if t is not None:
                self.add(f"{name}.grad", info(t.grad))

    def snapshot(self) -> None:
        """Every slot at the end of the program, version counters included."""
        self.step = len(self.program.instrs)
        for name, t in self.slots.items():
            if t is not None:
                self.add(f"final {name}", info(t, self.version(t)))

    # -- hooks ----------------------------------------------------------------------------

    def logger(self, hid: str, scale: float | None, returns: str) -> Any:
        """A hook that records its arguments under ``hid`` and, with ``scale``, returns
        them scaled. ``returns`` says which argument is returned: ``grad`` (a tensor hook),
        ``tuple`` (the first argument, a tuple of grads with None kept), or ``none``."""

        def changed(grad: Any) -> Any:
            if grad is None:
                return None
            if scale == "wrong shape":
                return grad.sum() if grad.dim() else grad.unsqueeze(0)
            return grad * scale

        def hook(*args: Any) -> Any:
            self.add(hid, info(args[0] if len(args) == 1 else args))
            if scale is None or returns == "none":
                return None
            if returns == "grad":
                return changed(args[0])
            return tuple(changed(g) for g in args[0])

        return hook

    def node(self, ins: Instr) -> Any:
        fn = self.value(ins.args[0]).grad_fn
        for index in ins.kwargs["path"]:
            fn = fn.next_functions[index][0]
        return fn

    def do_hook_tensor(self, ins: Instr) -> None:
        hook = self.logger(ins.out[0], ins.kwargs.get("scale"), "grad")
        tensor = self.value(ins.args[0])
        # NOTE: torch 2.13 segfaults in register_hook on a view whose base was modified in
        # place since the view was made, unless the view's grad_fn was read first (which
        # rebuilds it, as any read would). Reading it changes nothing else.
        guarded(lambda: tensor.grad_fn)
        self.handles[ins.out[0]] = tensor.register_hook(hook)

    def do_hook_acc(self, ins: Instr) -> None:
        def hook(tensor: Any) -> None:
            self.add(ins.out[0], info(tensor.grad))

        tensor = self.value(ins.args[0])
        self.handles[ins.out[0]] = tensor.register_post_accumulate_grad_hook(hook)

    def do_hook_pre(self, ins: Instr) -> None:
        hook = self.logger(ins.out[0], ins.kwargs.get("scale"), "tuple")
        self.handles[ins.out[0]] = self.node(ins).register_prehook(hook)

    def do_hook_post(self, ins: Instr) -> None:
        hook = self.logger(ins.out[0], ins.kwargs.get("scale"), "tuple")
        self.handles[ins.out[0]] = self.node(ins).register_hook(hook)

    def do_hook_multi(self, ins: Instr) -> None:
        tensors = self.value(ins.args[0])
        for tensor in tensors:
            guarded(lambda t=tensor: t.grad_fn)  # NOTE: torch's segfault, see do_hook_tensor
        hook = self.logger(ins.out[0], None, "none")
        mode = ins.kwargs["mode"]
        graph = self.lib.autograd.graph
        self.handles[ins.out[0]] = graph.register_multi_grad_hook(tensors, hook, mode=mode)

    def do_remove(self, ins: Instr) -> None:
        self.handles[ins.args[0]].remove()
