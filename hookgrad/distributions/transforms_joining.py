"""The transforms of ``torch.distributions.transforms`` that apply other transforms to
pieces of a tensor: ``CatTransform`` (to consecutive slices along a dim) and
``StackTransform`` (to the slices of a dim), with torch's checks of their arguments.

Example: ``CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[1, 1])``
exponentiates the first element of a 2-vector and keeps the second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.transforms_base import Transform
from hookgrad.distributions.utils import (
    _sum_rightmost,
    lazy_property,
)

__all__ = ["CatTransform", "StackTransform"]


class CatTransform(Transform):
    """The transforms ``tseq`` applied to consecutive slices of ``dim`` (of ``lengths``,
    default 1 each), as ``hookgrad.cat`` joins them.

    Example::

        t = CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[2, 2])
        t(hookgrad.zeros(4))     # tensor([1., 1., 0., 0.])
    """

    transforms: list[Transform]

    def __init__(
        self,
        tseq: Sequence[Transform],
        dim: int = 0,
        lengths: Sequence[int] | None = None,
        cache_size: int = 0,
    ) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @lazy_property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, value: Any) -> list[Any]:
        slices = []
        start = 0
        for length in self.lengths:
            slices.append(value.narrow(self.dim, start, length))
            start = start + length
        return slices

    def _call(self, x: Any) -> Any:
        _check_cat(x, "x", self.dim, self.length, "tensor")
        ys = [t(x_) for t, x_ in zip(self.transforms, self._slices(x))]
        return hookgrad.cat(ys, dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        _check_cat(y, "y", self.dim, self.length, "tensor")
        xs = [t.inv(y_) for t, y_ in zip(self.transforms, self._slices(y))]
        return hookgrad.cat(xs, dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        _check_cat(x, "x", self.dim, self.length, "x")
        _check_cat(y, "y", self.dim, self.length, "y")
        logdetjacs = []
        for t, x_, y_ in zip(self.transforms, self._slices(x), self._slices(y)):
            logdetjac = t.log_abs_det_jacobian(x_, y_)
            if t.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - t.event_dim)
            logdetjacs.append(logdetjac)
        # the cat dim in the (event-reduced) log-det-Jacobians, if it survives there
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return hookgrad.cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


def _check_cat(value: Any, name: str, dim: int, length: int, what: str) -> None:
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {what} with {value.dim()} dimensions")
    if value.size(dim) != length:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal length {length}")


def _check_stack(value: Any, name: str, dim: int, count: int, what: str) -> None:
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {what} with {value.dim()} dimensions")
    if value.size(dim) != count:
        raise AssertionError(
            f"{name}.size({dim}) = {value.size(dim)} must equal len(transforms) {count}"
        )


class StackTransform(Transform):
    """The transforms ``tseq`` applied to the slices of ``dim``, as ``hookgrad.stack``
    joins them.

    Example::

        StackTransform([ExpTransform(), identity_transform], dim=0)(hookgrad.zeros(2, 3))
    """

    transforms: list[Transform]

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z: Any) -> list[Any]:
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x: Any) -> Any:
        _check_stack(x, "x", self.dim, len(self.transforms), "tensor")
        ys = [t(x_) for x_, t in zip(self._slice(x), self.transforms)]
        return hookgrad.stack(ys, dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        _check_stack(y, "y", self.dim, len(self.transforms), "tensor")
        xs = [t.inv(y_) for y_, t in zip(self._slice(y), self.transforms)]
        return hookgrad.stack(xs, dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        _check_stack(x, "x", self.dim, len(self.transforms), "x")
        _check_stack(y, "y", self.dim, len(self.transforms), "y")
        pairs = zip(self._slice(x), self._slice(y), self.transforms)
        logdetjacs = [t.log_abs_det_jacobian(x_, y_) for x_, y_, t in pairs]
        return hookgrad.stack(logdetjacs, dim=self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
