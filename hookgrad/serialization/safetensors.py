"""The safetensors format: a dict of named tensors, with no pickle at all.

A file is an 8-byte little-endian header length N, N bytes of JSON (padded with spaces to a
multiple of 8) mapping each name to ``{"dtype": "F32", "shape": [2, 3], "data_offsets":
[begin, end]}`` (plus an optional ``"__metadata__"`` dict of strings), then the tensors'
bytes, C order, little-endian, back to back in offset order. The functions have the names
and behaviour of ``safetensors.torch``: ``save_file``/``load_file`` for files,
``save``/``load`` for bytes. Every offset, size and dtype is checked before anything is
read, so a truncated or corrupt file raises ``SafetensorError`` and loads nothing.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Callable
from typing import IO, Any, Union

import numpy as np

from hookgrad.ops.as_strided import memory_owner
from hookgrad.serialization.storage import FILE_LAYOUTS, file_tensor
from hookgrad.tensor.device import check_device
from hookgrad.tensor.tensor import Tensor

__all__ = ["SafetensorError", "load", "load_file", "save", "save_file"]

PathLike = Union[str, "os.PathLike[str]"]

# safetensors' dtypes in its order (increasing alignment), and the torch dtype of each.
_CODES = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "F8_E5M2": "float8_e5m2",
    "F8_E4M3": "float8_e4m3fn",
    "I16": "int16",
    "U16": "uint16",
    "F16": "float16",
    "BF16": "bfloat16",
    "I32": "int32",
    "U32": "uint32",
    "F32": "float32",
    "C64": "complex64",
    "F64": "float64",
    "I64": "int64",
    "U64": "uint64",
}
_CODE_OF = {name: code for code, name in _CODES.items()}
_RANK = {code: rank for rank, code in enumerate(_CODES)}
_MAX_HEADER = 100_000_000


class SafetensorError(RuntimeError):
    """A file or buffer that is not valid safetensors (truncated, corrupt header ...)."""


def _invalid(kind: str, detail: str = "") -> SafetensorError:
    return SafetensorError(
        f"Error while deserializing header: {kind}" + (f" ({detail})" if detail else "")
    )


# ---------------------------------------------------------------- saving


def _flatten(tensors: dict[str, Tensor]) -> list[tuple[str, str, np.ndarray]]:
    """``(name, code, little-endian C-order array)`` per tensor, in the file's order;
    tensors sharing memory or not contiguous are refused, as ``safetensors.torch`` does."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    by_memory: dict[tuple[int, int], list[str]] = {}
    entries = []
    for name, tensor in tensors.items():
        if not isinstance(name, str) or not isinstance(tensor, Tensor):
            raise ValueError(
                f"Key `{name}` is invalid, expected torch.Tensor but received {type(tensor)}"
            )
        if not tensor.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{name}` which is not "
                "allowed. It either means you are trying to save tensors which are reference "
                "of each other in which case it's recommended to save only the full tensors, "
                "and reslice at load time, or simply call `.contiguous()` on your tensor to "
                "pack it before saving."
            )
        code = _CODE_OF.get(tensor.dtype.name)
        if code is None:
            raise ValueError(f"safetensors has no dtype for {tensor.dtype}")
        root = memory_owner(tensor._data)
        if root.nbytes:
            where = (root.__array_interface__["data"][0], root.nbytes)
            by_memory.setdefault(where, []).append(name)
        layout = FILE_LAYOUTS[tensor.dtype.name]
        entries.append((name, code, np.asarray(tensor._data, dtype=layout, order="C")))
    shared = [names for names in by_memory.values() if len(names) > 1]
    if shared:
        raise RuntimeError(
            "Some tensors share memory, this will lead to duplicate memory on disk and "
            f"potential differences when loading them again: {shared}.\nA potential way to "
            "correctly save your model is to use `save_model`.\nMore information at "
            "https://huggingface.co/docs/safetensors/torch_shared_tensors"
        )
    entries.sort(key=lambda entry: (-_RANK[entry[1]], entry[0]))
    return entries


def _header(entries: list[tuple[str, str, np.ndarray]], metadata: Any) -> bytes:
    header: dict[str, Any] = {}
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
        ):
            raise ValueError("metadata must be a dict of str to str")
        header["__metadata__"] = metadata
    offset = 0
    for name, code, array in entries:
        header[name] = {
            "dtype": code,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + array.nbytes],
        }
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of ``tensors`` (a dict of names to contiguous tensors that
    share no memory) with optional string ``metadata``. Example::

        data = save({"weight": hookgrad.ones(2, 3)})
    """
    entries = _flatten(tensors)
    return _header(entries, metadata) + b"".join(array.tobytes() for _, _, array in entries)


def save_file(
    tensors: dict[str, Tensor], filename: PathLike, metadata: dict[str, str] | None = None
) -> None:
    """Write ``tensors`` to ``filename`` in the safetensors format (see ``save``).

    Example::

        save_file(model.state_dict(), "model.safetensors", metadata={"format": "pt"})
    """
    entries = _flatten(tensors)
    header = _header(entries, metadata)
    with open(filename, "wb") as file:
        file.write(header)
        for _, _, array in entries:
            file.write(array.data)


# ---------------------------------------------------------------- loading


def _parse(
    head: Callable[[int, int], bytes], size: int
) -> tuple[int, list[tuple[str, str, list[int], int]]]:
    """Check a safetensors header (``head(start, stop)`` reads bytes; ``size`` is the
    whole length): the data's start and ``(name, torch dtype, shape, offset)`` per tensor."""
    if size < 8:
        raise _invalid("HeaderTooSmall")
    (length,) = struct.unpack("<Q", head(0, 8))
    if length > _MAX_HEADER:
        raise _invalid("HeaderTooLarge")
    if 8 + length > size:
        raise _invalid("InvalidHeaderLength", "the file is shorter than its header")

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) != len(pairs):
            raise ValueError("duplicate key")
        return found

    try:
        header = json.loads(head(8, 8 + length).decode("utf-8"), object_pairs_hook=unique)
    except (UnicodeDecodeError, ValueError) as error:
        raise _invalid("InvalidHeaderDeserialization", str(error)) from None
    if not isinstance(header, dict):
        raise _invalid("InvalidHeaderDeserialization", "the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())
    ):
        raise _invalid("InvalidHeaderDeserialization", "__metadata__ must map str to str")
    entries = []
    for name, info in header.items():
        entries.append(_entry(name, info))
    entries.sort(key=lambda entry: entry[3])
    end = 0
    for name, dtype_name, shape, begin, stop in entries:
        if begin != end:
            raise _invalid("InvalidOffset", name)
        if stop - begin != math.prod(shape) * FILE_LAYOUTS[dtype_name].itemsize:
            raise _invalid("TensorInvalidInfo", name)
        end = stop
    if 8 + length + end != size:
        raise _invalid(
            "MetadataIncompleteBuffer", f"{size - 8 - length} data bytes, {end} declared"
        )
    return 8 + length, [(name, dtype, shape, begin) for name, dtype, shape, begin, _ in entries]


def _entry(name: str, info: Any) -> tuple[str, str, list[int], int, int]:
    def count(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise _invalid("InvalidHeaderDeserialization", f"bad entry for {name!r}")
    shape, offsets = info["shape"], info["data_offsets"]
    if not (isinstance(shape, list) and all(count(n) for n in shape)):
        raise _invalid("InvalidHeaderDeserialization", f"bad shape for {name!r}")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(count, offsets))):
        raise _invalid("InvalidHeaderDeserialization", f"bad data_offsets for {name!r}")
    if offsets[1] < offsets[0]:
        raise _invalid("InvalidOffset", name)
    dtype_name = _CODES.get(info["dtype"])
    if dtype_name is None or dtype_name not in FILE_LAYOUTS:
        raise _invalid("InvalidHeaderDeserialization", f"unsupported dtype {info['dtype']!r}")
    return name, dtype_name, shape, offsets[0], offsets[1]


def _tensors(
    entries: list[tuple[str, str, list[int], int]], read: Callable[[int, int], np.ndarray]
) -> dict[str, Tensor]:
    loaded = {}
    for name, dtype_name, shape, begin in entries:
        layout = FILE_LAYOUTS[dtype_name]
        raw = read(begin, math.prod(shape) * layout.itemsize)
        array = raw.view(layout).astype(layout.newbyteorder("="), copy=False).reshape(tuple(shape))
        loaded[name] = file_tensor(array, dtype_name)
    return dict(sorted(loaded.items()))


def load(data: bytes) -> dict[str, Tensor]:
    """The tensors in safetensors bytes ``data`` (each a copy), by name. Example::

    tensors = load(save({"weight": hookgrad.ones(2)}))
    """
    view = memoryview(data).cast("B")
    start, entries = _parse(lambda a, b: bytes(view[a:b]), len(view))

    def read(begin: int, nbytes: int) -> np.ndarray:
        return np.frombuffer(view[start + begin : start + begin + nbytes], np.uint8).copy()

    return _tensors(entries, read)


def load_file(filename: PathLike, device: Any = "cpu") -> dict[str, Tensor]:
    """The tensors of the safetensors file ``filename``, by name. Tensors of dtypes
    hookgrad lacks load widened (``BF16`` as float32, ``U16`` as int32 ...). Example::

        model.load_state_dict(load_file("model.safetensors"))
    """
    check_device(device)
    with open(filename, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        start, entries = _parse(lambda a, b: _read_at(file, a, b - a), size)

        def read(begin: int, nbytes: int) -> np.ndarray:
            raw = np.empty(nbytes, np.uint8)
            file.seek(start + begin)
            if file.readinto(raw.data) != nbytes:
                raise _invalid("MetadataIncompleteBuffer", "the file changed while loading")
            return raw

        return _tensors(entries, read)


def _read_at(file: IO[bytes], offset: int, nbytes: int) -> bytes:
    file.seek(offset)
    return file.read(nbytes)
