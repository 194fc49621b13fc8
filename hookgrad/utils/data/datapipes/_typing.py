"""The metaclasses of DataPipes. ``_IterDataPipeMeta`` wraps each class's ``__iter__``
(``_hook_iterator``) and ``reset`` (run only when a new iterator really starts over).

torch 2.13's typing checks of DataPipes (``DataPipe[T]`` types checked at construction
and by ``runtime_validation``) are switched off in its own code: DataPipes have no
``type`` attribute, and subscripting is plain ``Generic`` subscripting. So here."""

from __future__ import annotations

import functools
from abc import ABCMeta
from typing import Any

from hookgrad.utils.data.datapipes._hook_iterator import _SnapshotState, hook_iterator

__all__: list[str] = []


class _DataPipeMeta(ABCMeta):
    """The metaclass of every DataPipe class."""


class _IterDataPipeMeta(_DataPipeMeta):
    """The metaclass of ``IterDataPipe`` classes: hooks ``__iter__`` and ``reset``."""

    def __new__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> Any:
        if "reset" in namespace:
            namespace["reset"] = _conditional_reset(namespace["reset"])
        if "__iter__" in namespace:
            hook_iterator(namespace)
        return super().__new__(cls, name, bases, namespace, **kwargs)


def _conditional_reset(reset: Any) -> Any:
    """``reset`` only from a fresh or iterating state (not right after a restore)."""

    @functools.wraps(reset)
    def conditional_reset(*args: Any, **kwargs: Any) -> None:
        datapipe = args[0]
        if datapipe._snapshot_state in (_SnapshotState.Iterating, _SnapshotState.NotStarted):
            datapipe._number_of_samples_yielded = 0
            datapipe._fast_forward_iterator = None
            reset(*args, **kwargs)
        datapipe._snapshot_state = _SnapshotState.Iterating

    return conditional_reset
