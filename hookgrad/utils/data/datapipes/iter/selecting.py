"""``filter`` (``Filter``): keep the samples a function accepts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe
from hookgrad.utils.data.datapipes.utils.common import (
    StreamWrapper,
    _check_unpickable_fn,
    validate_input_col,
)

__all__ = ["FilterIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


@functional_datapipe("filter")
class FilterIterDataPipe(IterDataPipe[_T_co]):
    """Keep the samples for which ``filter_fn`` (of the sample, or of its ``input_col``
    columns) returns True (functional name ``filter``); it must return a bool. Example::

        list(IterableWrapper(range(5)).filter(lambda x: x % 2 == 0))   # [0, 2, 4]
    """

    def __init__(
        self, datapipe: IterDataPipe[_T_co], filter_fn: Callable[..., Any], input_col: Any = None
    ) -> None:
        super().__init__()
        self.datapipe = datapipe
        _check_unpickable_fn(filter_fn)
        self.filter_fn = filter_fn
        self.input_col = input_col
        validate_input_col(filter_fn, input_col)

    def _apply_filter_fn(self, data: Any) -> Any:
        if self.input_col is None:
            return self.filter_fn(data)
        if isinstance(self.input_col, (list, tuple)):
            return self.filter_fn(*(data[col] for col in self.input_col))
        return self.filter_fn(data[self.input_col])

    def __iter__(self) -> Iterator[_T_co]:
        for data in self.datapipe:
            condition = self._apply_filter_fn(data)
            if not isinstance(condition, bool):
                raise ValueError(
                    "Boolean output is required for `filter_fn` of FilterIterDataPipe, got",
                    type(condition),
                )
            if condition:
                yield data
            else:
                StreamWrapper.close_streams(data)
