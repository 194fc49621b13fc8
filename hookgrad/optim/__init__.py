"""``hookgrad.optim``: optimizers (one per file), learning-rate schedulers
(``lr_scheduler``), weight averaging (``swa_utils``), and ``kernels.py``, the array
arithmetic the optimizers update parameters with, rounded as torch's kernels round it."""

from hookgrad.optim import lr_scheduler, swa_utils
from hookgrad.optim.adadelta import Adadelta
from hookgrad.optim.adafactor import Adafactor
from hookgrad.optim.adagrad import Adagrad
from hookgrad.optim.adam import Adam
from hookgrad.optim.adamax import Adamax
from hookgrad.optim.adamw import AdamW
from hookgrad.optim.asgd import ASGD
from hookgrad.optim.lbfgs import LBFGS
from hookgrad.optim.muon import Muon
from hookgrad.optim.nadam import NAdam
from hookgrad.optim.optimizer import Optimizer
from hookgrad.optim.radam import RAdam
from hookgrad.optim.rmsprop import RMSprop
from hookgrad.optim.rprop import Rprop
from hookgrad.optim.sgd import SGD
from hookgrad.optim.sparse_adam import SparseAdam
from hookgrad.optim.stateless import swap_in_optimizer_params_and_state

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
    "swap_in_optimizer_params_and_state",
]
