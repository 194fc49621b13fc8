"""``Op``: the base class of every differentiable operation."""

from __future__ import annotations

from typing import Any

from hookgrad.graph.node import Node
from hookgrad.graph.saved import SavedTensor

# (op class, node name) -> the subclass of that name (see ``Op._name_class``).
_named_classes: dict[tuple[type, str], type] = {}


class Op(Node):
    """An operation: ``forward`` on arrays, ``backward`` on gradient tensors.

    Class attributes a subclass sets:
        input_names: the names of the forward's inputs, in order (torch's names:
            ``self``, ``other``, ``mat2`` ...).
        saves: which inputs or outputs (by name) the backward needs; the tensor layer
            saves them as ``SavedTensor`` and ``unpack()`` returns them in order. List
            them in torch's order: default pack hooks see them in this order.
        output_names: torch's names of the outputs of a forward that returns a tuple
            (default ``result``, ``result1``, ``result2``; ``nll_loss`` names its second
            output ``total_weight``); the first one is always ``result`` in ``saves``.
        differentiable_outputs: for a forward that returns a tuple, how many leading
            outputs are the node's outputs (torch's ``output_differentiability``; None:
            every floating one). The others (batch norm's statistics) get no history.
        edge_inputs: the indices of the inputs that get an edge in ``next_functions``
            (None: every input; torch gives none to inputs without a derivative).
        saved_for: optional ``{name: (input names, ...)}``: save that value only when one
            of those inputs needs a gradient; otherwise its slot stays empty and unpacks as
            None (``Mul`` saves ``other`` for ``self``'s gradient and ``self`` for
            ``other``'s). Names not listed are always saved.
        node_name: the name torch gives the node; default ``<ClassName>Backward0``.
        view: True for an op whose output shares its input's memory (torch's view ops:
            ``transpose``, ``select``, basic indexing ...); the tensor layer makes that
            output a view of the input's base.
        fills: True for an in-place op that gives every element the same value (``zero_``,
            ``fill_`` with a number): as torch's, it may write a tensor whose elements
            share memory (an expanded one); other in-place ops raise there.

    Non-tensor parameters (dims, exponents, shapes) are plain attributes set in
    ``__init__``; ``grad_fn._saved_<name>`` reads them like saved tensors.
    """

    input_names: tuple[str, ...] = ("self", "other")
    # The indices of the inputs that get an edge (None: all of them).
    edge_inputs: tuple[int, ...] | None = None
    # Inputs torch gives no edge (integer indices, boolean masks): a hand-written op
    # names them, and its backward still returns one gradient per input.
    non_differentiable: tuple[str, ...] = ()
    saves: tuple[str, ...] = ()
    output_names: tuple[str, ...] = ("result", "result1", "result2")
    differentiable_outputs: int | None = None
    # Non-tensor values a hand-written node shows as ``_saved_<name>`` (torch's names),
    # stored as instance attributes.
    saved_attributes: tuple[str, ...] = ()
    node_name = ""
    view = False
    fills = False
    # True: the forward may divide by zero, overflow or leave the domain; run it with
    # NumPy's floating-point warnings off, since torch is silent there (inf / nan result).
    quiet = False
    _saved: tuple[SavedTensor, ...] = ()  # one per name in ``saves``

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "node_name" not in cls.__dict__:
            cls.node_name = f"{cls.__name__}Backward0"
        # torch's node classes carry the node's name: ``type(fn).__name__ == "MulBackward0"``,
        # without the namespace of ``torch::autograd::CopyBackwards``.
        cls.__name__ = cls.__qualname__ = cls.node_name.rpartition("::")[2]
        if "non_differentiable" in cls.__dict__:
            cls.edge_inputs = tuple(
                index
                for index, name in enumerate(cls.input_names)
                if name not in cls.non_differentiable
            )

    def name(self) -> str:
        return self.node_name

    def _name_class(self) -> None:
        """Move an instance whose ``node_name`` was chosen at run time (``SumBackward1``)
        onto a subclass of that name, so that its type is named as torch's node."""
        cls = type(self)
        named = _named_classes.get((cls, self.node_name))
        if named is None:
            named = type(self.node_name, (cls,), {"node_name": self.node_name})
            named.__module__ = cls.__module__
            _named_classes[(cls, self.node_name)] = named
        self.__class__ = named

    def forward(self, *arrays: Any) -> Any:
        raise NotImplementedError

    def backward(self, *grad_outputs: Any) -> Any:
        raise NotImplementedError

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """Per input: whether the backward must compute its gradient."""
        edges = self.edge_inputs
        if edges is None or len(edges) == len(self.input_names):
            return tuple([meta is not None for meta in self._input_meta])
        needs = [False] * len(self.input_names)
        for index, meta in zip(edges, self._input_meta):
            needs[index] = meta is not None
        return tuple(needs)

    def unpack(self) -> list[Any]:
        """The saved values, in the order of ``saves``."""
        return [saved.unpack(self) for saved in self._saved]

    def _apply(self, grad_outputs: list[Any]) -> Any:
        if self._num_outputs == 1:
            grad_inputs = self.backward(grad_outputs[0])
        else:
            grad_inputs = self.backward(*grad_outputs)
        if self.non_differentiable:
            # One gradient per input from ``backward``; the engine wants one per edge.
            edges: tuple[int, ...] = self.edge_inputs  # type: ignore[assignment]
            grad_inputs = tuple(grad_inputs[index] for index in edges)
        return grad_inputs

    def _release_variables(self) -> None:
        for saved in self._saved:
            saved.release()

    def __dir__(self) -> list[str]:
        names = set(super().__dir__()) - {"_saved", "_saved_named"}
        for name in self.saves:
            names.update((f"_saved_{name}", f"_raw_saved_{name}"))
        names.update(f"_saved_{name}" for name in self.saved_attributes)
        return sorted(names)

    def _saved_named(self, name: str) -> SavedTensor | None:
        saved = self.__dict__.get("_saved", ())
        return saved[self.saves.index(name)] if saved and name in self.saves else None

    def __getattr__(self, name: str) -> Any:
        # Only called for missing attributes: ``_saved_<x>`` / ``_raw_saved_<x>``.
        if name.startswith("_raw_saved_"):
            saved = self._saved_named(name[11:])
            if saved is not None:
                return saved
        elif name.startswith("_saved_"):
            key = name[7:]
            saved = self._saved_named(key)
            if saved is not None:
                # torch's ``_saved_self`` still reads a tensor detached in place since.
                return saved.unpack(self, detached_ok=True)
            if key in self.__dict__:
                return self.__dict__[key]
        raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")
