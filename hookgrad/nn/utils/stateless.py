"""``functional_call``: call a module with some of its parameters and buffers replaced by
given tensors, for that call only (torch's ``nn.utils.stateless``; deprecated there in
favour of ``torch.func.functional_call``, and it warns as torch's).

The given tensors take the place of the module's own (by dotted name) while the module
runs, so gradients flow to them; afterwards the originals are put back. With
``tie_weights`` a tensor given for one of several names sharing a parameter (tied
weights) is used for all of them; ``strict`` requires a tensor for every parameter and
buffer, and no other.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hookgrad.nn.modules.module import Module
from hookgrad.nn.parallel import DataParallel
from hookgrad.tensor import Tensor

__all__ = ["functional_call"]

_MISSING: Any = object()


def _named_tensors(module: Module) -> dict[str, Tensor]:
    """Every parameter and buffer by dotted name, tied ones under each of their names."""
    tensors = dict(module.named_parameters(remove_duplicate=False))
    tensors.update(module.named_buffers(remove_duplicate=False))
    return tensors


def _untie_named_tensors_map(module: Module, given: dict[str, Tensor]) -> dict[str, Tensor]:
    """``given`` with each tensor given for one name of a tied parameter set for all its
    names (torch's error when two names of one tie get different tensors)."""
    names_of: dict[int, set[str]] = {}
    for name, tensor in _named_tensors(module).items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied: dict[str, set[str]] = {}
    for names in names_of.values():
        if len(names) > 1:
            for name in names:
                tied[name] = names
    given_tied = {name for name in given if name in tied}
    for name in given_tied:
        names = tied[name]
        values = {id(given[other]) for other in names if other in given}
        if len(names & given_tied) > 1 and len(values) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are "
                "tied. Consider using tie_weights=False"
            )
    untied = dict(given)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _swap_tensor(module: Module, name: str, tensor: Any) -> Any:
    """Put ``tensor`` (``_MISSING``: nothing) in the place of ``module.<name>`` (a
    parameter, buffer or plain attribute); returns what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for store in (module._parameters, module._buffers):
        if name in store:
            original = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return original
    original = getattr(module, name) if hasattr(module, name) else _MISSING
    if original is not _MISSING and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return original


def _swap_tensors(module: Module, tensors: dict[str, Any]) -> dict[str, Any]:
    """Swap each dotted name of ``tensors`` in; returns the previous values."""
    previous = {}
    for path, tensor in tensors.items():
        prefix, _, name = path.rpartition(".")
        owner = module.get_submodule(prefix) if prefix else module
        previous[path] = _swap_tensor(owner, name, tensor)
    return previous


@contextmanager
def _reparametrize_module(
    module: Module, given: dict[str, Tensor], tie_weights: bool = False, strict: bool = False
) -> Iterator[None]:
    tensors = _untie_named_tensors_map(module, given) if tie_weights else given
    if strict:
        valid = set(_named_tensors(module))
        missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors)
            )
    originals: dict[str, Any] = {}
    try:
        originals = _swap_tensors(module, tensors)
        yield
    finally:
        current = _swap_tensors(module, originals)
        given.update({key: current[key] for key in given if key in current})


def functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameters_and_buffers`` replaced by the given tensors for this call (a single
    ``args`` that is not a tuple is one argument).

    Example::

        params = {name: p.detach().requires_grad_() for name, p in model.named_parameters()}
        out = nn.utils.stateless.functional_call(model, params, (x,))
        out.sum().backward()   # gradients in params, not in model
    """
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )


def _functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``functional_call`` without the deprecation warning: ``hookgrad.func``'s too."""
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)
