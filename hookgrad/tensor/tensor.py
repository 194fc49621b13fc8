"""``Tensor``: a NumPy array plus what autograd needs to know about it.

The class stays thin: what is here is its data, metadata, the autograd attributes
(``requires_grad``, ``grad``, ``grad_fn``, hooks) and conversions to Python and NumPy.
Everything else (the legacy constructor, operators, math methods, ``backward``) is attached
after the class exists by ``hookgrad.tensor.methods``, so this module imports none of the
modules above it; editors and mypy see those methods through the stub ``attached.pyi``.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph import history
from hookgrad.graph.accumulate import GRAD_DTYPE_UNSET, AccumulateGrad, CopyBackwards
from hookgrad.graph.history import CreationMeta
from hookgrad.graph.node import Node
from hookgrad.graph.version import VersionCounter
from hookgrad.hooks import HookDict, RemovableHandle, add_hook
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.device import cpu
from hookgrad.tensor.formatting import tensor_repr
from hookgrad.tensor.size import Size

if TYPE_CHECKING:
    # NOTE: a stub only (no module at run time): the methods ``hookgrad.tensor.methods``
    # attaches, for type checkers and editors.
    from hookgrad.tensor.attached import AttachedMethods
else:
    AttachedMethods = object

_GRAD_DTYPE_ADVICE = (
    "The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You "
    "can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
    "may break downstream systems that assume they match."
)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
    ".grad attribute won't be populated during autograd.backward(). If you indeed want "
    "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
    "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
    "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
    "informations."
)


LEAF_ONLY_MESSAGE = "you can only change requires_grad flags of leaf variables."
DETACH_HINT = (
    " If you want to use a computed variable in a subgraph that doesn't require "
    "differentiation use var_no_grad = var.detach()."
)


DETACH_VIEW_MESSAGE = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
    "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
    "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution."
)


class Tensor(AttachedMethods):
    """A multi-dimensional array that can record the operations applied to it.

    Create tensors with ``hookgrad.tensor(data)``, ``zeros``, ``randn`` etc.; the
    constructor ``Tensor(data)`` is kept for compatibility.

    Example::

        x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        x.grad            # tensor([2., 4.])
    """

    _data: np.ndarray
    # NOTE: class-level defaults keep ``_make`` (called once per op result) cheap: an
    # instance stores only what differs from them.
    _requires_grad = False
    _grad_fn: Node | None = None
    _output_nr = 0
    _grad = None
    _backward_hooks: HookDict | None = None
    _post_accumulate_grad_hooks: HookDict | None = None
    # A leaf's ``grad_dtype`` when set: a dtype, or None for any (unset: its own dtype).
    _grad_dtype: Any = GRAD_DTYPE_UNSET
    _retains_grad = False
    _detached_in_place = False  # a non-leaf ``detach_()``ed: saved inputs refuse to unpack
    _accumulator_ref = None
    _is_inference = False
    # Shared by a tensor, its views and its detached aliases; created on first bump.
    _version_counter: VersionCounter | None = None
    # A view (the output of a view op): the tensor whose memory it shares (the root, never
    # itself a view), how it was made, and the version its ``grad_fn`` was made at.
    _base: Tensor | None = None
    _creation_meta = CreationMeta.DEFAULT
    _view_version = 0
    __array_priority__ = 1000  # ndarray <op> Tensor defers to Tensor's operators

    @staticmethod
    def _make(array: np.ndarray, requires_grad: bool = False) -> Tensor:
        """Wrap ``array`` as a plain Tensor (no copy, no checks)."""
        t = object.__new__(Tensor)
        t._data = array
        if requires_grad:
            t._requires_grad = True
        return t

    # -- metadata -------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The size of each dimension, as a ``Size``."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        """``Size`` of the tensor, or the length of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> Any:
        return cpu

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_inference(self) -> bool:
        """True for tensors created inside ``inference_mode``."""
        return self._is_inference

    @property
    def is_cuda(self) -> bool:
        return False

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __hash__(self) -> int:
        return id(self)

    # -- autograd attributes --------------------------------------------------------------
    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for a leaf).

        For a view whose memory was changed in place (through its base or another view)
        since its ``grad_fn`` was made, it is regenerated first, as torch does: an
        ``AsStridedBackward0`` node on the base's current history. Example::

            b = a.clone()
            v = b[0]          # v.grad_fn: SelectBackward0
            b.mul_(2)
            v.grad_fn         # AsStridedBackward0, whose input is b's MulBackward0
        """
        node = self._grad_fn
        if self._base is not None:
            counter: Any = self._version_counter
            if self._view_version != counter.value:
                return self._refresh_grad_fn(node)
        return node

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        raise AttributeError("attribute 'grad_fn' of 'Tensor' objects is not writable")

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this tensor (for a view: also when its base
        needs them)."""
        if self._requires_grad or self._grad_fn is not None:
            return True
        base = self._base
        return base is not None and base.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            raise RuntimeError(LEAF_ONLY_MESSAGE + ("" if value else DETACH_HINT))
        self._set_requires_grad(value, "and complex ")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return ``self``.

        On a non-leaf only ``requires_grad_(True)`` is allowed (it changes nothing).
        Example::

            w = hookgrad.zeros(3).requires_grad_()   # w.requires_grad is True
        """
        if type(requires_grad) is not bool:
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(LEAF_ONLY_MESSAGE + DETACH_HINT)
            return self
        # NOTE: torch's message here omits "and complex" although complex is allowed.
        self._set_requires_grad(requires_grad, "")
        return self

    def _set_requires_grad(self, value: bool, complex_word: str) -> None:
        if value:
            if not (self.dtype.is_floating_point or self.dtype.is_complex):
                raise RuntimeError(
                    f"only Tensors of floating point {complex_word}dtype can require gradients"
                )
            if self._is_inference and not grad_mode.is_inference_mode_enabled():
                raise RuntimeError(
                    "Setting requires_grad=True on inference tensor outside InferenceMode "
                    "is not allowed."
                )
        history.set_requires_grad(self, bool(value))

    @property
    def is_leaf(self) -> bool:
        """True for tensors created by the user (not the result of a recorded op)."""
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and tensors that ``retain_grad()``)."""
        # NOTE: the stored node, as torch's check: a view made under no_grad whose base
        # changed since must not raise here (its ``grad_fn`` does).
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            expected = self.dtype if self._grad_dtype is GRAD_DTYPE_UNSET else self._grad_dtype
            if expected is not None and value.dtype != expected:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{dtypes.cpp_name(value.dtype)}' to a tensor with grad_dtype "
                    f"'{dtypes.legacy_name(expected)}'. {_GRAD_DTYPE_ADVICE}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @property
    def grad_dtype(self) -> dtypes.dtype | None:
        """The dtype a leaf's ``.grad`` must have: its own dtype unless set; set to a dtype,
        incoming gradients are cast to it; set to None, any dtype is kept. Example::

            x = hookgrad.ones(2, requires_grad=True)
            x.grad_dtype = hookgrad.float64
            (x * 2).sum().backward()        # x.grad is float64
        """
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self.dtype if self._grad_dtype is GRAD_DTYPE_UNSET else self._grad_dtype

    @grad_dtype.setter
    def grad_dtype(self, value: dtypes.dtype | None) -> None:
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, dtypes.dtype):
            raise RuntimeError(
                f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"
            )
        current = self._grad
        if value is not None and current is not None and current.dtype != value:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{dtypes.legacy_name(value)}' because there is "
                f"already a gradient with dtype '{dtypes.cpp_name(current.dtype)}'. Please "
                "clear the gradient (.grad = None) before changing grad_dtype, or ensure the "
                "new grad_dtype matches the existing gradient's dtype."
            )
        self._grad_dtype = value

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor whose ``.grad`` is kept (see ``retain_grad``)."""
        return self._retains_grad

    @property
    def data(self) -> Tensor:
        """The same data, detached from the graph and from the version counter: in-place
        changes through ``.data`` are not seen by autograd's checks (as in torch)."""
        out = Tensor._make(self._data)
        if self._is_inference:
            history.mark_inference(out)
        return out

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data

    def _is_view(self) -> bool:
        """True for a view of another tensor (``_base``), sharing its memory."""
        return self._base is not None

    def detach(self) -> Tensor:
        """A tensor sharing this data (and version counter) that does not require grad."""
        out = history.share_version(Tensor._make(self._data), self)
        if self._is_inference:
            history.mark_inference(out)
        return out

    @property
    def _version(self) -> int:
        """How many in-place changes the data (shared with views) has seen."""
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        counter = self._version_counter
        return 0 if counter is None else counter.value

    def _bump_version(self) -> None:
        """Record an in-place change of the data (inference tensors keep no count)."""
        if not self._is_inference:
            history.version_counter(self).value += 1

    def detach_(self) -> Tensor:
        """Detach ``self`` from the graph in place (not allowed on a view).

        As in torch, a non-leaf that an op saved as an input cannot be used by that op's
        backward afterwards (a RuntimeError then). Example::

            h = x * 2
            h.detach_()       # h.requires_grad is False, h.grad_fn is None
        """
        if self._base is not None:
            raise RuntimeError(DETACH_VIEW_MESSAGE)
        history.clear_history(self)
        return self

    def _as_output_of(self, node: Any, output_nr: int) -> Tensor:
        """This tensor aliased as output ``output_nr`` of ``node``: a tensor sharing its data
        and version counter, with ``node`` as its ``grad_fn`` (not a view)."""
        return history.alias_output(Tensor._make(self._data), self, node, output_nr)

    def _gradient_edge(self) -> tuple[Any, int]:
        """Where gradients for this tensor go: its grad_fn, or its leaf accumulator."""
        node = self.grad_fn
        if node is not None:
            return node, self._output_nr
        return self._get_accumulator(), 0

    def _get_accumulator(self) -> AccumulateGrad:
        ref = self._accumulator_ref
        node = ref() if ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            history.set_accumulator(self, weakref.ref(node))
        return node

    def _accumulate_grad(self, grad: Tensor) -> None:
        """Add ``grad`` into ``.grad`` (called by ``AccumulateGrad``)."""
        current = self._grad
        if current is None:
            copy = Tensor._make(np.array(grad._data, copy=True))
            if grad_mode.is_grad_enabled() and grad.requires_grad:
                # create_graph: ``.grad`` stays differentiable (a recorded copy).
                history.set_history(copy, CopyBackwards(grad))
            self._grad = copy
        elif grad_mode.is_grad_enabled():
            self._grad = current + grad
        else:
            np.add(current._data, grad._data, out=current._data, casting="unsafe")

    # -- hooks ----------------------------------------------------------------------------
    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Register ``hook(grad)`` to run when the gradient of this tensor is computed.

        The hook may return a tensor of the same shape and dtype to replace the gradient
        (later hooks and the rest of the backward pass see the replacement), or None.
        It is bound to the tensor's ``grad_fn`` at registration time. Example::

            y = x * 2
            y.register_hook(lambda g: g * 10)   # x.grad becomes 20 instead of 2
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._backward_hooks is None:
            self._backward_hooks = HookDict("tensor")
            if self.grad_fn is not None:
                self.grad_fn._register_tensor_hooks(self._output_nr, self._backward_hooks)
            else:
                self._get_accumulator()._register_tensor_hooks(0, self._backward_hooks)
        return add_hook(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Register ``hook(tensor)`` to run after ``.grad`` of this leaf was accumulated.

        Its return value must be None. Example (an optimizer step per parameter)::

            p.register_post_accumulate_grad_hook(lambda p: p.data.sub_(0.1 * p.grad))
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = HookDict("post_accumulate")
        return add_hook(self._post_accumulate_grad_hooks, hook)

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor during backward (no-op on leaves)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        # NOTE: as torch, the stored grad_fn decides first: a view whose base changed
        # regenerates its grad_fn (and may raise) only when it is retained for the first time.
        if self._grad_fn is None or self._retains_grad:
            return
        node = self.grad_fn
        weak_self = weakref.ref(self)

        def retain(grad: Tensor) -> None:
            tensor = weak_self()
            if tensor is None:
                return
            if tensor._grad is None:
                tensor._grad = grad.clone()
            else:
                tensor._grad = tensor._grad + grad

        node._register_retain_grad(self._output_nr, retain)
        history.mark_retains_grad(self)

    # -- conversion to Python / NumPy -----------------------------------------------------
    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        """The data as (nested) Python lists of numbers."""
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The data as a NumPy array sharing memory (only without grad)."""
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self._data
        return array if dtype is None else array.astype(dtype)

    def __bool__(self) -> bool:
        if self._data.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def _scalar(self) -> Any:
        """The single element, for ``float(t)``/``int(t)``/``complex(t)``."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.dtype.is_complex or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of all elements."""
        return self._data.nbytes

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data, self.requires_grad))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        new = type(self).__new__(type(self))
        new._data = self._data.copy()
        history.set_requires_grad(new, self._requires_grad)
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor._make(data, requires_grad)
