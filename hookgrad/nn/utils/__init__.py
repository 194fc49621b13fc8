"""``hookgrad.nn.utils``: gradient clipping, parameter/vector conversion, parametrizations
(``parametrize``, ``parametrizations``), pruning, ``stateless.functional_call``, layer
fusion, ``skip_init``, the old weight and spectral norm hooks, and ``rnn``."""

# parametrizations, pruning, stateless calls, fusion; the old weight_norm/spectral_norm
# hooks (their functions take the place of their modules' names, as in torch)
from hookgrad.nn.utils import parametrizations, parametrize, prune, rnn, stateless  # noqa: I001
from hookgrad.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from hookgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from hookgrad.nn.utils.fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from hookgrad.nn.utils.init import skip_init
from hookgrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from hookgrad.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "prune",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]
