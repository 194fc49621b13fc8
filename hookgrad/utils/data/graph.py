"""``traverse_dps``: the graph of a DataPipe and the DataPipes it reads from.

As torch, the graph is found by pickling: while a DataPipe's state is pickled, every
DataPipe met inside is recorded (and stubbed out) instead of pickled, so any attribute
holding a DataPipe (directly or in a list, tuple or dict) is an edge."""

from __future__ import annotations

import io
import pickle
import warnings
from collections.abc import Collection
from typing import Any, Union

from hookgrad.utils.data.datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["traverse", "traverse_dps"]

DataPipe = Union[IterDataPipe, MapDataPipe]
# {id(datapipe): (datapipe, the graph of what it reads)}
DataPipeGraph = dict[int, tuple[Any, "DataPipeGraph"]]


def _stub_unpickler() -> str:
    return "STUB"


def _list_connected_datapipes(scan_obj: Any, only_datapipe: bool, cache: set[int]) -> list[Any]:
    """The DataPipes ``scan_obj``'s pickled state holds (not those in ``cache``)."""
    captured: list[Any] = []

    def getstate_hook(state: Any) -> Any:
        kept = (IterDataPipe, MapDataPipe, Collection)
        if isinstance(state, dict):
            return {k: v for k, v in state.items() if isinstance(v, kept)}
        if isinstance(state, (tuple, list)):
            return [v for v in state if isinstance(v, kept)]
        return state if isinstance(state, kept) else None

    def reduce_hook(obj: Any) -> Any:
        if obj == scan_obj or id(obj) in cache:
            raise NotImplementedError
        captured.append(obj)
        cache.add(id(obj))
        return _stub_unpickler, ()

    classes = (IterDataPipe, MapDataPipe)
    try:
        for cls in classes:
            cls.set_reduce_ex_hook(reduce_hook)
            if only_datapipe:
                cls.set_getstate_hook(getstate_hook)
        pickle.Pickler(io.BytesIO()).dump(scan_obj)
    finally:
        for cls in classes:
            cls.set_reduce_ex_hook(None)
            if only_datapipe:
                cls.set_getstate_hook(None)
    return captured


def traverse_dps(datapipe: Any) -> DataPipeGraph:
    """The graph of ``datapipe``: ``{id: (datapipe, {id: (source, {...}), ...})}``, each
    DataPipe once. Example::

        dp = IterableWrapper(range(3)).map(abs)
        traverse_dps(dp)   # {id(dp): (dp, {id(source): (source, {})})}
    """
    return _traverse_helper(datapipe, only_datapipe=True, cache=set())


def traverse(datapipe: Any, only_datapipe: bool | None = None) -> DataPipeGraph:
    """Deprecated: ``traverse_dps`` (``only_datapipe=False`` also follows non-DataPipe
    attributes while searching)."""
    message = (
        "`traverse` function is deprecated and will be removed after 1.13. Please use "
        "`traverse_dps` instead."
    )
    if not only_datapipe:
        message += " And, the behavior will be changed to the equivalent of `only_datapipe=True`."
    warnings.warn(message, FutureWarning, stacklevel=2)
    return _traverse_helper(datapipe, bool(only_datapipe), set())


def _traverse_helper(datapipe: Any, only_datapipe: bool, cache: set[int]) -> DataPipeGraph:
    if not isinstance(datapipe, (IterDataPipe, MapDataPipe)):
        raise RuntimeError(
            f"Expected `IterDataPipe` or `MapDataPipe`, but {type(datapipe)} is found"
        )
    key = id(datapipe)
    if key in cache:
        return {}
    cache.add(key)
    graph: DataPipeGraph = {key: (datapipe, {})}
    for item in _list_connected_datapipes(datapipe, only_datapipe, cache.copy()):
        graph[key][1].update(_traverse_helper(item, only_datapipe, cache.copy()))
    return graph
