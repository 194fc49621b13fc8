"""Saved tensors: the values an operation keeps for its backward pass, and their hooks.

Every op and every custom ``Function`` saves through this module: ``save_input`` for a
tensor that is not an output of the saving node, ``save_output`` for one that is, and
``save_constant`` for a non-tensor value. A ``SavedTensor`` records the tensor's version
when it is saved and refuses to unpack it once an in-place change bumped that version.

Pack/unpack hooks replace the stored tensor by whatever ``pack_hook(tensor)`` returns and
rebuild it with ``unpack_hook(packed)`` at each access. They come from the innermost
``saved_tensors_hooks`` context of the thread (the stack lives here; the context managers
in ``hookgrad.autograd.graph``) or from ``SavedTensor.register_hooks`` after the fact.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from hookgrad import grad_mode
from hookgrad.graph import anomaly, history
from hookgrad.hooks import call_hook

INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make "
    "a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` "
    "instead of `torch.inference_mode()`."
)

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
    "you need to backward through the graph a second time or if you need to access saved "
    "tensors after calling backward."
)

DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)

REGISTER_FREED_MESSAGE = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward."
)

PACK_INPLACE_MESSAGE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input "
    "to pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)

_VERSION_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
_VERSION_HINT_ANOMALY = (
    "Hint: the backtrace further above shows the operation that failed to compute its "
    "gradient. The variable in question was changed in there or anywhere later. Good luck!"
)

Hook = Callable[[Any], Any]


# ------------------------------------------------------------------ default hooks stack


class _HooksState(threading.local):
    # The active ``(pack_hook, unpack_hook)`` pairs, innermost last (a tuple: pushing and
    # popping replace it, so a reader never sees it change).
    stack: tuple[tuple[Hook, Hook], ...] = ()
    # Set by ``disable_saved_tensors_hooks``: the error raised when hooks would be used.
    disabled_message: str | None = None


hooks_state = _HooksState()
# How many hook pairs are pushed, in all threads: while it is 0, saving skips the (slower)
# thread-local lookup.
_pushed = 0
_pushed_lock = threading.Lock()


def push_default_hooks(pack_hook: Hook, unpack_hook: Hook) -> None:
    """Make ``(pack_hook, unpack_hook)`` the innermost default hooks of this thread."""
    global _pushed
    if not callable(pack_hook) or not callable(unpack_hook):
        raise TypeError(
            "_push_saved_tensors_default_hooks(): incompatible function arguments. The "
            "following argument types are supported:\n"
            "    1. (arg0: collections.abc.Callable, arg1: collections.abc.Callable) -> None"
            f"\n\nInvoked with: {pack_hook!r}, {unpack_hook!r}"
        )
    if hooks_state.disabled_message is not None:
        raise RuntimeError(hooks_state.disabled_message)
    hooks_state.stack = hooks_state.stack + ((pack_hook, unpack_hook),)
    with _pushed_lock:
        _pushed += 1


def pop_default_hooks() -> None:
    """Remove the innermost default hooks of this thread."""
    global _pushed
    hooks_state.stack = hooks_state.stack[:-1]
    with _pushed_lock:
        _pushed -= 1


def _innermost_hooks() -> tuple[Hook, Hook]:
    """The innermost default hooks (the stack is not empty); an error while disabled."""
    if hooks_state.disabled_message is not None:
        raise RuntimeError(hooks_state.disabled_message)
    return hooks_state.stack[-1]


# ------------------------------------------------------------------ saving


def save_input(value: Any) -> SavedTensor:
    """Save ``value``, a tensor that is not an output of the saving node.

    Without hooks the tensor itself is kept (``grad_fn._saved_self is x``); with default
    hooks active, ``pack_hook(value)`` runs now and only its result is kept.
    """
    saved = _new(SavedTensor)
    if _pushed and hooks_state.stack:
        saved._pack(_innermost_hooks(), value, value)
        return saved
    saved._value = value
    counter = value._version_counter
    if counter is not None and counter.value:
        saved._saved_version = counter.value
    return saved


def save_output(output: Any, output_nr: int) -> SavedTensor:
    """Save ``output``, output ``output_nr`` of the saving node.

    It is kept as a detached alias (sharing data and version counter): keeping the output
    itself would make a cycle output -> node -> output. Unpacking re-attaches it.
    """
    saved = _new(SavedTensor)
    saved._output_nr = output_nr
    counter = history.version_counter(output)
    if _pushed and hooks_state.stack:
        saved._pack(_innermost_hooks(), output, output)
        return saved
    # NOTE: op outputs are plain tensors: a bare copy of the object is the cheapest alias.
    alias = _new(type(output))
    alias._data = output._data
    saved._value = history.share_version(alias, output)
    if counter.value:
        saved._saved_version = counter.value
    return saved


def reattach_outputs(node: Any, grad_fn: Any) -> None:
    """After ``node``'s in-place op on a view moved the view onto ``grad_fn`` (regenerated
    on its base's ``CopySlices``), the outputs ``node`` saved unpack as outputs of
    ``grad_fn`` while it lives: torch's ``is_inplace_on_view`` saved variables."""
    ref = weakref.ref(grad_fn)
    for saved in getattr(node, "_saved", ()):
        if saved._output_nr is not None:
            saved._view_grad_fn = ref


