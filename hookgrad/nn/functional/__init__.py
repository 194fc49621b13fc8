"""``hookgrad.nn.functional``: the functional form of every layer, one module per family."""

from hookgrad.nn import grad
from hookgrad.nn.functional.activation import *  # noqa: F403
from hookgrad.nn.functional.adaptive_pooling import *  # noqa: F403
from hookgrad.nn.functional.attention import *  # noqa: F403
from hookgrad.nn.functional.conv import *  # noqa: F403
from hookgrad.nn.functional.ctc_loss import *  # noqa: F403
from hookgrad.nn.functional.distance import *  # noqa: F403
from hookgrad.nn.functional.dropout import *  # noqa: F403
from hookgrad.nn.functional.embedding import *  # noqa: F403
from hookgrad.nn.functional.linear import *  # noqa: F403
from hookgrad.nn.functional.loss import *  # noqa: F403
from hookgrad.nn.functional.margin_loss import *  # noqa: F403
from hookgrad.nn.functional.normalization import *  # noqa: F403
from hookgrad.nn.functional.one_hot import *  # noqa: F403
from hookgrad.nn.functional.pooling import *  # noqa: F403
from hookgrad.nn.functional.unpooling import *  # noqa: F403
from hookgrad.nn.functional.utils import *  # noqa: F403
from hookgrad.nn.functional.vision import *  # noqa: F403
from hookgrad.tensor.functions.padding import pad

__all__ = ["grad", "pad"]
