"""``sharding_filter`` (``ShardingFilter``): each of ``n`` instances (workers, ranks) keeps
every ``n``-th sample; ``apply_sharding`` (``graph_settings``) sets them."""

from __future__ import annotations

from collections.abc import Sized
from enum import IntEnum
from typing import Any, NoReturn

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe

__all__ = ["SHARDING_PRIORITIES", "ShardingFilterIterDataPipe"]


class SHARDING_PRIORITIES(IntEnum):
    """Sharding groups, outermost first: the default, distributed ranks, workers."""

    DEFAULT = 1
    DISTRIBUTED = 2
    MULTIPROCESSING = 3


class _ShardingIterDataPipe(IterDataPipe):
    def apply_sharding(
        self, num_of_instances: int, instance_id: int, sharding_group: SHARDING_PRIORITIES
    ) -> NoReturn:
        raise NotImplementedError


@functional_datapipe("sharding_filter")
class ShardingFilterIterDataPipe(_ShardingIterDataPipe):
    """Keep the samples of this instance: sample ``i`` goes to instance
    ``i % num_of_instances`` (functional name ``sharding_filter``). Sharding groups
    combine (distributed ranks, then workers). Example::

        dp = IterableWrapper(range(6)).sharding_filter()
        dp.apply_sharding(2, 1)
        list(dp)   # [1, 3, 5]
    """

    def __init__(self, source_datapipe: IterDataPipe, sharding_group_filter: Any = None) -> None:
        super().__init__()
        self.source_datapipe = source_datapipe
        self.sharding_group_filter = sharding_group_filter
        self.groups: dict[int, tuple[int, int]] = {}
        self.num_of_instances = 1
        self.instance_id = 0
        self._update_num_of_instances()

    def apply_sharding(
        self,
        num_of_instances: int,
        instance_id: int,
        sharding_group: SHARDING_PRIORITIES = SHARDING_PRIORITIES.DEFAULT,
    ) -> None:
        """Be instance ``instance_id`` of ``num_of_instances`` in ``sharding_group``."""
        if instance_id >= num_of_instances:
            raise ValueError(
                f"instance_id({instance_id}) should be smaller than "
                f"num_of_instances({num_of_instances})"
            )
        if sharding_group == SHARDING_PRIORITIES.DEFAULT:
            if len(self.groups) and SHARDING_PRIORITIES.DEFAULT not in self.groups:
                raise RuntimeError("ShardingFilter cannot mix DEFAULT and non DEFAULT groups")
        elif SHARDING_PRIORITIES.DEFAULT in self.groups:
            raise RuntimeError("ShardingFilter cannot mix DEFAULT and non DEFAULT groups")
        self.groups[sharding_group] = (num_of_instances, instance_id)
        self._update_num_of_instances()

    def _update_num_of_instances(self) -> None:
        groups = [
            self.groups[key]
            for key in sorted(self.groups)
            if self.sharding_group_filter is None or key == self.sharding_group_filter
        ]
        self.num_of_instances = 1
        self.instance_id = 0
        for count, index in reversed(groups):
            self.instance_id += self.num_of_instances * index
            self.num_of_instances *= count

    def __iter__(self) -> Any:
        for i, item in enumerate(self.source_datapipe):
            if i % self.num_of_instances == self.instance_id:
                yield item

    def __len__(self) -> int:
        if isinstance(self.source_datapipe, Sized):
            size = len(self.source_datapipe)
            return size // self.num_of_instances + (
                1 if self.instance_id < size % self.num_of_instances else 0
            )
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
