"""``ExponentialFamily``: distributions of the form ``p(x; theta) = exp(<t(x), theta> -
F(theta) + k(x))``, whose entropy and Kullback-Leibler divergence follow from the log
normalizer ``F`` by automatic differentiation (Bregman divergences).

Example::

    Normal(0.0, 1.0).entropy()    # a subclass: its closed form
"""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.distributions.distribution import Distribution
from hookgrad.tensor.tensor import Tensor

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """The base class of exponential-family distributions: a subclass gives its
    ``_natural_params``, ``_log_normalizer(*natural_params)`` and
    ``_mean_carrier_measure``, and gets ``entropy`` (and the KL divergence to another
    member of its family) from them.

    Example::

        class Exp(ExponentialFamily):      # the exponential distribution
            _mean_carrier_measure = 0

            @property
            def _natural_params(self):
                return (-self.rate,)

            def _log_normalizer(self, x):
                return -hookgrad.log(-x)
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        """The natural parameters ``theta``."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """The log normalizer ``F(theta)``."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        """The expected carrier measure ``E[k(x)]``."""
        raise NotImplementedError

    def entropy(self) -> Any:
        """The entropy from the Bregman divergence of the log normalizer."""
        result: Any = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = hookgrad.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for nparam, gradient in zip(nparams, gradients):
            result -= (nparam * gradient).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
