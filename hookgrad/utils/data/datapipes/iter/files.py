"""Files as DataPipes: ``list_files`` (``FileLister``), ``open_files`` (``FileOpener``) and
``read_from_stream`` (``StreamReader``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from io import IOBase
from typing import Any

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe
from hookgrad.utils.data.datapipes.iter.utils import IterableWrapperIterDataPipe
from hookgrad.utils.data.datapipes.utils.common import (
    get_file_binaries_from_pathnames,
    get_file_pathnames_from_root,
)

__all__ = ["FileListerIterDataPipe", "FileOpenerIterDataPipe", "StreamReaderIterDataPipe"]


@functional_datapipe("list_files")
class FileListerIterDataPipe(IterDataPipe[str]):
    """The paths of the files under each root (a path, a list, or a DataPipe of them)
    matching ``masks`` (functional name ``list_files``); sorted unless
    ``non_deterministic``; ``recursive`` into subdirectories; ``abspath``; ``length``
    is the length to report (-1: none). Example::

        list(FileLister(".", "*.py"))
    """

    def __init__(
        self,
        root: str | Sequence[str] | IterDataPipe = ".",
        masks: str | list[str] = "",
        *,
        recursive: bool = False,
        abspath: bool = False,
        non_deterministic: bool = False,
        length: int = -1,
    ) -> None:
        super().__init__()
        if isinstance(root, str):
            root = [root]
        if not isinstance(root, IterDataPipe):
            root = IterableWrapperIterDataPipe(root)
        self.datapipe: IterDataPipe = root
        self.masks = masks
        self.recursive = recursive
        self.abspath = abspath
        self.non_deterministic = non_deterministic
        self.length = length

    def __iter__(self) -> Iterator[str]:
        for path in self.datapipe:
            yield from get_file_pathnames_from_root(
                path, self.masks, self.recursive, self.abspath, self.non_deterministic
            )

    def __len__(self) -> int:
        if self.length == -1:
            raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
        return self.length


@functional_datapipe("open_files")
class FileOpenerIterDataPipe(IterDataPipe[tuple[str, IOBase]]):
    """``(path, stream)`` for each path, opened with ``mode`` (``"r"``, ``"b"``, ``"t"``,
    ``"rb"``, ``"rt"``) and ``encoding`` (functional name ``open_files``). Example::

        for path, stream in FileLister(".", "*.txt").open_files():
            text = stream.read()
    """

    def __init__(
        self,
        datapipe: Iterable[str],
        mode: str = "r",
        encoding: str | None = None,
        length: int = -1,
    ) -> None:
        super().__init__()
        self.datapipe = datapipe
        self.mode = mode
        self.encoding = encoding
        if self.mode not in ("b", "t", "rb", "rt", "r"):
            raise ValueError(f"Invalid mode {mode}")
        if "b" in mode and encoding is not None:
            raise ValueError("binary mode doesn't take an encoding argument")
        self.length = length

    def __iter__(self) -> Iterator[tuple[str, IOBase]]:
        yield from get_file_binaries_from_pathnames(self.datapipe, self.mode, self.encoding)

    def __len__(self) -> int:
        if self.length == -1:
            raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
        return self.length


@functional_datapipe("read_from_stream")
class StreamReaderIterDataPipe(IterDataPipe[tuple[str, bytes]]):
    """``(path, chunk)`` pairs read from each ``(path, stream)`` in chunks of ``chunk``
    bytes (None: all at once); each stream is closed at its end (functional name
    ``read_from_stream``)."""

    def __init__(
        self, datapipe: IterDataPipe[tuple[str, IOBase]], chunk: int | None = None
    ) -> None:
        self.datapipe = datapipe
        self.chunk = chunk

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        for url, stream in self.datapipe:
            while True:
                data = stream.read(self.chunk)
                if not data:
                    stream.close()
                    break
                yield url, data
