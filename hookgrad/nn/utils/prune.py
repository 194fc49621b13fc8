"""Pruning, as torch's ``nn.utils.prune``: zero some entries of a parameter through a
mask, kept on the module, that a forward pre-hook applies before every call.

Pruning ``module.weight`` renames the parameter to ``weight_orig``, adds the buffer
``weight_mask`` and registers the pruning method itself as a forward pre-hook, which sets
the plain attribute ``module.weight = weight_mask * weight_orig`` (so gradients reach
``weight_orig`` where the mask is 1). Pruning the same tensor again combines the masks
(a ``PruningContainer``); ``remove`` makes the pruned weight a plain parameter again.
The hooks are ordinary module hooks: ``hookgrad.utils.trace_hooks`` shows them firing,
named after their method (``L1Unstructured`` ...).

Masks are torch's: the smallest magnitudes (``torch.topk``), norms, or random draws from
the default generator (``rand_like``, ``rand``), in torch's order.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

import hookgrad
from hookgrad.nn.modules.module import Module
from hookgrad.nn.utils.convert_parameters import parameters_to_vector
from hookgrad.tensor import Tensor

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` says which entries to keep; as a forward
    pre-hook it sets ``module.<name>`` to the masked original before each call."""

    PRUNING_TYPE: str
    _tensor_name: str | None = None

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t`` (1 keeps an entry, 0 prunes it), given the current
        ``default_mask``."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_mask * <name>_orig`` of ``module`` (recorded for autograd)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(
        cls, module: Module, name: str, *args: Any, importance_scores: Any = None, **kwargs: Any
    ) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, combined with any pruning
        already on it; ``importance_scores`` (of the parameter's shape) rank the entries
        instead of the parameter's values."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = hookgrad.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(
        self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Any = None
    ) -> Tensor:
        """``t`` times its mask (without touching any module)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else hookgrad.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruned tensor permanent: ``<name>`` becomes a parameter holding the
        masked values; ``<name>_orig`` and ``<name>_mask`` go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(
    cls: type[BasePruningMethod], module: Module, name: str, *args: Any, **kwargs: Any
) -> BasePruningMethod:
    """The new method, or a ``PruningContainer`` of it after the method already pruning
    ``name`` (whose hook is taken off ``module``)."""
    old_method = None
    found = 0
    keys = []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            keys.append(key)
            found += 1
    if found > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    for key in keys:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old_method is None:
        return method
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        return old_method
    container = PruningContainer(old_method)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods applied one after another to the same tensor: each
    new one prunes only what the previous ones kept."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Append ``method`` (it must prune the same tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask computed on the entries (or slices) the current mask
        keeps, the others left as they are."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            index: Any = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            keep = default_mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
            index = tuple(keep if d == dim else slice(None) for d in range(ndim))
        elif method.PRUNING_TYPE == "global":
            index = tuple(slice(None) for _ in t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial = method.compute_mask(t[index], default_mask=default_mask[index])
        mask[index] = partial.to(dtype=mask.dtype)
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing (a mask of ones): the module gets the pruning attributes only."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        """Attach an identity pruning to ``module.<name>``."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _compute_nparams_toprune(self.amount, t.nelement())
        _validate_pruning_amount(count, t.nelement())
        mask = default_mask.clone()
        if count != 0:
            scores = hookgrad.rand_like(t)
            mask.view(-1)[hookgrad.topk(scores.view(-1), k=count).indices] = 0
        return mask

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module: Module,
        name: str,
        amount: float,
    ) -> BasePruningMethod:
        """Prune ``module.<name>`` at random."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries (a count, or a fraction) of smallest magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _compute_nparams_toprune(self.amount, t.nelement())
        _validate_pruning_amount(count, t.nelement())
        mask = default_mask.clone()
        if count != 0:
            smallest = hookgrad.topk(hookgrad.abs(t).view(-1), k=count, largest=False)
            mask.view(-1)[smallest.indices] = 0
        return mask

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Module, name: str, amount: float, importance_scores: Any = None
    ) -> BasePruningMethod:
        """Prune the smallest entries of ``module.<name>`` (or of ``importance_scores``)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole slices along ``dim`` (a count, or a fraction) at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        count = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(count, size)
        if count == 0:
            return default_mask
        scores = hookgrad.rand(size)
        threshold = hookgrad.kthvalue(scores, k=count).values
        mask = hookgrad.zeros_like(t)
        mask[_along(t, self.dim, scores > threshold)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Module, name: str, amount: float, dim: int = -1
    ) -> BasePruningMethod:
        """Prune random slices of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` (a count, or a fraction) of smallest
    ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, n: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        count = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(count, size)
        norm = _compute_norm(t, self.n, self.dim)
        largest = hookgrad.topk(norm, k=size - count, largest=True)
        if count == 0:
            return default_mask
        mask = hookgrad.zeros_like(t)
        mask[_along(t, self.dim, largest.indices)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module: Module,
        name: str,
        amount: float,
        n: Any,
        dim: int,
        importance_scores: Any = None,
    ) -> BasePruningMethod:
        """Prune the slices of smallest ``n``-norm of ``module.<name>`` along ``dim``."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes with a given ``mask`` (combined with any existing one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape "
                f"{self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module: Module,
        name: str,
        mask: Tensor,
    ) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``mask``."""
        return super().apply(module, name, mask=mask)


def _along(t: Tensor, dim: int, index: Any) -> tuple[Any, ...]:
    """An index that picks ``index`` along ``dim`` of ``t`` and everything elsewhere."""
    slices: list[Any] = [slice(None)] * len(t.shape)
    slices[dim] = index
    return tuple(slices)


# ---------------------------------------------------------------- functional forms


def identity(module: Module, name: str) -> Module:
    """Attach the pruning attributes to ``module.<name>`` without pruning anything.

    Example: ``prune.identity(nn.Linear(2, 3), "bias")``.
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: float) -> Module:
    """Prune ``amount`` random entries (a count or a fraction) of ``module.<name>``.

    Example: ``prune.random_unstructured(layer, "weight", amount=0.3)``.
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Module, name: str, amount: float, importance_scores: Any = None
) -> Module:
    """Prune the ``amount`` entries of smallest magnitude of ``module.<name>`` (or of
    ``importance_scores``).

    Example: ``prune.l1_unstructured(layer, "weight", amount=0.5)``.
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: float, dim: int) -> Module:
    """Prune ``amount`` random slices of ``module.<name>`` along ``dim``.

    Example: ``prune.random_structured(conv, "weight", amount=2, dim=0)``.
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Module, name: str, amount: float, n: Any, dim: int, importance_scores: Any = None
) -> Module:
    """Prune the ``amount`` slices of smallest ``n``-norm of ``module.<name>`` along
    ``dim``.

    Example: ``prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)``.
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(
    parameters: Iterable[tuple[Module, str]],
    pruning_method: type[BasePruningMethod],
    importance_scores: dict[tuple[Module, str], Tensor] | None = None,
    **kwargs: Any,
) -> None:
    """Prune the ``(module, name)`` tensors of ``parameters`` together, as if they were
    one vector, with the unstructured ``pruning_method`` (``prune.L1Unstructured`` ...,
    its arguments in ``kwargs``).

    Example::

        prune.global_unstructured(
            [(model[0], "weight"), (model[2], "weight")], prune.L1Unstructured, amount=0.2
        )
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector(
        [
            importance_scores.get((module, name), getattr(module, name))
            for module, name in parameters
        ]
    )
    default_mask = parameters_to_vector(
        [
            getattr(module, name + "_mask", hookgrad.ones_like(getattr(module, name)))
            for module, name in parameters
        ]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        count = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer : pointer + count].view_as(param))
        pointer += count


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` with ``mask`` (0 prunes).

    Example: ``prune.custom_from_mask(layer, "bias", mask=hookgrad.tensor([0, 1, 0]))``.
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent and take off its hook.

    Example: ``prune.remove(layer, "weight")``.
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or any submodule carries a pruning hook.

    Example: ``prune.is_pruned(model)``.
    """
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# ---------------------------------------------------------------- validation


def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: Any, dim: int) -> Tensor:
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return hookgrad.norm(t, p=n, dim=dims)
