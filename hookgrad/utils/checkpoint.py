"""Activation checkpointing: keep fewer tensors for backward, recompute them instead.

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` under saved-tensor hooks whose
pack hook stores a small ``_Holder`` instead of each tensor ``fn``'s ops save; only the
inputs of ``fn`` are kept. The first unpack during a backward pass reruns ``fn`` (with
the forward's random state) under other hooks that fill the holders with the recomputed
tensors, stopping as soon as all are filled. Each recomputed tensor is dropped once it is
unpacked, so a backward pass holds only what it is using.

``use_reentrant=True`` is the older variant, a custom ``Function``: the forward runs under
``no_grad`` and its backward reruns ``fn`` with grad on and calls ``backward`` inside the
backward pass (so it does not work with ``autograd.grad``). Both follow torch 2.13.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from hookgrad import engine
from hookgrad.autograd.function import Function
from hookgrad.autograd.graph import saved_tensors_hooks
from hookgrad.grad_mode import enable_grad, is_grad_enabled, no_grad
from hookgrad.graph.saved import SavedTensor, save_input
from hookgrad.tensor import Tensor
from hookgrad.tensor.backward import backward
from hookgrad.tensor.random import get_rng_state, set_rng_state

__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_early_stop",
]

_REENTRANT_DEFAULT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the "
    "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants."
)
_SEQUENTIAL_REENTRANT_DEFAULT_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
    "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
    "passed. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants."
)


class CheckpointError(RuntimeError):
    """The recomputation in backward did not save what the forward saved."""


def noop_context_fn() -> tuple[Any, Any]:
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """Run ``function(*args, **kwargs)`` keeping only its inputs for backward; the tensors
    its ops would save are recomputed by running it again during backward.

    Args:
        use_reentrant: False (recommended) for the saved-tensor-hooks variant; True for
            the custom-Function variant; None warns and means True, as in torch 2.13.
        preserve_rng_state: (keyword, default True) rerun with the forward's random state,
            so random ops (dropout) recompute the same values.
        context_fn: returns two context managers, entered around the forward and around
            the recomputation (non-reentrant only).
        determinism_check: ``"default"`` checks that recomputed tensors have the saved
            shapes and dtypes; ``"none"`` skips it (non-reentrant only).
        early_stop: stop the recomputation once every needed tensor is recomputed.
        debug: accepted for torch's signature; True is not supported.

    Example::

        def block(x):
            return (x @ w1).relu() @ w2

        y = checkpoint(block, x, use_reentrant=False)   # keeps x, not x @ w1 etc.
        y.sum().backward()
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_DEFAULT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    if debug:
        raise NotImplementedError("checkpoint(debug=True) is not supported by hookgrad")
    return _checkpoint_without_reentrant(
        function, preserve, context_fn, determinism_check, early_stop, args, kwargs
    )


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Run ``functions`` (a sequence of callables, or a module whose ``children()`` are)
    one after the other on ``input``, checkpointing all ``segments`` chunks but the last.

    Only the input of each checkpointed chunk is kept for backward. Takes
    ``preserve_rng_state`` as ``checkpoint`` does. Example::

        layers = [lambda h, w=w: (h @ w).relu() for w in weights]
        out = checkpoint_sequential(layers, 4, x, use_reentrant=False)
    """
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_REENTRANT_DEFAULT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if hasattr(functions, "children"):
        functions = list(functions.children())

    def run_function(start: int, end: int) -> Callable[[Any], Any]:
        def forward(value: Any) -> Any:
            for j in range(start, end + 1):
                value = functions[j](value)
            return value

        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1)(input)


@contextlib.contextmanager
def _forward_rng_state(state: Any) -> Iterator[None]:
    """Run with the random state ``state`` (the forward's), then restore the current one;
    with ``state`` None (``preserve_rng_state=False``) leave the random state alone."""
    if state is None:
        yield
        return
    outer = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(outer)


# ---------------------------------------------------------------- non-reentrant variant

_early_stop_override: bool | None = None


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Within this context, ``checkpoint`` calls (their forward) use ``early_stop=enable``.

    Example::

        with set_checkpoint_early_stop(False):
            out = checkpoint(fn, x, use_reentrant=False)   # recomputes all of fn
    """
    global _early_stop_override
    previous = _early_stop_override
    _early_stop_override = enable
    try:
        yield
    finally:
        _early_stop_override = previous


class _StopRecomputation(Exception):
    """Raised from the recomputation's pack hook once every needed tensor is back."""


class _Handle:
    """The key of one recomputed tensor; dropped (freeing it) once it is unpacked."""


class _Holder:
    """What the graph keeps instead of a tensor: per backward pass, the handle of the
    recomputed tensor (None once unpacked)."""

    def __init__(self) -> None:
        self.handles: dict[int, _Handle | None] = {}


def _metadata(x: Any) -> dict[str, Any]:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS: dict[str, Callable[[Any], Any]] = {
    "default": _metadata,
    "none": lambda _: None,
}

# Ids for unpacks outside any backward pass (each such access recomputes).
_outside_backward_ids = itertools.count(-2, -1)


class _Frame:
    """One checkpointed call: its inputs, how to rerun it, and per backward pass (graph
    task id) the tensors recomputed so far."""

    def __init__(
        self, recompute: Callable[..., None], early_stop: bool, metadata: Callable[[Any], Any]
    ) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata = metadata
        self.saved_args: list[Any] = []
        self.holders: list[weakref.ref[_Holder]] = []
        self.saved_metadata: list[Any] = []
        self.recomputed: defaultdict[int, weakref.WeakKeyDictionary[_Handle, Any]] = defaultdict(
            weakref.WeakKeyDictionary
        )
        self.recompute_count: defaultdict[int, int] = defaultdict(int)
        self.is_recomputed: set[int] = set()
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, args: tuple[Any, ...]) -> None:
        # NOTE: saved before this checkpoint's hooks are on, so an enclosing checkpoint
        # manages them (nested checkpoints recompute from the outside in).
        self.saved_args = [save_input(a) if isinstance(a, Tensor) else a for a in args]

    def inputs(self) -> list[Any]:
        return [a.unpack() if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed(self, gid: int) -> None:
        """The recomputation must have saved as many tensors, with the same metadata."""
        if self.ignore_saved_mismatch:
            return
        if len(self.holders) != self.recompute_count[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {self.recompute_count[gid]}.\n"
            )
        mismatches = ""
        for index, ref in enumerate(self.holders):
            holder = ref()
            if holder is None:
                continue
            handle = holder.handles[gid]
            assert handle is not None  # filled by this recomputation, not unpacked yet
            recomputed = self.metadata(self.recomputed[gid][handle])
            if self.saved_metadata[index] != recomputed:
                mismatches += (
                    f"tensor at position {index}:\n"
                    f"saved metadata: {self.saved_metadata[index]}\n"
                    f"recomputed metadata: {recomputed}\n"
                )
        if mismatches:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{mismatches}.\n"
            )


