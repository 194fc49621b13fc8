"""All layers, re-exported by ``hookgrad.nn``: one module per family."""

from hookgrad.nn.modules import (
    activation,
    adaptive,
    attention,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from hookgrad.nn.modules.activation import *  # noqa: F403
from hookgrad.nn.modules.adaptive import *  # noqa: F403
from hookgrad.nn.modules.attention import *  # noqa: F403
from hookgrad.nn.modules.channelshuffle import *  # noqa: F403
from hookgrad.nn.modules.container import *  # noqa: F403
from hookgrad.nn.modules.conv import *  # noqa: F403
from hookgrad.nn.modules.distance import *  # noqa: F403
from hookgrad.nn.modules.dropout import *  # noqa: F403
from hookgrad.nn.modules.flatten import *  # noqa: F403
from hookgrad.nn.modules.fold import *  # noqa: F403
from hookgrad.nn.modules.linear import *  # noqa: F403
from hookgrad.nn.modules.loss import *  # noqa: F403
from hookgrad.nn.modules.module import Module
from hookgrad.nn.modules.normalization import *  # noqa: F403
from hookgrad.nn.modules.padding import *  # noqa: F403
from hookgrad.nn.modules.pixelshuffle import *  # noqa: F403
from hookgrad.nn.modules.pooling import *  # noqa: F403
from hookgrad.nn.modules.rnn import *  # noqa: F403
from hookgrad.nn.modules.sparse import *  # noqa: F403
from hookgrad.nn.modules.transformer import *  # noqa: F403
from hookgrad.nn.modules.upsampling import *  # noqa: F403

__all__ = [
    "Module",
    *activation.__all__,
    *adaptive.__all__,
    *attention.__all__,
    *channelshuffle.__all__,
    *container.__all__,
    *conv.__all__,
    *distance.__all__,
    *dropout.__all__,
    *flatten.__all__,
    *fold.__all__,
    *linear.__all__,
    *loss.__all__,
    *normalization.__all__,
    *padding.__all__,
    *pixelshuffle.__all__,
    *pooling.__all__,
    *rnn.__all__,
    *sparse.__all__,
    *transformer.__all__,
    *upsampling.__all__,
]