def save_constant(value: Any) -> SavedTensor:
    """Save a non-tensor value (a Python number), or None for a value an op does not
    need to save this time: no version, never packed. Every empty slot is one shared
    object (it is never freed or changed), so a node allocates nothing for it."""
    if value is None:
        return _EMPTY_SLOT
    saved = _new(_SavedConstant)
    saved._value = value
    return saved


_new = object.__new__


class SavedTensor:
    """One value saved for backward: ``grad_fn._raw_saved_<name>`` returns it.

    ``grad_fn._saved_<name>`` unpacks it: the tensor saved, checked against in-place
    changes since it was saved; an output of the node comes back re-attached to the
    node (equal to, but not, the output itself). After a backward pass without
    ``retain_graph`` it is freed, and unpacking raises an error.
    """

    # NOTE: class-level defaults keep saving (once per op that saves) cheap: an instance
    # stores only what differs from them.
    _value: Any = None  # None once packed by hooks or freed
    _saved_version = 0
    _output_nr: int | None = None  # an output of the saving node: its index
    _view_grad_fn: Any = None  # see ``reattach_outputs``: a weak reference
    _freed = False
    # With hooks: the packed object, the unpack hook, and how to re-attach an input.
    _packed: Any = None
    _unpack_hook: Hook | None = None
    _grad_fn: Any = None
    _grad_fn_nr = 0
    _requires_grad = False
    _accumulator: Any = None

    def register_hooks(self, pack_hook: Hook, unpack_hook: Hook) -> None:
        """Replace the stored tensor by ``pack_hook(tensor)``, run now; each later access
        (and the backward pass) gets ``unpack_hook(packed)``, which must return a tensor
        with the saved values. Only one pair of hooks per saved tensor. Example::

            y = x.pow(2)
            y.grad_fn._raw_saved_self.register_hooks(lambda t: t.numpy(), hookgrad.from_numpy)
        """
        _check_callable(self, pack_hook, unpack_hook)
        if self._unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        if self._freed:
            raise RuntimeError(REGISTER_FREED_MESSAGE)
        value = self._value
        # The hooks see a detached tensor: the input itself is no more kept than the output.
        original = value if self._output_nr is not None else value.detach()
        self._pack((pack_hook, unpack_hook), original, value)
        self._value = None

    def _pack(self, hooks: tuple[Hook, Hook], argument: Any, tensor: Any) -> None:
        """Save ``tensor`` as ``pack_hook(argument)`` (run with grad mode off; it must not
        change the version of ``tensor``) and keep what re-attaches it on unpack."""
        pack_hook, unpack_hook = hooks
        if self._output_nr is None:
            if tensor.grad_fn is not None:
                self._grad_fn = tensor.grad_fn
                self._grad_fn_nr = tensor._output_nr
            elif tensor._requires_grad:
                self._requires_grad = True
                self._accumulator = weakref.ref(tensor._get_accumulator())
        version = tensor._version
        state = grad_mode._state
        enabled = state.grad_enabled
        state.grad_enabled = False
        try:
            packed = call_hook("pack", self, pack_hook, argument)
        finally:
            state.grad_enabled = enabled
        if tensor._version != version:
            raise RuntimeError(PACK_INPLACE_MESSAGE)
        self._packed = packed
        self._unpack_hook = unpack_hook

    def unpack(self, node: Any = None, *, detached_ok: bool = False) -> Any:
        """The saved value; ``node`` is the node that owns this saved tensor (needed to
        re-attach a saved output).

        A saved input that was a non-leaf and has been ``detach_()``ed since is an error,
        as in torch's backward; ``detached_ok``: return it anyway (torch's
        ``grad_fn._saved_<name>`` and a custom Function's ``saved_tensors`` do).
        """
        value = self._value
        if value is None:
            return self._unpack_special(node)
        counter = value._version_counter
        if counter is not None and counter.value != self._saved_version:
            raise RuntimeError(self._version_message(node, counter.value))
        if self._output_nr is None:
            if value._detached_in_place and not detached_ok:
                raise RuntimeError(DETACHED_MESSAGE)
            return value
        return value._as_output_of(self._owner(node), self._output_nr)

    def _owner(self, node: Any) -> Any:
        """The node a saved output unpacks as an output of: ``node``, the saving node,
        unless ``reattach_outputs`` named another that still lives."""
        ref = self._view_grad_fn
        owner = ref() if ref is not None else None
        return node if owner is None else owner

    def _unpack_special(self, node: Any) -> Any:
        """Unpack a freed value (an error) or one packed by hooks (as torch: no version
        check, since the hooks may store anything)."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        data = call_hook("unpack", self, self._unpack_hook, self._packed)  # type: ignore[arg-type]
        if not hasattr(data, "_data") or not hasattr(data, "grad_fn"):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(data).__name__}"
            )
        if self._output_nr is not None:
            out = data._as_output_of(self._owner(node), self._output_nr)
        elif self._grad_fn is not None:
            out = data._as_output_of(self._grad_fn, self._grad_fn_nr)
        else:
            out = data.detach()
            if self._requires_grad:
                history.grant_leaf(out, self._accumulator)
        return out

    def _version_message(self, node: Any, version: int) -> str:
        """torch's error for a saved tensor changed in place since it was saved."""
        value = self._value
        if self._output_nr is None:
            grad_fn, output_nr = value.grad_fn, 0
        else:
            grad_fn, output_nr = self._owner(node), self._output_nr
        shape = ", ".join(str(n) for n in value._data.shape)
        where = ""
        if grad_fn is not None:
            where = f", which is output {output_nr} of {_forward_name(grad_fn.name())},"
        hint = _VERSION_HINT_ANOMALY if anomaly.state.enabled else _VERSION_HINT
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{_type_string(value.dtype)} [{shape}]]{where} is at version "
            f"{version}; expected version {self._saved_version} instead. {hint}"
        )

    def release(self) -> None:
        """Free the saved value (after a backward pass that does not retain the graph)."""
        self._value = None
        self._packed = None
        self._unpack_hook = None
        self._grad_fn = None
        self._freed = True


