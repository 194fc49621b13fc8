"""``hookgrad.nn``: modules, parameters, the functional API, initialisation and utilities."""

from hookgrad.nn import functional, init, utils
from hookgrad.nn.modules import *  # noqa: F403
from hookgrad.nn.modules import Module
from hookgrad.nn.parameter import Parameter

__all__ = ["Module", "Parameter", "functional", "init", "utils"]
