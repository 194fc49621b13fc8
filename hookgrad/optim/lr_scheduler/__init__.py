"""Learning-rate schedulers, torch's ``torch.optim.lr_scheduler``.

A scheduler sets ``group["lr"]`` of its optimizer's parameter groups each time ``step()``
is called (once per epoch, or per batch for ``CyclicLR`` and ``OneCycleLR``, after
``optimizer.step()``), with torch's formulas in torch's order, so the learning rates are
torch's to the last bit:

- ``base.py``: ``LRScheduler``, the base class;
- ``factor.py``: ``LambdaLR``, ``MultiplicativeLR``, ``StepLR``, ``MultiStepLR``,
  ``ConstantLR``, ``LinearLR``, ``ExponentialLR``, ``PolynomialLR``;
- ``cosine.py``: ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts``;
- ``cyclic.py``: ``CyclicLR``, ``OneCycleLR``;
- ``plateau.py``: ``ReduceLROnPlateau``;
- ``chained.py``: ``SequentialLR``, ``ChainedScheduler``.

Example::

    scheduler = lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=1000)
    for batch in loader:
        train(batch)
        opt.step()
        scheduler.step()
"""

# NOTE: torch's module also exposes the names it is written with (``inf``, ``Optimizer``,
# ``Tensor``); schedulers written against torch import them from here.
from math import inf as inf

from hookgrad.optim.lr_scheduler.base import LRScheduler, _LRScheduler
from hookgrad.optim.lr_scheduler.chained import ChainedScheduler, SequentialLR
from hookgrad.optim.lr_scheduler.cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from hookgrad.optim.lr_scheduler.cyclic import CyclicLR, OneCycleLR
from hookgrad.optim.lr_scheduler.factor import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from hookgrad.optim.lr_scheduler.plateau import ReduceLROnPlateau
from hookgrad.optim.optimizer import Optimizer as Optimizer
from hookgrad.tensor import Tensor as Tensor

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
    "_LRScheduler",
]
