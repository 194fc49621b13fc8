"""Public functions built from derivative-table entries: ``hookgrad.exp`` and every
other entry marked ``public`` (``FUNCTIONS``, by torch name and alias), exported by
``hookgrad`` and attached as ``Tensor`` methods by ``hookgrad.tensor.formulas``.

An entry's ``promotion`` says which dtype its kernel computes in: ``"float"`` (integer
and bool tensors in the default float dtype, as torch's ``exp``), ``"same"`` (the
input's own dtype). The function takes torch's arguments, checks the input is a tensor
(torch's ``TypeError``), and accepts ``out=`` with torch's rules: no autograd through it,
an output of another shape resized (with torch's warning unless it was empty), a result
that cannot be cast to the output's dtype refused.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from hookgrad import grad_mode
from hookgrad.ops import table
from hookgrad.ops import unary as _unary  # noqa: F401 (defines its entries)
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays, check_cast, write_inplace
from hookgrad.tensor.tensor import Tensor

RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape {old}, which does "
    "not match the required output shape {new}. This behavior is deprecated, and in a "
    "future PyTorch release outputs will not be resized unless they have zero elements. You "
    "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)


def public(cls: Any, doc: str | None = None) -> Callable[..., Any]:
    """The public function of a one-tensor entry: ``fn(input, *args, out=None, **kwargs)``.

    Example: ``exp = public(ops.Exp, "Elementwise e ** input.")``.
    """
    name = cls.signature.name
    to_float = cls.promotion == "float"

    def function(input: Any, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        data = input._data
        if to_float and data.dtype.kind not in "fc":
            data = data.astype(dtypes.get_default_dtype().np)
        if out is None:
            return apply_arrays(cls(*args, **kwargs), (input,), (data,))
        check_out(name, (input,), out)
        return write_out(apply_arrays(cls(*args, **kwargs), (input,), (data,)), out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc or cls.__doc__
    return function


def check_out(name: str, inputs: tuple[Any, ...], out: Any) -> None:
    """torch refuses ``out=`` when autograd would have to record the op."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if grad_mode.is_grad_enabled() and any(
        isinstance(x, Tensor) and x.requires_grad for x in (*inputs, out)
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )


def write_out(result: Any, out: Any) -> Any:
    """Copy ``result`` into ``out`` (resized to its shape if needed); return ``out``."""
    array = result._data
    check_cast(array.dtype, out._data.dtype)  # before resizing: refused means untouched
    if out._data.shape != array.shape:
        if out._data.size:
            warnings.warn(
                RESIZE_WARNING.format(old=list(out._data.shape), new=list(array.shape)),
                UserWarning,
                stacklevel=3,
            )
        out._data = array.astype(out._data.dtype, copy=True)
    write_inplace(out, array)
    return out


def _functions() -> dict[str, Callable[..., Any]]:
    functions = {}
    for cls in table.public_entries():
        function = public(cls)
        for name in (cls.signature.name, *cls.aliases):
            functions[name] = function
    return functions


# Every generated public function, by name.
FUNCTIONS = _functions()
__all__ = sorted(FUNCTIONS)
globals().update(FUNCTIONS)