class _CheckpointHooks(saved_tensors_hooks):
    """The forward's hooks: pack stores a ``_Holder``; unpack recomputes on first use."""

    def __init__(self, frame: _Frame) -> None:
        def pack(x: Any) -> _Holder:
            holder = _Holder()
            frame.holders.append(weakref.ref(holder))
            frame.saved_metadata.append(frame.metadata(x))
            return holder

        def unpack(holder: _Holder) -> Any:
            gid = engine.current_graph_task_id()
            if gid == -1:
                gid = next(_outside_backward_ids)
            if gid not in frame.is_recomputed:
                args = frame.inputs()
                try:
                    with _RecomputationHooks(frame, gid), enable_grad():
                        frame.recompute(*args)
                except _StopRecomputation:
                    pass
                frame.is_recomputed.add(gid)
                frame.check_recomputed(gid)
            handle = holder.handles[gid]
            if handle is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case."
                )
            holder.handles[gid] = None
            return frame.recomputed[gid][handle]

        super().__init__(pack, unpack)


class _RecomputationHooks(saved_tensors_hooks):
    """The recomputation's hooks: pack fills the forward's holders in order."""

    def __init__(self, frame: _Frame, gid: int) -> None:
        def pack(x: Any) -> Any:
            x = x.detach() if x.requires_grad else x
            index = frame.recompute_count[gid]
            frame.recompute_count[gid] += 1
            if index >= len(frame.holders):
                if not frame.forward_completed:
                    # A backward inside the checkpointed forward (without early stop).
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    "than during the original forward pass.\n"
                )
            holder = frame.holders[index]()
            # None: that saved tensor was freed already (a backward inside the forward).
            if holder is not None:
                handle = holder.handles[gid] = _Handle()
                frame.recomputed[gid][handle] = x
            if frame.early_stop and frame.recompute_count[gid] == len(frame.holders):
                raise _StopRecomputation
            return x

        super().__init__(pack, lambda x: x)


def _checkpoint_without_reentrant(
    function: Callable[..., Any],
    preserve_rng_state: bool,
    context_fn: Callable[[], tuple[Any, Any]],
    determinism_check: str,
    early_stop: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got "
            f"{determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():
        return function(*args, **kwargs)
    forward_rng_state = get_rng_state() if preserve_rng_state else None

    def recompute(*inputs: Any) -> None:
        with _forward_rng_state(forward_rng_state), recompute_context:
            function(*inputs, **kwargs)

    if _early_stop_override is not None:
        early_stop = _early_stop_override
    frame = _Frame(recompute, early_stop, _DETERMINISM_CHECKS[determinism_check])
    frame.save_inputs(args)
    with _CheckpointHooks(frame), forward_context:
        output = function(*args, **kwargs)
    frame.forward_completed = True
    return output


# ---------------------------------------------------------------- reentrant variant


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad``; others as is."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for value in inputs:
        if isinstance(value, Tensor):
            detached = value.detach()
            detached.requires_grad = value.requires_grad
            value = detached
        out.append(value)
    return tuple(out)


def check_backward_validity(inputs: Any) -> None:
    """Warn when no tensor of ``inputs`` requires grad (the checkpoint gets no grads)."""
    if not any(value.requires_grad for value in inputs if isinstance(value, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


def _is_checkpoint_valid() -> bool:
    """Whether the running backward pass is a plain ``backward()`` (no ``inputs``, not
    ``autograd.grad``), the only kind the reentrant variant supports."""
    # NOTE: reads the engine's per-thread task stack; ``exec_nodes`` is None exactly for
    # a pass that runs every reachable node.
    tasks = engine._thread.tasks
    return not tasks or tasks[-1].exec_nodes is None


class CheckpointFunction(Function):
    """The reentrant checkpoint (``use_reentrant=True``): forward under ``no_grad``,
    backward reruns the function with grad on and backpropagates through it."""

    @staticmethod
    def forward(ctx: Any, run_function: Any, preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        # Non-tensor inputs stay in ctx; tensors are saved (None placeholders meanwhile).
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for index, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(index)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        state = ctx.fwd_cpu_state if ctx.preserve_rng_state else None
        with _forward_rng_state(state):
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad = [
            (out, grad)
            for out, grad in zip(outputs, grad_outputs)
            if isinstance(out, Tensor) and out.requires_grad
        ]
        if not with_grad:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        backward([out for out, _ in with_grad], [grad for _, grad in with_grad])
        grads = tuple(x.grad if isinstance(x, Tensor) else None for x in detached)
        return (None, None, *grads)
