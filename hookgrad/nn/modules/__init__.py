"""All layers, re-exported by ``hookgrad.nn``: one module per family."""

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

__all__ = ["Module"]
