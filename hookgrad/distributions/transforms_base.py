"""The base of ``torch.distributions.transforms``: ``Transform`` (a map ``y = t(x)`` with
its ``inv``, ``log_abs_det_jacobian``, shapes and a cache of the last ``(x, y)``), its
inverse, and the transforms made of other transforms or of shapes: ``ComposeTransform``
(``identity_transform`` is the empty one), ``IndependentTransform``, ``ReshapeTransform``.

Example::

    t = ComposeTransform([ExpTransform(), AffineTransform(0.0, 2.0)])
    t(hookgrad.tensor([0.0]))   # tensor([2.])
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.utils import (
    _sum_rightmost,
    lazy_property,
)
from hookgrad.tensor.size import Size

__all__ = [
    "ComposeTransform",
    "IndependentTransform",
    "ReshapeTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """The base class of transforms.

    Args:
        cache_size: 0 (no cache) or 1 (remember the latest ``(x, y)`` pair).

    A subclass defines ``_call`` (and ``_inverse``, ``log_abs_det_jacobian`` where they
    exist), its ``domain`` and ``codomain``, ``bijective`` and ``sign``.

    Example::

        class Double(Transform):
            domain = codomain = constraints.real
            bijective = True
            sign = +1

            def _call(self, x):
                return 2 * x

            def _inverse(self, y):
                return y / 2

            def log_abs_det_jacobian(self, x, y):
                return hookgrad.full_like(x, math.log(2))
    """

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size: int = 0) -> None:
        self._cache_size = cache_size
        self._inv: Transform | None = None
        if cache_size == 1:
            self._cached_x_y: tuple[Any, Any] = (None, None)
        elif cache_size != 0:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self) -> int:
        """The event dims of the domain, when they are the codomain's too."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (made once and kept)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian's determinant, where it is defined."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __call__(self, x: Any) -> Any:
        """``y = t(x)`` (the cached ``y`` when ``x`` is the cached ``x``)."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Any) -> Any:
        """``x = t.inv(y)`` (the cached ``x`` when ``y`` is the cached ``y``)."""
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Any) -> Any:
        raise NotImplementedError

    def _inverse(self, y: Any) -> Any:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log |dy/dx|`` for the pair ``(x, y)``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape: Any) -> Any:
        """The shape of ``t(x)`` for ``x`` of ``shape``."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of ``t.inv(y)`` for ``y`` of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform: ``t.inv``."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv: Transform = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> Any:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x: Any) -> Any:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms ``parts`` applied one after another.

    Example::

        ComposeTransform([ExpTransform(), AffineTransform(1.0, 2.0)])   # x -> 1 + 2 e^x
    """

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # the rightmost dims the composition consumes, from the last part back
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim < domain.event_dim:
            raise AssertionError(
                f"event_dim {event_dim} must be >= domain.event_dim {domain.event_dim}"
            )
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim < codomain.event_dim:
            raise AssertionError(
                f"event_dim {event_dim} must be >= codomain.event_dim {codomain.event_dim}"
            )
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self) -> Any:
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Any) -> Any:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        if not self.parts:
            return hookgrad.zeros_like(x)
        # the intermediate values (from the parts' caches where they have them)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x_, y_ in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(
                _sum_rightmost(part.log_abs_det_jacobian(x_, y_), event_dim - part.domain.event_dim)
            )
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        parts = ",\n    ".join(repr(p) for p in self.parts)
        return self.__class__.__name__ + "(\n    " + parts + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dims in its
    events: the log-det-Jacobian is summed over them.

    Example::

        IndependentTransform(ExpTransform(), 1).log_abs_det_jacobian(x, y)  # x.sum(-1)
    """

    def __init__(
        self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0
    ) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Any) -> Any:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Any) -> Any:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"
        )

    def forward_shape(self, shape: Any) -> Any:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dims to ``out_shape`` (the same number of
    elements); the Jacobian is 1.

    Example: ``ReshapeTransform((4,), (2, 2))(hookgrad.zeros(3, 4)).shape`` is
    ``torch.Size([3, 2, 2])``.
    """

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Any) -> Any:
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y: Any) -> Any:
        batch_shape = y.shape[: y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if shape[cut:] != self.in_shape:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.in_shape}")
        return shape[:cut] + self.out_shape

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if shape[cut:] != self.out_shape:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.out_shape}")
        return shape[:cut] + self.in_shape
