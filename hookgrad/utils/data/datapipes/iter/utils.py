"""``IterableWrapper``: any Python iterable as an ``IterDataPipe``."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

from hookgrad.utils.data.datapipes.datapipe import IterDataPipe

__all__ = ["IterableWrapperIterDataPipe"]

_T = TypeVar("_T")


class IterableWrapperIterDataPipe(IterDataPipe[_T]):
    """The items of ``iterable``; each iteration starts from a deep copy of it (unless
    ``deepcopy=False`` or it cannot be copied: a warning), so in-place changes of samples
    do not reach the source. Example::

        list(IterableWrapper(range(3)))   # [0, 1, 2]
    """

    def __init__(self, iterable: Iterable[_T], deepcopy: bool = True) -> None:
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self) -> Iterator[_T]:
        source = self.iterable
        if self.deepcopy:
            try:
                source = copy.deepcopy(self.iterable)
            except TypeError:
                warnings.warn(
                    "The input iterable can not be deepcopied, please be aware of in-place "
                    "modification would affect source data.",
                    stacklevel=2,
                )
        yield from source

    def __len__(self) -> int:
        if isinstance(self.iterable, Sized):
            return len(self.iterable)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
