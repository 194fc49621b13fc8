"""The in-place view steps of torch's composite statistics (``quantile`` ends with
``values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)`` on a fresh result): nodes named as
torch's in-place ones (``UnsqueezeBackward1``, ``TransposeBackward1``; ``squeeze_`` is
``hookgrad.ops.shape.SqueezeDimInplace``), whose output is not a view, since no one else
holds the tensor they change.

The statistics themselves (``quantile``, ``cov``, ``corrcoef``, ``diff``, ``gradient``,
``trapezoid`` ...) are composites, as in torch: ``hookgrad.tensor.functions.statistics``
and ``differences`` build them from differentiable ops, so their gradients and graphs are torch's.
"""

from __future__ import annotations

from hookgrad.ops.shape import Transpose, Unsqueeze


class UnsqueezeInplace(Unsqueeze):
    """``unsqueeze_(dim)`` of a fresh result."""

    view = False
    node_name = "UnsqueezeBackward1"


class TransposeInplace(Transpose):
    """``transpose_(dim0, dim1)`` of a fresh result."""

    view = False
    node_name = "TransposeBackward1"
