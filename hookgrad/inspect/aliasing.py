"""``import torch`` gives hookgrad: the module aliases the inspector installs around a
script.

``torch`` is hookgrad itself and ``torch.X`` is ``hookgrad.X``, the same module objects
(so ``isinstance`` checks and module state agree whichever name a script uses);
``torchvision`` is ``hookgrad.vision`` and ``torchvision.X`` is ``hookgrad.vision.X``. A
``torch.X`` (or ``torchvision.X``) that hookgrad does not have raises
:class:`MissingAPI`, a ``ModuleNotFoundError`` that names it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import hookgrad

__all__ = ["ALIASES", "MissingAPI", "public_name", "torch_is_hookgrad"]

# (the name a script imports, the hookgrad package it gets); the longer name first.
ALIASES = (("torchvision", "hookgrad.vision"), ("torch", "hookgrad"))


class MissingAPI(ModuleNotFoundError):
    """The script imported a part of torch that hookgrad does not have."""


class _Alias(importlib.abc.Loader):
    """Loads ``torch.X`` as the already imported ``hookgrad.X``."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        # NOTE: the import system has just set the module's ``__spec__`` to the alias's;
        # hookgrad's own name stays the module's identity.
        module.__spec__ = self.spec


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Finds ``torch``, ``torchvision`` and their submodules as hookgrad's modules."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        real = _hookgrad_name(fullname)
        if real is None:
            return None
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as error:
            if error.name is not None and (real + ".").startswith(error.name + "."):
                raise MissingAPI(
                    f"No module named '{fullname}' in hookgrad", name=fullname
                ) from None
            raise
        return importlib.machinery.ModuleSpec(fullname, _Alias(module))


def public_name(name: str) -> str:
    """The name a torch script knows a hookgrad module by: ``hookgrad.nn`` is
    ``torch.nn``, ``hookgrad.vision.datasets`` is ``torchvision.datasets``.

    Example::

        public_name("hookgrad.vision.transforms")   # 'torchvision.transforms'
    """
    for alias, real in ALIASES:
        if name == real or name.startswith(real + "."):
            return alias + name[len(real) :]
    return name


def _hookgrad_name(fullname: str) -> str | None:
    """``hookgrad.X`` for ``torch.X``, ``hookgrad.vision.X`` for ``torchvision.X``, None
    for any other module."""
    for alias, real in ALIASES:
        if fullname == alias or fullname.startswith(alias + "."):
            return real + fullname[len(alias) :]
    return None


@contextmanager
def torch_is_hookgrad() -> Iterator[None]:
    """Within the block, ``import torch`` (and every ``torch.*``) imports hookgrad, and
    ``import torchvision`` (every ``torchvision.*``) imports ``hookgrad.vision``.

    The modules a real torch or torchvision left in ``sys.modules`` are hidden for the
    block and put back after it. Example::

        with torch_is_hookgrad():
            F = importlib.import_module("torch.nn.functional")  # hookgrad.nn.functional
    """
    hidden = {name: module for name, module in sys.modules.items() if _is_torch(name)}
    for name in hidden:
        del sys.modules[name]
    sys.modules["torch"] = hookgrad
    for name, module in list(sys.modules.items()):
        if name.startswith("hookgrad.") and module is not None:
            sys.modules["torch" + name[len("hookgrad") :]] = module
            if name == "hookgrad.vision" or name.startswith("hookgrad.vision."):
                sys.modules[public_name(name)] = module
    finder = _TorchFinder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [name for name in sys.modules if _is_torch(name)]:
            del sys.modules[name]
        sys.modules.update(hidden)


def _is_torch(name: str) -> bool:
    return _hookgrad_name(name) is not None
