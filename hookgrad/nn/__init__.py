"""``hookgrad.nn``: modules, parameters, the functional API, initialisation and utilities."""

from hookgrad.nn import functional, init, modules, parallel, utils
from hookgrad.nn.modules import *  # noqa: F403
from hookgrad.nn.parallel import DataParallel
from hookgrad.nn.parameter import Buffer, Parameter

__all__ = [
    "Buffer",
    "DataParallel",
    "Parameter",
    "functional",
    "init",
    "modules",
    "parallel",
    "utils",
    *modules.__all__,
]
