"""All layers, re-exported by ``hookgrad.nn``: one module per family."""

from hookgrad.nn.modules import (
    activation,
    container,
    conv,
    dropout,
    flatten,
    linear,
    loss,
    normalization,
    pooling,
    sparse,
)
from hookgrad.nn.modules.activation import *  # noqa: F403
from hookgrad.nn.modules.container import *  # noqa: F403
from hookgrad.nn.modules.conv import *  # noqa: F403
from hookgrad.nn.modules.dropout import *  # noqa: F403
from hookgrad.nn.modules.flatten import *  # noqa: F403
from hookgrad.nn.modules.linear import *  # noqa: F403
from hookgrad.nn.modules.loss import *  # noqa: F403
from hookgrad.nn.modules.module import Module
from hookgrad.nn.modules.normalization import *  # noqa: F403
from hookgrad.nn.modules.pooling import *  # noqa: F403
from hookgrad.nn.modules.sparse import *  # noqa: F403

__all__ = [
    "Module",
    *activation.__all__,
    *container.__all__,
    *conv.__all__,
    *dropout.__all__,
    *flatten.__all__,
    *linear.__all__,
    *loss.__all__,
    *normalization.__all__,
    *pooling.__all__,
    *sparse.__all__,
]
