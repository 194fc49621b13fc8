"""Parametrizations of ``nn.utils.parametrize`` that torch ships: ``orthogonal``,
``weight_norm`` and ``spectral_norm``.

Each registers a small module as the parametrization of a module's weight, so the weight
is recomputed from its original tensors at every access (or once per
``parametrize.cached()`` block). ``spectral_norm``'s power-iteration vectors ``_u`` and
``_v`` are drawn from the default generator as torch draws them.
"""

from __future__ import annotations

from enum import Enum, auto
from typing import Any

import hookgrad
from hookgrad.nn.functional.normalization import (
    normalize,
    torch_norm_except_dim,
    torch_weight_norm,
)
from hookgrad.nn.modules import conv
from hookgrad.nn.modules.module import Module
from hookgrad.nn.utils import parametrize
from hookgrad.tensor import Tensor

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- orthogonal


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.size(-2), q.size(-1)
    identity = hookgrad.eye(k, dtype=q.dtype)
    eps = 10.0 * n * hookgrad.finfo(q.dtype).eps
    return hookgrad.allclose(q.mH @ q, identity, atol=eps)


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of the QR decomposition of ``a``, its columns' signs fixed by R's diagonal."""
    x, tau = hookgrad.geqrf(a)
    q = hookgrad.linalg.householder_product(x, tau)
    q *= x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """The map from an unconstrained matrix to an orthogonal one (``matrix_exp`` or
    ``cayley`` of its skew-symmetric part, or a product of Householder reflections),
    composed with the ``base`` orthogonal matrix when trivialized."""

    def __init__(
        self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = hookgrad.cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = hookgrad.matrix_exp(a)
            else:
                identity = hookgrad.eye(n, dtype=a.dtype)
                q = hookgrad.linalg.solve(
                    hookgrad.add(identity, a, alpha=-0.5), hookgrad.add(identity, a, alpha=0.5)
                )
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = hookgrad.linalg.householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        return q.mT if transposed else q

    def right_inverse(self, q: Tensor) -> Tensor:
        with hookgrad.no_grad():
            return self._right_inverse(q)

    def _right_inverse(self, q: Tensor) -> Tensor:
        if q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor "
                f"of shape {q.shape}."
            )
        q_init = q
        n, k = q.size(-2), q.size(-1)
        transpose = n < k
        if transpose:
            q = q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False."
                )
            a, tau = hookgrad.geqrf(q)
            a.diagonal(dim1=-2, dim2=-1).sign_()
            a.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return a.mT if transpose else a
        if n == k:
            q = _make_orthogonal(q) if not _is_orthogonal(q) else q.clone()
        else:
            extra = hookgrad.randn(*(q.size()[:-2] + (n, n - k)), dtype=q.dtype)
            q = _make_orthogonal(hookgrad.cat([q, extra], dim=-1))
        self.base = q
        negative_identity = hookgrad.zeros_like(q_init)
        negative_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return negative_identity


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Constrain the matrix (or batch of matrices) ``module.<name>`` to be orthogonal
    (unitary): ``"matrix_exp"`` (default for square or complex), ``"cayley"`` or
    ``"householder"`` maps an unconstrained original onto orthogonal matrices.

    Example::

        layer = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
        layer.weight @ layer.weight.T   # the identity
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------- weight norm


class _WeightNorm(Module):
    """``weight = g * v / ||v||`` from ``original0 = g`` and ``original1 = v``."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return torch_weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return torch_norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight-normalize ``module.<name>`` as a parametrization: its magnitude
    (``parametrizations.<name>.original0``, the norms over every dim but ``dim``) and
    direction (``original1``) are trained.

    Example::

        layer = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
        layer.parametrizations.weight.original0.shape   # hookgrad.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


# ---------------------------------------------------------------- spectral norm


class _SpectralNorm(Module):
    """``weight / sigma`` with ``sigma`` the largest singular value of the weight seen as
    a matrix along ``dim``, by power iteration on the buffers ``_u`` and ``_v`` (15
    steps at creation, ``n_power_iterations`` per access in training mode)."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._reshape_weight_to_matrix(weight)
            height, width = matrix.size()
            u = matrix.new_empty(height).normal_(0, 1)
            v = matrix.new_empty(width).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(matrix, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix: Tensor, n_power_iterations: int) -> None:
        with hookgrad.no_grad():
            for _ in range(n_power_iterations):
                self._u = normalize(hookgrad.mv(matrix, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = normalize(
                    hookgrad.mv(matrix.H, self._u), dim=0, eps=self.eps, out=self._v
                )

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = hookgrad.vdot(u, hookgrad.mv(matrix, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Any:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Spectral-normalize ``module.<name>`` as a parametrization: divide it by its largest
    singular value, estimated by power iteration (``dim``: the dim that becomes the
    matrix rows; default 1 for transposed convolutions, else 0).

    Example::

        layer = nn.utils.parametrizations.spectral_norm(nn.Linear(20, 40))
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _transposed_convolutions()) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


def _transposed_convolutions() -> tuple[type, ...]:
    """The transposed convolution layers (their weight's rows are along dim 1)."""
    names = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
    return tuple(getattr(conv, name) for name in names if hasattr(conv, name))
