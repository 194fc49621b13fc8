"""``routed_decode`` (``RoutedDecoder``, deprecated since torch 1.12): each ``(path,
stream)`` decoded by its extension."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from io import BufferedIOBase
from typing import Any

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe
from hookgrad.utils.data.datapipes.utils.common import _deprecation_warning
from hookgrad.utils.data.datapipes.utils.decoder import (
    Decoder,
    basichandlers,
    extension_extract_fn,
    imagehandler,
)

__all__ = ["RoutedDecoderIterDataPipe"]


@functional_datapipe("routed_decode")
class RoutedDecoderIterDataPipe(IterDataPipe[tuple[str, Any]]):
    """``(path, value)`` for each ``(path, stream)``: the stream's bytes decoded by the
    first handler that knows ``key_fn(path)`` (default: text, JSON, pickle, ``.pt`` and
    images) (functional name ``routed_decode``; deprecated, as in torch). Example::

        FileLister(root, "*.json").open_files(mode="b").routed_decode()
    """

    def __init__(
        self,
        datapipe: Iterable[tuple[str, BufferedIOBase]],
        *handlers: Callable[..., Any],
        key_fn: Callable[[str], str] = extension_extract_fn,
    ) -> None:
        super().__init__()
        self.datapipe = datapipe
        if not handlers:
            handlers = (basichandlers, imagehandler("torch"))
        self.decoder = Decoder(*handlers, key_fn=key_fn)
        _deprecation_warning(
            type(self).__name__,
            deprecation_version="1.12",
            removal_version="1.13",
            old_functional_name="routed_decode",
        )

    def add_handler(self, *handler: Callable[..., Any]) -> None:
        self.decoder.add_handler(*handler)

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        for data in self.datapipe:
            pathname = data[0]
            yield pathname, self.decoder(data)[pathname]

    def __len__(self) -> int:
        if isinstance(self.datapipe, Sized):
            return len(self.datapipe)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
