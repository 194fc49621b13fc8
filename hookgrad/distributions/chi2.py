"""The chi-squared distribution."""

from __future__ import annotations

from typing import Any

from hookgrad.distributions import constraints
from hookgrad.distributions.gamma import Gamma
from hookgrad.tensor.tensor import Tensor

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Args:
        df: the degrees of freedom, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Chi2(hookgrad.tensor([1.0]))
        m.sample()      # Chi2 distributed with shape df=1
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
