"""hookgrad: reverse-mode autograd on NumPy with PyTorch's API and a complete hook system.

Use it as a drop-in for PyTorch's tensor and autograd API::

    import hookgrad as torch

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.register_hook(lambda g: print("x grad:", g))
    y.backward()
"""

# ruff: noqa: F401  (this module re-exports the public API)

import math as _math
import sys as _sys

# torch's small modules that libraries import at load time
from hookgrad import (
    accelerator,
    amp,
    autograd,
    backends,
    cpu,
    cuda,
    distributed,
    distributions,
    fft,
    func,
    functional,
    futures,
    linalg,
    mps,
    multiprocessing,
    nn,
    optim,
    overrides,
    profiler,
    quasirandom,
    return_types,
    serialization,
    signal,
    special,
    storage,
    testing,
    torch_version,
    types,
    utils,
    version,
)
from hookgrad.amp import GradScaler
from hookgrad.amp.autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled
from hookgrad.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from hookgrad.backends._settings import (
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_num_threads,
    use_deterministic_algorithms,
)
from hookgrad.compiler import compile  # noqa: A004 (torch's name)
from hookgrad.distributions._functions import (
    _dirichlet_grad,
    _sample_dirichlet,
    _standard_gamma,
    _standard_gamma_grad,
)
from hookgrad.func import vmap
from hookgrad.futures import Future
from hookgrad.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

# torch-level forms of nn's activations (torch.selu, torch.prelu ...)
from hookgrad.nn.functional.activation import (
    celu,
    celu_,
    hardshrink,
    prelu,
    rrelu,
    rrelu_,
    selu,
    selu_,
    threshold,
    threshold_,
)
from hookgrad.nn.functional.adaptive_pooling import adaptive_avg_pool1d
from hookgrad.nn.functional.adaptive_pooling import (
    adaptive_max_pool1d_with_indices as adaptive_max_pool1d,
)
from hookgrad.nn.functional.conv import (
    conv1d,
    conv2d,
    conv3d,
    conv_tbc,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    convolution,
)
from hookgrad.nn.functional.ctc_loss import torch_ctc_loss as ctc_loss
from hookgrad.nn.functional.distance import cosine_similarity, pairwise_distance
from hookgrad.nn.functional.dropout import torch_alpha_dropout as alpha_dropout
from hookgrad.nn.functional.dropout import torch_alpha_dropout_ as alpha_dropout_
from hookgrad.nn.functional.dropout import torch_dropout as dropout
from hookgrad.nn.functional.dropout import torch_dropout_ as dropout_
from hookgrad.nn.functional.dropout import torch_feature_alpha_dropout as feature_alpha_dropout
from hookgrad.nn.functional.dropout import (
    torch_feature_alpha_dropout_ as feature_alpha_dropout_,
)
from hookgrad.nn.functional.dropout import torch_feature_dropout as feature_dropout
from hookgrad.nn.functional.dropout import torch_feature_dropout_ as feature_dropout_
from hookgrad.nn.functional.dropout import torch_native_dropout as native_dropout
from hookgrad.nn.functional.embedding import torch_embedding as embedding
from hookgrad.nn.functional.embedding import torch_embedding_bag as embedding_bag
from hookgrad.nn.functional.embedding import torch_embedding_renorm_ as embedding_renorm_
from hookgrad.nn.functional.linear import bilinear
from hookgrad.nn.functional.loss import (
    torch_binary_cross_entropy_with_logits as binary_cross_entropy_with_logits,
)
from hookgrad.nn.functional.loss import torch_kl_div as kl_div
from hookgrad.nn.functional.loss import torch_poisson_nll_loss as poisson_nll_loss
from hookgrad.nn.functional.margin_loss import (
    torch_cosine_embedding_loss as cosine_embedding_loss,
)
from hookgrad.nn.functional.margin_loss import torch_hinge_embedding_loss as hinge_embedding_loss
from hookgrad.nn.functional.margin_loss import torch_margin_ranking_loss as margin_ranking_loss
from hookgrad.nn.functional.margin_loss import torch_triplet_margin_loss as triplet_margin_loss
from hookgrad.nn.functional.normalization import rms_norm
from hookgrad.nn.functional.normalization import torch_batch_norm as batch_norm
from hookgrad.nn.functional.normalization import torch_group_norm as group_norm
from hookgrad.nn.functional.normalization import torch_instance_norm as instance_norm
from hookgrad.nn.functional.normalization import torch_layer_norm as layer_norm
from hookgrad.nn.functional.normalization import torch_native_batch_norm as native_batch_norm
from hookgrad.nn.functional.normalization import torch_native_group_norm as native_group_norm
from hookgrad.nn.functional.normalization import torch_native_layer_norm as native_layer_norm
from hookgrad.nn.functional.normalization import torch_norm_except_dim as norm_except_dim
from hookgrad.nn.functional.normalization import torch_weight_norm as _weight_norm
from hookgrad.nn.functional.pooling import (  # torch.max_pool2d, torch.avg_pool1d ...
    avg_pool1d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool3d,
)
from hookgrad.nn.functional.rnn import (  # torch.lstm, torch.gru_cell ...
    gru,
    gru_cell,
    lstm,
    lstm_cell,
    rnn_relu,
    rnn_relu_cell,
    rnn_tanh,
    rnn_tanh_cell,
)
from hookgrad.nn.functional.vision import (
    affine_grid_generator,
    channel_shuffle,
    constant_pad_nd,
    grid_sampler,
    grid_sampler_2d,
    grid_sampler_3d,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
)
from hookgrad.serialization import load, save
from hookgrad.signal import windows
from hookgrad.storage import StorageBase
from hookgrad.tensor import random
from hookgrad.tensor.creation import (
    as_tensor,
    empty,
    empty_like,
    empty_permuted,
    empty_strided,
    eye,
    from_numpy,
    full,
    full_like,
    is_complex,
    is_floating_point,
    is_tensor,
    numel,
    ones,
    ones_like,
    scalar_tensor,
    tensor,
    zeros,
    zeros_like,
)
from hookgrad.tensor.device import device, get_default_device, get_device, set_default_device
from hookgrad.tensor.dtypes import bool_ as bool  # noqa: A001 (torch's name)
from hookgrad.tensor.dtypes import (
    can_cast,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
)
from hookgrad.tensor.formatting import get_printoptions, set_printoptions

