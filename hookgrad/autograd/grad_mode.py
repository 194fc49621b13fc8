"""``hookgrad.autograd.grad_mode``: torch's module of the grad modes (``no_grad``,
``enable_grad``, ``set_grad_enabled``, ``inference_mode``, from ``hookgrad.grad_mode``)
and of the engine switches set the same way (``set_multithreading_enabled``,
``enforce_grad_layout_policy``, from ``hookgrad.autograd.modes``).

Example::

    from hookgrad.autograd.grad_mode import no_grad
    with no_grad():
        y = x * 2          # y.requires_grad is False
"""

from hookgrad.autograd.modes import enforce_grad_layout_policy, set_multithreading_enabled
from hookgrad.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = [
    "enable_grad",
    "enforce_grad_layout_policy",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
