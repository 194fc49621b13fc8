"""``hookgrad.functional``: torch's ``torch.functional`` module, the tensor functions
torch writes in Python (``einsum``, ``split``, ``norm``, ``stft``, ``unique``,
``meshgrid``, ``tensordot``, ``cdist``, ``atleast_*d`` ...). Each is hookgrad's own
function of the same name (``hookgrad.functional.einsum is hookgrad.einsum``).

Example::

    from hookgrad.functional import einsum
    einsum("ij,jk->ik", a, b)
"""

from hookgrad.linalg.lowrank import pca_lowrank, svd_lowrank
from hookgrad.linalg.toplevel import cdist, chain_matmul, lu
from hookgrad.nn.functional.utils import (  # noqa: F401  (torch.functional has them too)
    Tensor,
    boolean_dispatch,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from hookgrad.tensor.functions.einsum import einsum
from hookgrad.tensor.functions.joining import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    cartesian_prod,
    meshgrid,
    split,
)
from hookgrad.tensor.functions.linalg import norm, tensordot
from hookgrad.tensor.functions.positions import unravel_index
from hookgrad.tensor.functions.shape import broadcast_shapes, broadcast_tensors
from hookgrad.tensor.functions.sorting import unique, unique_consecutive
from hookgrad.tensor.functions.stft import istft, stft

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "block_diag",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "lu",
    "norm",
    "meshgrid",
    "pca_lowrank",
    "split",
    "stft",
    "svd_lowrank",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]
