"""``import torch`` gives hookgrad: the module aliases the inspector installs around a
script.

``torch`` is hookgrad itself and ``torch.X`` is ``hookgrad.X``, the same module objects
(so ``isinstance`` checks and module state agree whichever name a script uses). A
``torch.X`` that hookgrad does not have raises :class:`MissingAPI`, a
``ModuleNotFoundError`` that names it.
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

__all__ = ["MissingAPI", "torch_is_hookgrad"]


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
    """Finds ``torch`` and ``torch.*`` as hookgrad's modules."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "hookgrad" + fullname[len("torch") :]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as error:
            if error.name is not None and (real + ".").startswith(error.name + "."):
                raise MissingAPI(
                    f"No module named '{fullname}' in hookgrad", name=fullname
                ) from None
            raise
        return importlib.machinery.ModuleSpec(fullname, _Alias(module))


@contextmanager
def torch_is_hookgrad() -> Iterator[None]:
    """Within the block, ``import torch`` (and every ``torch.*``) imports hookgrad.

    The modules a real torch left in ``sys.modules`` are hidden for the block and put
    back after it. Example::

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
    return name == "torch" or name.startswith("torch.")
