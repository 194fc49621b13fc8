"""``SavedTensor``: a value an operation keeps for its backward pass."""

from __future__ import annotations

from typing import Any

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


class SavedTensor:
    """One saved value: an input tensor, or an output of the node that saves it.

    An output is kept without its ``grad_fn`` (that would make a reference cycle) and
    re-attached to the node on unpack, so double backward sees the right graph.
    """

    __slots__ = ("_value", "_output_nr", "_freed")

    def __init__(self, value: Any, output_nr: int | None = None) -> None:
        # For an output, ``value`` is a detached alias sharing the output's data.
        self._value = value
        self._output_nr = output_nr
        self._freed = False

    def unpack(self, node: Any) -> Any:
        """The saved value; ``node`` is the node that owns this saved tensor."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        if self._output_nr is None:
            return self._value
        return self._value._as_output_of(node, self._output_nr)

    def release(self) -> None:
        self._value = None
        self._freed = True
