"""Transforms: invertible (or not) maps between spaces, with the log absolute
determinant of their Jacobian (``torch.distributions.transforms``).

A ``Transform`` maps ``x`` in its ``domain`` to ``y = t(x)`` in its ``codomain``;
``t.inv(y)`` maps back, ``t.log_abs_det_jacobian(x, y)`` is ``log |dy/dx|`` (summed over
the event dims), ``forward_shape``/``inverse_shape`` give the shapes. With
``cache_size=1`` a transform remembers its last ``(x, y)``, so that ``t.inv(t(x))``
returns ``x`` itself. ``TransformedDistribution`` and the constraint registry
(``biject_to``, ``transform_to``) are built on them.

This module is torch's public path to them; they live in ``transforms_base.py``
(``Transform``, composition, independence, reshaping), ``transforms_pointwise.py``
(elementwise maps), ``transforms_constrained.py`` (onto the simplex, Cholesky factors and
positive definite matrices) and ``transforms_joining.py`` (``CatTransform``,
``StackTransform``).

Example::

    t = ExpTransform()
    y = t(hookgrad.tensor([0.0, 1.0]))          # tensor([1.0000, 2.7183])
    t.inv(y)                                    # tensor([0., 1.])
    t.log_abs_det_jacobian(hookgrad.tensor([0.0, 1.0]), y)   # tensor([0., 1.])
"""

from __future__ import annotations

from hookgrad.distributions.transforms_base import (
    ComposeTransform,
    IndependentTransform,
    ReshapeTransform,
    Transform,
    identity_transform,
)
from hookgrad.distributions.transforms_constrained import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StickBreakingTransform,
)
from hookgrad.distributions.transforms_joining import CatTransform, StackTransform
from hookgrad.distributions.transforms_pointwise import (
    AbsTransform,
    AffineTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]
