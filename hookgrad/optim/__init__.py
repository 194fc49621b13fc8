"""``hookgrad.optim``: optimizers (one per file) and learning-rate schedulers."""

from hookgrad.optim import lr_scheduler
from hookgrad.optim.adagrad import Adagrad
from hookgrad.optim.adam import Adam
from hookgrad.optim.adamw import AdamW
from hookgrad.optim.optimizer import Optimizer
from hookgrad.optim.rmsprop import RMSprop
from hookgrad.optim.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
