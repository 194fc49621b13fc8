"""``hookgrad.types``: the type aliases torch's annotations use (``torch.types``), for code
that imports them (``from torch.types import Number, _size``).

``Number`` is what a plain Python number can be, ``Device`` what names a device, ``_size``
what a shape argument takes, ``_TensorOrTensors`` what ``backward`` takes. hookgrad has no
symbolic shapes: ``IntLikeType`` and friends are the plain types, and ``py_sym_types`` is
empty. Example::

    from hookgrad.types import Number

    def scale(x: hookgrad.Tensor, factor: Number) -> hookgrad.Tensor:
        return x * factor
"""

from __future__ import annotations

import os

# torch's names for the builtins, for code that imports them from here.
from builtins import bool as _bool  # noqa: F401
from builtins import bytes as _bytes  # noqa: F401
from builtins import complex as _complex  # noqa: F401
from builtins import float as _float  # noqa: F401
from builtins import int as _int  # noqa: F401
from builtins import str as _str  # noqa: F401
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Union

from hookgrad.tensor.device import device as _device
from hookgrad.tensor.dtypes import dtype as _dtype  # noqa: F401
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

if TYPE_CHECKING:
    from hookgrad.graph.node import GradientEdge

__all__ = ["Device", "FileLike", "Number", "Storage"]

_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]
_TensorOrTensorsOrGradEdge = Union[
    Tensor, Sequence[Tensor], "GradientEdge", Sequence["GradientEdge"]
]
_size = Union[Size, list[int], tuple[int, ...]]
_symsize = Union[Size, Sequence[int]]

# Without symbolic shapes, each "int-like" type is the plain type.
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
py_sym_types: tuple[type, ...] = ()

# What a Python number can be (``isinstance`` checks use the tuple ``_Number``).
Number = Union[int, float, bool]
_Number = (int, float, bool)

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

# What names a device: a device, its name ("cpu"), an index, or None (the default).
Device = Union[_device, str, int, None]


class Storage:
    """The protocol of torch's typed storages (for annotations): what a storage object
    offers. hookgrad's tensors keep their memory in NumPy arrays; this class only names
    the protocol, as torch's ``torch.types.Storage`` does."""

    device: _device
    dtype: _dtype

    def element_size(self) -> int:
        raise NotImplementedError

    def nbytes(self) -> int:
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def cpu(self) -> Any:
        raise NotImplementedError
