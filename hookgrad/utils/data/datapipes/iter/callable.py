"""``map`` (``Mapper``) and ``collate`` (``Collator``): a function applied to each sample
(or to some of its columns)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sized
from typing import Any, TypeVar

from hookgrad.utils.data.collate import default_collate
from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe
from hookgrad.utils.data.datapipes.utils.common import _check_unpickable_fn, validate_input_col

__all__ = ["CollatorIterDataPipe", "MapperIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


@functional_datapipe("map")
class MapperIterDataPipe(IterDataPipe[_T_co]):
    """Apply ``fn`` to each sample (functional name ``map``).

    With ``input_col`` (an index or key, or a list of them) ``fn`` gets those columns of
    the sample; its result replaces the first of them (the others are dropped), or goes to
    ``output_col`` (-1: appended). Example::

        list(IterableWrapper([(1, 2), (3, 4)]).map(lambda x: x * 10, input_col=1))
        # [(1, 20), (3, 40)]
    """

    datapipe: IterDataPipe
    fn: Callable[..., Any]

    def __init__(
        self,
        datapipe: IterDataPipe,
        fn: Callable[..., Any],
        input_col: Any = None,
        output_col: Any = None,
    ) -> None:
        super().__init__()
        self.datapipe = datapipe
        _check_unpickable_fn(fn)
        self.fn = fn
        self.input_col = input_col
        if input_col is None and output_col is not None:
            raise ValueError("`output_col` must be None when `input_col` is None.")
        if isinstance(output_col, (list, tuple)):
            if len(output_col) > 1:
                raise ValueError("`output_col` must be a single-element list or tuple")
            output_col = output_col[0]
        self.output_col = output_col
        validate_input_col(fn, input_col)

    def _apply_fn(self, data: Any) -> Any:
        if self.input_col is None and self.output_col is None:
            return self.fn(data)
        if self.input_col is None:
            result = self.fn(data)
        elif isinstance(self.input_col, (list, tuple)):
            result = self.fn(*(data[col] for col in self.input_col))
        else:
            result = self.fn(data[self.input_col])
        is_tuple = isinstance(data, tuple)
        if is_tuple:
            data = list(data)
        if self.output_col is None:
            if isinstance(self.input_col, (list, tuple)):
                data[self.input_col[0]] = result
                for index in sorted(self.input_col[1:], reverse=True):
                    del data[index]
            else:
                data[self.input_col] = result
        elif self.output_col == -1:
            data.append(result)
        else:
            data[self.output_col] = result
        return tuple(data) if is_tuple else data

    def __iter__(self) -> Iterator[_T_co]:
        for data in self.datapipe:
            yield self._apply_fn(data)

    def __len__(self) -> int:
        if isinstance(self.datapipe, Sized):
            return len(self.datapipe)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("collate")
class CollatorIterDataPipe(MapperIterDataPipe):
    """Collate each sample (a batch) into tensors, by ``default_collate`` or
    ``collate_fn``/a callable ``conversion`` (functional name ``collate``). Example::

        list(IterableWrapper([[1, 2], [3, 4]]).collate())   # [tensor([1, 2]), tensor([3, 4])]
    """

    def __init__(
        self,
        datapipe: IterDataPipe,
        conversion: Callable[..., Any] | dict[Any, Any] | None = default_collate,
        collate_fn: Callable[..., Any] | None = None,
    ) -> None:
        if collate_fn is not None:
            super().__init__(datapipe, fn=collate_fn)
        elif callable(conversion):
            super().__init__(datapipe, fn=conversion)
        else:
            raise RuntimeError(
                "Collating DataFrames by a dict of conversions needs TorchArrow, which "
                "hookgrad does not have: give a callable"
            )
