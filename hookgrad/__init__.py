"""hookgrad: reverse-mode autograd on NumPy with PyTorch's API and a complete hook system.

Use it as a drop-in for PyTorch's tensor and autograd API::

    import hookgrad as torch

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.register_hook(lambda g: print("x grad:", g))
    y.backward()
"""

# ruff: noqa: F401  (this module re-exports the public API)

from hookgrad import (
    accelerator,
    amp,
    autograd,
    backends,
    cpu,
    cuda,
    mps,
    nn,
    optim,
    serialization,
    utils,
    version,
)
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
from hookgrad.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from hookgrad.serialization import load, save
from hookgrad.tensor import random
from hookgrad.tensor.creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    is_complex,
    is_floating_point,
    is_tensor,
    linspace,
    numel,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from hookgrad.tensor.device import device, get_default_device, set_default_device
from hookgrad.tensor.dtypes import bool_ as bool  # noqa: A001 (torch's name)
from hookgrad.tensor.dtypes import (
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
from hookgrad.tensor.functions.conversion import *  # noqa: F403
from hookgrad.tensor.functions.generated import *  # noqa: F403
from hookgrad.tensor.functions.indexing import *  # noqa: F403
from hookgrad.tensor.functions.inplace import *  # noqa: F403
from hookgrad.tensor.functions.joining import *  # noqa: F403
from hookgrad.tensor.functions.linalg import *  # noqa: F403
from hookgrad.tensor.functions.reduction import *  # noqa: F403
from hookgrad.tensor.functions.sampling import *  # noqa: F403
from hookgrad.tensor.functions.shape import *  # noqa: F403
from hookgrad.tensor.functions.unary import *  # noqa: F403
from hookgrad.tensor.layout import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
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
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

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

__version__ = version.__version__
