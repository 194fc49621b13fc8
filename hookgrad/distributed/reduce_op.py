"""``ReduceOp``: how a reducing collective combines the ranks' tensors, and the deprecated
``reduce_op`` spelling of it, as torch has them."""

from __future__ import annotations

import enum
import warnings
from typing import Any

__all__ = ["ReduceOp", "reduce_op"]


class ReduceOp:
    """The reduction of ``all_reduce``, ``reduce``, ``reduce_scatter``...: ``SUM``,
    ``AVG`` (the sum divided by the group's size), ``PRODUCT``, ``MIN``, ``MAX``, and on
    integer and bool tensors the bitwise ``BAND``, ``BOR``, ``BXOR``.

    ``ReduceOp.SUM`` is a member of the enum ``ReduceOp.RedOpType``, as in torch;
    ``ReduceOp(ReduceOp.MAX)`` makes an instance that compares equal to it. Example::

        dist.all_reduce(t, op=dist.ReduceOp.MAX)
    """

    class RedOpType(enum.Enum):
        """The reductions, with torch's numbering."""

        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM

    def __init__(self, op: Any = RedOpType.SUM) -> None:
        self.op: ReduceOp.RedOpType = op.op if isinstance(op, ReduceOp) else ReduceOp.RedOpType(op)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ReduceOp):
            return self.op is other.op
        return self.op is other

    def __hash__(self) -> int:
        return hash(self.op)

    def __repr__(self) -> str:
        return f"ReduceOp({self.op})"

    @staticmethod
    def _supports_complex(op: Any) -> bool:
        kind = op.op if isinstance(op, ReduceOp) else ReduceOp.RedOpType(op)
        return kind in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PREMUL_SUM)


def supports_complex(reduceOp: Any) -> bool:  # noqa: N803 (torch's keyword)
    """Whether ``reduceOp`` can reduce complex tensors (``SUM`` and ``AVG`` can; ``MAX``,
    ``MIN``, ``PRODUCT`` and the bitwise ops cannot). Example::

        dist.supports_complex(dist.ReduceOp.MAX)    # False
    """
    return ReduceOp._supports_complex(reduceOp)


class _ReduceOpAlias:
    """torch's deprecated ``torch.distributed.reduce_op``: each attribute is
    ``ReduceOp``'s, with a FutureWarning naming the replacement. (Python's own look-ups of
    dunder attributes, such as ``isinstance`` walking ``gc.get_objects()``, do not warn.)"""

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("__"):
            return object.__getattribute__(self, name)
        warnings.warn(
            "`torch.distributed.reduce_op` is deprecated, please use "
            "`torch.distributed.ReduceOp` instead",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(ReduceOp, name)


reduce_op = _ReduceOpAlias()
