"""``hookgrad.func``: torch's ``torch.func``, function transforms that compose.

``vmap`` maps a function of one example over a batch, computing every op for the whole
batch through its batching rule (``hookgrad.func.batching``); ``grad``,
``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and
``linearize`` differentiate functions (``hookgrad.func.transforms``); ``functional_call``
and ``stack_module_state`` make modules functions of their parameters; ``rearrange``,
``debug_unwrap``, ``replace_all_batch_norm_modules_`` and ``functionalize`` complete
torch's namespace. Example (per-example gradients)::

    from hookgrad.func import functional_call, grad, vmap

    def loss(params, x, y):
        return F.cross_entropy(functional_call(model, params, (x[None],)), y[None])

    grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
"""

from hookgrad.func import numpy_api  # noqa: F401 (installs BatchedArray's NumPy protocols)
from hookgrad.func.functional_call import functional_call, stack_module_state
from hookgrad.func.rearrange import rearrange
from hookgrad.func.transforms import (
    functionalize,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    vjp,
)
from hookgrad.func.utils import debug_unwrap, replace_all_batch_norm_modules_
from hookgrad.func.vmap import vmap

__all__ = [
    "debug_unwrap",
    "functional_call",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "rearrange",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