class _SavedConstant(SavedTensor):
    """A saved non-tensor value, or None: an empty slot (unpacks to None, never freed)."""

    def register_hooks(self, pack_hook: Hook, unpack_hook: Hook) -> None:
        _check_callable(self, pack_hook, unpack_hook)
        if self._freed:
            raise RuntimeError(REGISTER_FREED_MESSAGE)
        if self._value is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor with value None is forbidden"
            )
        raise RuntimeError(f"Calling register_hooks on a saved {type(self._value).__name__}")

    def unpack(self, node: Any = None, *, detached_ok: bool = False) -> Any:
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return self._value

    def release(self) -> None:
        if self._value is not None:
            self._value = None
            self._freed = True


_EMPTY_SLOT = _new(_SavedConstant)


def _check_callable(saved: SavedTensor, pack_hook: Hook, unpack_hook: Hook) -> None:
    if not callable(pack_hook) or not callable(unpack_hook):
        raise TypeError(
            "register_hooks(): incompatible function arguments. The following argument "
            "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
            "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
            f"Invoked with: {saved!r}, {pack_hook!r}, {unpack_hook!r}"
        )


def _forward_name(node_name: str) -> str:
    """The op name torch 2.13 prints for a node in version errors: ``ExpBackward0`` ->
    ``Exp``, ``PowBackward1`` -> ``Pow1``, a custom ``MyFnBackward`` -> ``MyFn``."""
    head, found, tail = node_name.rpartition("Backward")
    if not found:
        return node_name
    return head if tail == "0" else head + tail


def _type_string(dtype: Any) -> str:
    """torch's ``Tensor.toString()``: ``torch.FloatTensor``, or ``CPUComplexFloatType``
    for the types without a legacy tensor class (complex, bool)."""
    if dtype.is_complex or dtype.name == "bool":
        return dtype.type_name
    return f"torch.{dtype.type_name[3:-4]}Tensor"
