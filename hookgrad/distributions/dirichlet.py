"""The Dirichlet distribution."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.autograd.function import Function, once_differentiable
from hookgrad.distributions import constraints
from hookgrad.distributions._functions import _dirichlet_grad, _sample_dirichlet
from hookgrad.distributions.exp_family import ExponentialFamily
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x: Tensor, concentration: Tensor, grad_output: Tensor) -> Tensor:
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = _dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    """A Dirichlet sample with torch's reparameterised gradient (its node is
    ``_DirichletBackward``, as torch's)."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        x = _sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution of ``concentration`` (the last dim is the event) on
    the simplex. ``rsample`` draws torch's numbers and is differentiable.

    Args:
        concentration: the concentrations, positive, at least one-dimensional.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Dirichlet(hookgrad.tensor([0.5, 0.5]))
        m.sample()      # Dirichlet distributed with concentration [0.5, 0.5]
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        return _Dirichlet.apply(concentration)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (
            hookgrad.xlogy(self.concentration - 1.0, value).sum(-1)
            + hookgrad.lgamma(self.concentration.sum(-1))
            - hookgrad.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # where every concentration is below 1, the mode is the corner of the largest
        mask = (self.concentration < 1).all(dim=-1)
        corners = mode[mask].argmax(dim=-1)
        events = concentrationm1.shape[-1]
        mode[mask] = hookgrad.eye(events, dtype=hookgrad.long)[corners].to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            hookgrad.lgamma(self.concentration).sum(-1)
            - hookgrad.lgamma(a0)
            - (k - a0) * hookgrad.digamma(a0)
            - ((self.concentration - 1.0) * hookgrad.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - hookgrad.lgamma(x.sum(-1))
