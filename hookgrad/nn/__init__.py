"""``hookgrad.nn``: modules, parameters, the functional API, initialisation and utilities."""

from hookgrad.nn import functional, init, modules, utils
from hookgrad.nn.modules import *  # noqa: F403
from hookgrad.nn.parameter import Buffer, Parameter

__all__ = [
    "Buffer",
    "Parameter",
    "functional",
    "init",
    "modules",
    "utils",
    *modules.__all__,
]
