"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``.

Their submodules are registered under string keys (``"0"``, ``"1"`` ... for the
sequences), so ``named_parameters`` reads ``"0.weight"`` as in torch.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any

from hookgrad.nn.modules.module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "Sequential"]


def _index(length: int, idx: Any) -> int:
    """``idx`` as a non-negative index into a sequence of ``length``."""
    idx = operator.index(idx)
    if not -length <= idx < length:
        raise IndexError(f"index {idx} is out of range")
    return idx % length if length else idx


def _renumber(module: Module, values: list[Any] | None = None) -> None:
    """Give the submodules (or ``values``) the keys ``"0"``, ``"1"`` ..., in order."""
    values = list(module._modules.values()) if values is None else values
    module._modules.clear()
    for i, value in enumerate(values):
        module._modules[str(i)] = value


class Sequential(Module):
    """Modules called in order, each on the previous one's output.

    Built from modules (keys ``"0"``, ``"1"`` ...) or from one ``OrderedDict`` of named
    modules. Indexing gives a module, slicing a ``Sequential`` (keys kept). Example::

        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        model[0]          # Linear(in_features=4, out_features=8, bias=True)
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input

    def _key(self, idx: Any) -> str:
        return next(islice(iter(self._modules), _index(len(self), idx), None))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                del self._modules[key]
        else:
            del self._modules[self._key(idx)]
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return self.extend(other)

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        """Append every module of ``modules``; returns ``self``."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before position ``index``; returns ``self``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        values = list(self._modules.values())
        values.insert(index + n if index < 0 else index, module)
        _renumber(self, values)
        return self

    def pop(self, key: Any) -> Module:
        """Remove and return the module at position ``key``."""
        module = self[key]
        del self[key]
        return module

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]


class ModuleList(Module):
    """A list of modules, registered as submodules (``"0"``, ``"1"`` ...); it has no
    ``forward`` of its own. Example::

        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        for layer in self.layers:
            x = layer(x)
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, idx: Any) -> str:
        return str(_index(len(self), idx))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                del self._modules[key]
        else:
            del self._modules[self._key(idx)]
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every module of ``modules``; returns ``self``."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        values = list(self._modules.values())
        values.insert(index, module)
        _renumber(self, values)

    def pop(self, key: Any) -> Module:
        """Remove and return the module at position ``key``."""
        module = self[key]
        del self[key]
        return module

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def __repr__(self) -> str:
        # Runs of equal modules are shown once: ``(0-2): 3 x ReLU()``.
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = []
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for start, end, text in runs:
            if start == end:
                line = f"({start}): {text}"
            else:
                line = f"({start}-{end}): {end - start + 1} x {text}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules, registered as submodules under their keys; it has no
    ``forward`` of its own. Example::

        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 10), "box": nn.Linear(8, 4)})
        out = self.heads["cls"](features)
    """

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module ``key`` and return it."""
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Any:
        """The keys."""
        return self._modules.keys()

    def items(self) -> Any:
        """The ``(key, module)`` pairs."""
        return self._modules.items()

    def values(self) -> Any:
        """The modules."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add the modules of a mapping or of an iterable of ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(modules).__name__
            )
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(
                    f"ModuleDict update sequence element #{j} should be Iterable; is"
                    + type(pair).__name__
                )
            pair = tuple(pair)
            if len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required"
                )
            key, module = pair
            self[key] = module
