"""The named tuples torch's functions return (``torch.return_types``): ``ReturnType``, a
tuple whose items also have names, and ``return_type``, which makes the class for one
function. ``hookgrad.return_types`` exports them by torch's names; ``RETURN_TYPES`` holds
every class made, by name.

A class prints as torch's does (``torch.return_types.max(values=..., indices=...)``) and
lives in ``hookgrad.return_types``, where pickle finds it again.

Example::

    values, indices = hookgrad.tensor([[1.0, 3.0], [4.0, 2.0]]).max(dim=1)
    RETURN_TYPES["max"]((values, indices)).indices      # tensor([1, 0])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


class ReturnType(tuple):
    """A tuple whose items also have names (``fields``), as torch's
    ``torch.return_types``; made for each function by ``return_type``."""

    __slots__ = ()
    fields: tuple[str, ...] = ()
    n_fields: int = 0

    def __new__(cls, values: Iterable[Any]) -> ReturnType:
        return super().__new__(cls, values)

    def __repr__(self) -> str:
        items = ",\n".join(f"{name}={value!r}" for name, value in zip(self.fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{items})"

    def __reduce__(self) -> Any:
        return (type(self), (tuple(self),))


RETURN_TYPES: dict[str, type[ReturnType]] = {}


def return_type(name: str, fields: Sequence[str] = ("values", "indices")) -> type[ReturnType]:
    """The named tuple ``torch.return_types.<name>`` with ``fields`` (each also a
    property), registered in ``RETURN_TYPES``.

    Example: ``return_type("aminmax", ("min", "max"))((a, b)).max is b``.
    """
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__qualname__": name,
        "__module__": "hookgrad.return_types",
        "fields": tuple(fields),
        "n_fields": len(fields),
    }
    for index, field in enumerate(fields):
        namespace[field] = property(lambda self, index=index: self[index])
    cls = type(name, (ReturnType,), namespace)
    RETURN_TYPES[name] = cls
    return cls


for _name in (
    "max",
    "min",
    "median",
    "nanmedian",
    "mode",
    "kthvalue",
    "cummax",
    "cummin",
    "sort",
    "topk",
):
    return_type(_name)
return_type("aminmax", ("min", "max"))
return_type("histogram", ("hist", "bin_edges"))
return_type("histogramdd", ("hist", "bin_edges"))
