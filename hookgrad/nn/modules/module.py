"""``Module``, the base class of every layer: registration of parameters, buffers and
submodules, their traversal, state (``state_dict``, dtype conversion, train/eval), the
repr, and the hook registration API. The hook *dispatch* of a call lives in
``hookgrad.nn.modules._hooks``, one small helper per phase.

The global hooks (``register_module_forward_hook`` ...) apply to every module and fire
before the module's own; they are defined in ``global_hooks`` and exported from here, where
torch has them.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hookgrad import grad_mode
from hookgrad.hooks import HookDict, RemovableHandle
from hookgrad.nn.modules import _hooks
from hookgrad.nn.modules.global_hooks import (
    register_module_backward_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from hookgrad.nn.parameter import Parameter, is_buffer
from hookgrad.tensor import Tensor, dtypes
from hookgrad.tensor.device import check_device, device
from hookgrad.toplevel import typename

__all__ = [
    "Module",
    "register_module_backward_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the missing and the unexpected keys."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# The hook dicts of every module, and what their hooks are registered on.
_HOOK_DICTS = {
    "_forward_pre_hooks": "module_forward_pre",
    "_forward_pre_hooks_with_kwargs": "module_forward_pre",
    "_forward_hooks": "module_forward",
    "_forward_hooks_with_kwargs": "module_forward",
    "_forward_hooks_always_called": "module_forward",
    "_backward_pre_hooks": "module_backward_pre",
    "_backward_hooks": "module_backward",
    "_parameter_grad_hooks": "param_grad",
}


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first by ``spaces``."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    return "\n".join([first, *(" " * spaces + line for line in rest)])


class Module:
    """Base class for layers.

    Assigning a ``Parameter``, a ``Module`` or a ``Buffer`` to an attribute registers it
    (``register_buffer`` registers a plain tensor). A subclass calls
    ``super().__init__()`` first and defines ``forward``; calling the module runs its
    hooks around ``forward``. Example::

        class Scale(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(hookgrad.ones(3))

            def forward(self, x):
                return x * self.weight
    """

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        if args:
            raise TypeError(
                f"{name}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        if kwargs:
            raise TypeError(
                f"{name}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
            )
        state = {
            "training": True,
            "_parameters": OrderedDict(),
            "_buffers": OrderedDict(),
            "_non_persistent_buffers_set": set(),
            "_modules": OrderedDict(),
            **{name: HookDict(kind) for name, kind in _HOOK_DICTS.items()},
        }
        self.__dict__.update(state)

    def __getstate__(self) -> dict[str, Any]:
        # NOTE: the hook dicts pickle as torch's, OrderedDicts, so that ``torch.load`` of a
        # whole saved module needs only the module classes allowed (``weights_only``).
        state = dict(self.__dict__)
        for name in _HOOK_DICTS:
            if name in state:
                state[name] = OrderedDict(state[name])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name, kind in _HOOK_DICTS.items():
            hooks = HookDict(kind)
            hooks.update(state.get(name, ()))
            self.__dict__[name] = hooks

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of the module; subclasses define it. Call the module, not
        ``forward``: calling ``forward`` directly runs no hooks."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or self._parameter_grad_hooks
            or _hooks.any_global_hooks()
        ):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    # -- attributes -----------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_name(name, "__dict__", "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_name(name, "__dict__", "_parameters", "_buffers")
            modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules[name] = value
        elif is_buffer(value) or name in self.__dict__.get("_buffers", ()):
            self._assign_buffer(name, value)
        else:
            object.__setattr__(self, name, value)

    def _assign_buffer(self, name: str, value: Any) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"cannot assign '{typename(value)}' as buffer '{name}' "
                "(torch.nn.Buffer, torch.Tensor or None expected)"
            )
        if is_buffer(value):
            persistent = value.__dict__.pop("_buffer_persistent")
            del value.__dict__["_is_buffer"]
        else:
            persistent = name not in self.__dict__.get("_non_persistent_buffers_set", ())
        self.__dict__.pop(name, None)
        self.register_buffer(name, value, persistent)

    def _remove_name(self, name: str, *stores: str) -> None:
        for store in stores:
            values = self.__dict__ if store == "__dict__" else self.__dict__[store]
            values.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: parameters, buffers and submodules.
        for store in ("_parameters", "_buffers", "_modules"):
            values = self.__dict__.get(store)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = [
            *dir(type(self)),
            *self.__dict__,
            *self._parameters,
            *self._modules,
            *self._buffers,
        ]
        return sorted(key for key in keys if not key[0].isdigit())

    # -- registration ---------------------------------------------------------------------
    def _check_new_name(self, kind: str, name: Any, store: str) -> None:
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a ``Parameter`` or None) as the parameter ``name``.

        Example: ``module.register_parameter("scale", nn.Parameter(hookgrad.ones(1)))``.
        """
        self._check_new_name("parameter", name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add ``tensor`` as the buffer ``name``: module state that is not a parameter
        (e.g. running statistics). ``persistent=False`` leaves it out of ``state_dict``.

        Example: ``self.register_buffer("running_mean", hookgrad.zeros(4))``.
        """
        self._check_new_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add ``module`` (or None) as the submodule ``name``.

        Example: ``model.add_module("head", nn.Linear(4, 2))``.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""``: this module).

        Example: ``model.get_submodule("encoder.0")``.
        """
        module = self
        if target == "":
            return module
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``, e.g. ``"encoder.0.weight"``."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``, e.g. ``"bn.running_mean"``."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return module._buffers[name]

    # -- traversal ------------------------------------------------------------------------
    def _named_members(
        self,
        members: Callable[[Module], Any],
        prefix: str,
        recurse: bool,
        remove_duplicate: bool,
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        if recurse:
            modules: Any = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs, this module's first, then its
        submodules' (``recurse``); a shared parameter once (``remove_duplicate``).

        Example: ``[n for n, _ in nn.Linear(2, 3).named_parameters()]`` is
        ``['weight', 'bias']``.
        """
        return self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters, in ``named_parameters`` order (e.g. for an optimizer)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs, like ``named_parameters``."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers, in ``named_buffers`` order."""
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for the direct submodules (each once)."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct submodules."""
        for _, module in self.named_children():
            yield module

    def named_modules(
        self, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module (name ``prefix``) and every module
        below it, depth first; a module reachable twice is listed once.

        Example: ``[n for n, _ in nn.Sequential(nn.Linear(1, 1)).named_modules()]`` is
        ``['', '0']``.
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(
                memo, prefix + ("." if prefix else "") + name, remove_duplicate
            )

    def modules(self) -> Iterator[Module]:
        """This module and every module below it (``named_modules`` order)."""
        for _, module in self.named_modules():
            yield module

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule (children first, recursively) and then on
        ``self``; returns ``self``. Example: ``model.apply(init_weights)``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- state ----------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=True``) or evaluation mode on this module and all
        submodules; returns ``self``. Affects e.g. ``Dropout`` and ``BatchNorm``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``self.train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter (e.g. ``False`` to freeze the module);
        returns ``self``."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None (default) or to zeros."""
        for param in self.parameters():
            grad = param._grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def _local_state(self) -> Iterator[tuple[str, Tensor]]:
        """This module's parameters and persistent buffers (not None)."""
        for name, param in self._parameters.items():
            if param is not None:
                yield name, param
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                yield name, buffer

    def state_dict(
        self, *, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Tensor]:
        """An ordered dict of every parameter and persistent buffer by dotted name,
        detached unless ``keep_vars``. Example::

            hookgrad.save(model.state_dict(), "model.pt")
        """
        if destination is None:
            destination = OrderedDict()
        for name, value in self._local_state():
            destination[prefix + name] = value if keep_vars else value.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` into this module.

        ``strict``: missing or unexpected keys are an error (else only reported).
        ``assign``: take the given tensors instead of copying into the existing ones.
        Returns ``(missing_keys, unexpected_keys)``. A shape mismatch is always an error.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        for prefix, module in self.named_modules(remove_duplicate=False):
            module_prefix = prefix + "." if prefix else ""
            module._load_local_state(state_dict, module_prefix, assign, missing, errors)
            unexpected.extend(module._unexpected_keys(state_dict, module_prefix))
        if strict:
            if unexpected:
                keys = ", ".join(f'"{key}"' for key in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{key}"' for key in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def _load_local_state(
        self,
        state_dict: Mapping[str, Any],
        prefix: str,
        assign: bool,
        missing: list[str],
        errors: list[str],
    ) -> None:
        for name, current in self._local_state():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if current.dim() == 0 and value.dim() == 1:
                value = value[0]  # checkpoints from before 0-dim tensors
            if value.shape != current.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{value.shape!r} from checkpoint, the shape in current model is "
                    f"{current.shape!r}."
                )
                continue
            if assign:
                if isinstance(current, Parameter) and not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=current.requires_grad)
                setattr(self, name, value)
                continue
            with grad_mode.no_grad():
                current.copy_(value)

    def _unexpected_keys(self, state_dict: Mapping[str, Any], prefix: str) -> Iterator[str]:
        local = {name for name, _ in self._local_state()}
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            first, dot, _ = key[len(prefix) :].partition(".")
            if (dot and first not in self._modules) or (not dot and first not in local):
                yield key

    # -- dtype conversion -----------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Convert every parameter (in place: the same ``Parameter`` objects), its
        gradient, and every buffer with ``fn``; recursively; returns ``self``."""
        for module in self.children():
            module._apply(fn)
        with grad_mode.no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                param.data = fn(param)
                if param._grad is not None:
                    param._grad = fn(param._grad)
            for name, buffer in self._buffers.items():
                if buffer is not None:
                    self._buffers[name] = fn(buffer)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Convert floating-point (and complex) parameters and buffers to a dtype:
        ``to(dtype)``, ``to(tensor)``, ``to(device, dtype)``, ``to(dtype=...)``.
        Integer buffers keep their dtype; a device changes nothing (only the CPU exists).
        Example: ``model.to(hookgrad.float64)``.
        """
        dtype = kwargs.pop("dtype", None)
        check_device(kwargs.pop("device", None))
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, (str, device, int)) and not isinstance(arg, bool) or arg is None:
                check_device(arg)
            else:
                dtype = arg
        if dtype is None:
            return self
        dtype = dtypes.to_dtype(dtype)
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            return t.to(dtype) if t.is_floating_point() or t.is_complex() else t

        return self._apply(convert)

    def float(self) -> Module:
        """Floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type: Any) -> Module:
        """Every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> Module:
        """``self``: everything lives on the CPU."""
        return self

    def share_memory(self) -> Module:
        """Move every parameter and buffer into shared memory (``Tensor.share_memory_``), so
        that processes started afterwards (``hookgrad.multiprocessing``) update the same
        weights, as Hogwild training does."""
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device: Any = None) -> Module:
        """Move to a CUDA device: fails as in a CPU-only torch
        (``AssertionError: Torch not compiled with CUDA enabled``)."""
        check_device("cuda" if device is None else device)
        return self

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """``torch.compile`` in place: accepted, and changes nothing (hookgrad runs the
        module as written; see ``hookgrad.compile``)."""

    # -- repr -----------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings for its repr (one line, or several); subclasses
        override it, e.g. Linear returns ``in_features=2, out_features=3, bias=True``."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({name}): " + _addindent(repr(module), 2) for name, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if len(extra_lines) == 1 and not child_lines:
            text += extra_lines[0]
        elif lines:
            text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    # -- hooks ----------------------------------------------------------------------------
    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, args)`` to run before every ``forward`` call.

        ``args`` is the tuple of positional arguments. Returning a value replaces them
        (a non-tuple becomes a 1-tuple). With ``with_kwargs=True`` the hook is
        ``hook(module, args, kwargs)`` and may return ``(new_args, new_kwargs)``.
        ``prepend=True`` runs it before the hooks registered so far (global hooks still
        run first). Example::

            model.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        """
        return _hooks.add_hook(
            self._forward_pre_hooks,
            hook,
            prepend,
            [(self._forward_pre_hooks_with_kwargs, with_kwargs)],
        )

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Register ``hook(module, args, output)`` to run after every ``forward`` call.

        ``args`` are the positional arguments ``forward`` received. Returning a value
        replaces the output. With ``with_kwargs=True`` the hook is
        ``hook(module, args, kwargs, output)``. ``always_call=True`` runs it even when
        ``forward`` raised (``output`` is then None, and an error of the hook itself
        becomes a warning). ``prepend=True`` runs it before the hooks registered so far.
        Example (record every layer's output)::

            outputs = {}
            for name, layer in model.named_children():
                layer.register_forward_hook(lambda m, a, out, n=name: outputs.update({n: out}))
        """
        return _hooks.add_hook(
            self._forward_hooks,
            hook,
            prepend,
            [
                (self._forward_hooks_with_kwargs, with_kwargs),
                (self._forward_hooks_always_called, always_call),
            ],
        )

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, grad_output)``, called once per module call in each
        backward pass, when the gradients w.r.t. the module's outputs are known.

        ``grad_output`` has one entry per output (None where an output is not a tensor or
        gets no gradient). Returning a tuple of the same length replaces ``grad_output``
        for the rest of the backward pass. Example (clip what enters the block)::

            block.register_full_backward_pre_hook(lambda m, go: (go[0].clamp(-1, 1),))
        """
        return _hooks.add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, grad_input, grad_output)``, called once per module call
        in each backward pass, after the gradients w.r.t. the module's inputs are computed.

        ``grad_input`` has one entry per positional argument of ``forward`` (None for
        non-tensors; zeros for a tensor that gets no gradient); ``grad_output`` one per
        output. Returning a tuple of the same length replaces ``grad_input``. If no input
        requires grad, the hook runs as soon as ``grad_output`` is known, with
        ``grad_input`` all None (and must return None). The module's outputs are returned
        unchanged (not as views), so they may be modified in place. Example::

            layer.register_full_backward_hook(lambda m, gi, go: print(gi[0].norm()))
        """
        return _hooks.add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register ``hook(module, grad_input, grad_output)``: the same as
        :meth:`register_full_backward_hook` (hookgrad has one meaning for every module;
        torch's legacy hook reported the grads of the module's last op instead).

        Example: ``layer.register_backward_hook(lambda m, gi, go: print(go[0].shape))``.
        """
        return self.register_full_backward_hook(hook)

    def register_parameter_grad_hook(
        self, hook: Callable[..., Any], *, recurse: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, param_grads)``, called once per module call in each
        backward pass, after the gradients of all parameters that call used are computed
        and before they are accumulated into ``.grad``.

        ``param_grads`` is a dict ``{name: grad}`` of the module's own parameters
        (``recurse=True``: also its submodules', by dotted name) that received a
        gradient, each of the parameter's shape (summed over the batch). Returning a dict
        replaces the gradients of the names it holds. Example (per-layer clipping)::

            layer.register_parameter_grad_hook(
                lambda m, grads: {n: g.clamp(-0.1, 0.1) for n, g in grads.items()}
            )
        """
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {type(hook).__name__}")
        handle = RemovableHandle(self._parameter_grad_hooks)
        self._parameter_grad_hooks[handle.id] = (hook, recurse)
        return handle
