"""Settings applied across a DataPipe graph: sharding (``apply_sharding``), shuffling on
or off (``apply_shuffle_settings``) and seeds (``apply_random_seed``), as ``DataLoader``
applies them to a DataPipe it loads."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from hookgrad.utils.data.datapipes.iter.sharding import SHARDING_PRIORITIES, _ShardingIterDataPipe
from hookgrad.utils.data.graph import DataPipeGraph, traverse_dps
from hookgrad.utils.data.sampler import draw_seed

__all__ = [
    "apply_random_seed",
    "apply_sharding",
    "apply_shuffle_seed",
    "apply_shuffle_settings",
    "get_all_graph_pipes",
]


def get_all_graph_pipes(graph: DataPipeGraph) -> list[Any]:
    """Every DataPipe of ``graph`` once, depth first."""
    return _all_pipes(graph, set())


def _all_pipes(graph: DataPipeGraph, seen: set[int]) -> list[Any]:
    pipes: list[Any] = []
    for key, (datapipe, sub_graph) in graph.items():
        if key in seen:
            continue
        seen.add(key)
        pipes.append(datapipe)
        pipes.extend(_all_pipes(sub_graph, seen))
    return pipes


def _is_sharding_datapipe(datapipe: Any) -> bool:
    return isinstance(datapipe, _ShardingIterDataPipe) or (
        hasattr(datapipe, "apply_sharding") and inspect.ismethod(datapipe.apply_sharding)
    )


def apply_sharding(
    datapipe: Any,
    num_of_instances: int,
    instance_id: int,
    sharding_group: SHARDING_PRIORITIES = SHARDING_PRIORITIES.DEFAULT,
) -> Any:
    """Make each sharding DataPipe of the graph instance ``instance_id`` of
    ``num_of_instances`` (a RuntimeError if one path has two). Returns ``datapipe``.
    Example::

        apply_sharding(IterableWrapper(range(6)).sharding_filter(), 3, 0)   # keeps 0, 3
    """

    def apply(graph: DataPipeGraph, applied: Any = None) -> None:
        for dp, sub_graph in graph.values():
            here = None
            if _is_sharding_datapipe(dp):
                if applied is not None:
                    raise RuntimeError(
                        "Sharding twice on a single pipeline is likely unintended and will cause "
                        f"data loss. Sharding already applied to {applied} while trying to apply "
                        f"to {dp}"
                    )
                if len(inspect.signature(dp.apply_sharding).parameters) < 3:
                    dp.apply_sharding(num_of_instances, instance_id)
                else:
                    dp.apply_sharding(num_of_instances, instance_id, sharding_group=sharding_group)
                here = dp
            apply(sub_graph, here if here is not None else applied)

    apply(traverse_dps(datapipe))
    return datapipe


def _is_shuffle_datapipe(datapipe: Any) -> bool:
    return (
        hasattr(datapipe, "set_shuffle")
        and hasattr(datapipe, "set_seed")
        and inspect.ismethod(datapipe.set_shuffle)
        and inspect.ismethod(datapipe.set_seed)
    )


def apply_shuffle_settings(datapipe: Any, shuffle: bool | None = None) -> Any:
    """Turn every shuffling DataPipe of the graph on or off (None: leave them). With
    ``shuffle=True`` and none in the graph, a ``Shuffler`` is added at the end (a
    warning) and the new DataPipe returned."""
    if shuffle is None:
        return datapipe
    shufflers = [p for p in get_all_graph_pipes(traverse_dps(datapipe)) if _is_shuffle_datapipe(p)]
    if not shufflers and shuffle:
        warnings.warn(
            "`shuffle=True` was set, but the datapipe does not contain a `Shuffler`. Adding one "
            "at the end. Be aware that the default buffer size might not be sufficient for your "
            "task.",
            stacklevel=2,
        )
        datapipe = datapipe.shuffle()
        shufflers = [datapipe]
    for shuffler in shufflers:
        shuffler.set_shuffle(shuffle)
    return datapipe


def apply_shuffle_seed(datapipe: Any, rng: Any) -> Any:
    """Deprecated: ``apply_random_seed``."""
    warnings.warn(
        "`apply_shuffle_seed` is deprecated since 1.12 and will be removed in the future "
        "releases. Please use `apply_random_seed` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return apply_random_seed(datapipe, rng)


def _is_random_datapipe(datapipe: Any) -> bool:
    return hasattr(datapipe, "set_seed") and inspect.ismethod(datapipe.set_seed)


def apply_random_seed(datapipe: Any, rng: Any) -> Any:
    """Give each random DataPipe of the graph (one with ``set_seed``) a seed drawn from
    the generator ``rng``, in graph order, as torch draws them. Returns ``datapipe``."""
    seen: set[int] = set()
    random_pipes = []
    for pipe in get_all_graph_pipes(traverse_dps(datapipe)):
        if id(pipe) not in seen and _is_random_datapipe(pipe):
            random_pipes.append(pipe)
            seen.add(id(pipe))
    for pipe in random_pipes:
        pipe.set_seed(draw_seed(rng))
    return datapipe