# Each op family's public functions (its ``__all__``): hookgrad.exp, hookgrad.sum, ...
from hookgrad.tensor.functions.arithmetic import *  # noqa: F403
from hookgrad.tensor.functions.as_strided import *  # noqa: F403
from hookgrad.tensor.functions.comparison import *  # noqa: F403
from hookgrad.tensor.functions.conversion import *  # noqa: F403
from hookgrad.tensor.functions.differences import *  # noqa: F403
from hookgrad.tensor.functions.einsum import *  # noqa: F403
from hookgrad.tensor.functions.flags import *  # noqa: F403
from hookgrad.tensor.functions.generated import *  # noqa: F403
from hookgrad.tensor.functions.index_functions import *  # noqa: F403
from hookgrad.tensor.functions.indexing import *  # noqa: F403
from hookgrad.tensor.functions.inplace import *  # noqa: F403
from hookgrad.tensor.functions.joining import *  # noqa: F403
from hookgrad.tensor.functions.linalg import *  # noqa: F403
from hookgrad.tensor.functions.linalg_inplace import *  # noqa: F403
from hookgrad.tensor.functions.pointwise import *  # noqa: F403
from hookgrad.tensor.functions.positions import *  # noqa: F403
from hookgrad.tensor.functions.reduction import *  # noqa: F403
from hookgrad.tensor.functions.restride import *  # noqa: F403
from hookgrad.tensor.functions.sampling import *  # noqa: F403
from hookgrad.tensor.functions.shape import *  # noqa: F403
from hookgrad.tensor.functions.sorting import *  # noqa: F403
from hookgrad.tensor.functions.statistics import *  # noqa: F403
from hookgrad.tensor.functions.stft import *  # noqa: F403
from hookgrad.tensor.functions.unary import *  # noqa: F403
from hookgrad.tensor.functions.view_copies import *  # noqa: F403
from hookgrad.tensor.layout import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    legacy_contiguous_format,
    memory_format,
    preserve_format,
    strided,
)
from hookgrad.tensor.legacy import CPU_TYPES, set_default_tensor_type
from hookgrad.tensor.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from hookgrad.tensor.ranges import (
    arange,
    linspace,
    logspace,
    range,  # noqa: A004 (torch's name)
    tril_indices,
    triu_indices,
)
from hookgrad.tensor.sharing import asarray, frombuffer
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor
from hookgrad.tensor.window_functions import (
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)
from hookgrad.toplevel import (
    AcceleratorError,
    Event,
    FatalError,
    JITException,
    OutOfMemoryError,
    Stream,
    classproperty,
    get_deterministic_debug_mode,
    get_device_module,
    is_warn_always_enabled,
    matrix_rank,
    native_norm,
    set_deterministic_debug_mode,
    set_warn_always,
    typename,
)

# torch's constants (``torch.pi``, ``x[:, torch.newaxis]``)
e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
newaxis = None
# What this build has: LAPACK and FFTs (through NumPy); not MKL or OpenMP.
has_lapack = True
has_spectral = True
has_mkl = False
has_openmp = False

half = float16
float = float32  # noqa: A001
double = float64
long = int64
short = int16
int = int32  # noqa: A001
cfloat = complex64
cdouble = complex128

# torch's legacy tensor types: FloatTensor, LongTensor ...
BFloat16Tensor = CPU_TYPES["BFloat16Tensor"]
BoolTensor = CPU_TYPES["BoolTensor"]
ByteTensor = CPU_TYPES["ByteTensor"]
CharTensor = CPU_TYPES["CharTensor"]
DoubleTensor = CPU_TYPES["DoubleTensor"]
FloatTensor = CPU_TYPES["FloatTensor"]
HalfTensor = CPU_TYPES["HalfTensor"]
IntTensor = CPU_TYPES["IntTensor"]
LongTensor = CPU_TYPES["LongTensor"]
ShortTensor = CPU_TYPES["ShortTensor"]

__version__ = torch_version.TorchVersion(version.__version__)

# ``hookgrad.overrides`` describes this namespace; it sits below it and is handed it here.
overrides.bind(_sys.modules[__name__])
