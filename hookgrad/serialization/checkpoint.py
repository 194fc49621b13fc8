"""``save`` and ``load``: torch's checkpoint files, written and read without torch.

A checkpoint (torch >= 1.6) is a zip archive of uncompressed records under one directory:
``data.pkl``, the pickled object, in which each storage is a persistent id
``('storage', FloatStorage, key, location, numel)``; ``data/<key>``, each storage's raw
little-endian bytes (aligned to 64 bytes in the file); ``byteorder``, ``version`` and a few
more. The legacy format (``_use_new_zipfile_serialization=False``) is a run of pickles
(magic number, protocol version, system info, the object, its storage keys) followed by
each storage as an int64 element count and its bytes.

Loading is ``weights_only`` by default, as in torch >= 2.6: the pickle is run by
``unpickler.WeightsUnpickler``, which builds only plain values, containers, tensors and
what ``add_safe_globals`` allows. ``weights_only=False`` is the explicit opt-in to Python's
unpickler (a file can then run any code). A truncated or corrupt file raises
``RuntimeError`` before anything is returned.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import re
import struct
import uuid
import warnings
import zipfile
from collections.abc import Callable, Iterator
from typing import IO, Any, TypeGuard, Union

import numpy as np

from hookgrad.serialization import allowlist, safetensors
from hookgrad.serialization.pickler import TorchPickler
from hookgrad.serialization.storage import Storage, StorageTable, StorageType
from hookgrad.serialization.unpickler import WeightsUnpickler
from hookgrad.tensor.device import device
from hookgrad.tensor.layout import UntypedStorage

__all__ = ["DEFAULT_PROTOCOL", "load", "save"]

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

DEFAULT_PROTOCOL = 2  # torch's: its weights_only unpickler reads protocol 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_ALIGNMENT = 64
_CHUNK = 1 << 26
_EPOCH = (1980, 1, 1, 0, 0, 0)

_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only "
    "if you got the file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
_NO_CUDA = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
    "False. If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU."
)


def _forced_weights_only(weights_only: bool | None, default: bool) -> bool:
    """``weights_only`` after torch's environment overrides: ``TORCH_FORCE_WEIGHTS_ONLY_LOAD``
    forces it on; ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` turns it off where the caller did
    not pass it (with torch's warning)."""
    true_values = ["1", "y", "yes", "true"]
    force_on = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_off = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_on and force_off:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force_on:
        return True
    if force_off and weights_only is None:
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
            "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
            "weights_only=False.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return default if weights_only is None else weights_only


def _is_path(f: Any) -> TypeGuard[str | os.PathLike[str]]:
    return isinstance(f, (str, os.PathLike))


@contextlib.contextmanager
def _opened(f: FileLike, mode: str) -> Iterator[IO[bytes]]:
    if _is_path(f):
        with open(f, mode) as file:  # type: ignore[arg-type]
            yield file  # type: ignore[misc]
    else:
        yield f  # type: ignore[misc]


class CorruptCheckpoint(RuntimeError):
    """A file that is not a readable checkpoint: truncated, corrupt or of another kind."""


# ---------------------------------------------------------------- save


def save(
    obj: object,
    f: FileLike,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` to the path or binary file ``f`` in torch's format: ``torch.load``
    (``weights_only=True`` too) reads it.

    ``obj`` is usually a state dict, or a dict of state dicts and plain values (a
    checkpoint). Each tensor keeps its dtype, shape, strides, values and
    ``requires_grad`` (not its ``.grad`` nor its graph); ``nn.Parameter`` stays a
    Parameter; tensors sharing memory (views) share one storage in the file and again
    after loading. Other objects are pickled as ``pickle`` does, which ``load`` refuses
    by default. The object is pickled before the file is opened, so a failure leaves no
    half-written file. Example::

        hookgrad.save({"model": model.state_dict(), "epoch": 3}, "checkpoint.pt")
    """
    if pickle_module is not pickle:
        raise TypeError("hookgrad.save writes with its own pickler: pass the pickle module")
    storages = StorageTable()
    data = io.BytesIO()
    legacy = not _use_new_zipfile_serialization
    TorchPickler(data, pickle_protocol, storages, legacy=legacy).dump(obj)
    with _opened(f, "wb") as file:
        if legacy:
            _write_legacy(file, data.getvalue(), storages, pickle_protocol)
        else:
            name = os.path.splitext(os.path.basename(os.fspath(f)))[0] if _is_path(f) else ""
            records: list[tuple[str, Any]] = [("data.pkl", data.getvalue())]
            records.append((".format_version", b"1"))
            records.append((".storage_alignment", str(_ALIGNMENT).encode()))
            if not _disable_byteorder_record:
                records.append(("byteorder", b"little"))
            records += [(f"data/{s.key}", s.raw) for s in storages.storages]
            records.append(("version", b"3\n"))
            records.append((".data/serialization_id", b"%040d" % (uuid.uuid4().int % 10**40)))
            _write_zip(file, name or "archive", records)


def _write_zip(file: IO[bytes], name: str, records: list[tuple[str, Any]]) -> None:
    """Write ``records`` as torch does: stored (not compressed), each record's data
    starting at a multiple of 64 bytes (padding in an extra field), so it can be mmapped."""
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for record, data in records:
            info = zipfile.ZipInfo(f"{name}/{record}", date_time=_EPOCH)
            info.file_size = len(data)
            zip64 = info.file_size * 1.05 > zipfile.ZIP64_LIMIT  # as zipfile decides
            header = 30 + len(info.filename.encode()) + (20 if zip64 else 0) + 4
            padding = -(archive.start_dir + header) % _ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
            with archive.open(info, "w", force_zip64=zip64) as out:
                out.write(data)


def _write_legacy(
    file: IO[bytes], data: bytes, storages: StorageTable, pickle_protocol: int
) -> None:
    system = {
        "protocol_version": PROTOCOL_VERSION,
        "little_endian": True,
        "type_sizes": {"short": 2, "int": 4, "long": 4},
    }
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, system):
        pickle.dump(header, file, protocol=pickle_protocol)
    file.write(data)
    by_key = {storage.key: storage for storage in storages.storages}
    keys = sorted(by_key)
    pickle.dump(keys, file, protocol=pickle_protocol)
    for key in keys:
        file.write(struct.pack("<q", by_key[key].numel))
        file.write(by_key[key].raw.data)


# ---------------------------------------------------------------- load


def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved by ``torch.save`` or ``hookgrad.save`` from the path or binary
    file ``f`` (torch's zip format, its legacy format, or safetensors for a path ending in
    ``.safetensors``).

    ``weights_only`` (the default) rebuilds only tensors, Parameters, ``Size``, dtypes,
    devices and plain values and containers (and what
    ``hookgrad.serialization.add_safe_globals`` allows): a file naming any other class or
    function raises ``pickle.UnpicklingError`` naming it, before anything of it runs.
    ``weights_only=False`` unpickles anything (only for files you trust).

    ``map_location``: ``"cpu"``, a ``device``, a dict from saved locations to new ones,
    or ``fn(storage, location)`` returning None or ``storage``; storages saved on CUDA load
    only when mapped to the CPU. ``mmap=True`` maps the file's storages (copy-on-write)
    instead of reading them. Tensors of dtypes hookgrad lacks load widened (``bfloat16``
    as float32, ``uint16`` as int32, ``uint32``/``uint64`` as int64). Example::

        state = hookgrad.load("checkpoint.pt", map_location="cpu")
        model.load_state_dict(state["model"])
    """
    weights_only = _forced_weights_only(weights_only, pickle_module is None)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_module not in (None, pickle):
        raise TypeError("hookgrad.load reads with its own unpickler: pass the pickle module")
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        return _load_safetensors(f, map_location)
    pickle_load_args.setdefault("encoding", "utf-8")

    def unpickle(file: IO[bytes], persistent_load: Callable[[Any], Any]) -> Any:
        if not weights_only:
            return _TrustingUnpickler(file, persistent_load, **pickle_load_args).load()
        try:
            return WeightsUnpickler(file, persistent_load).load()
        except pickle.UnpicklingError as error:
            raise pickle.UnpicklingError(_weights_only_message(str(error))) from None

    restore = _restorer(map_location)
    with _opened(f, "rb") as file:
        start = file.tell()
        signature = file.read(4)
        file.seek(start)
        if signature == b"PK\x03\x04":
            if mmap and not _is_path(f):
                raise ValueError("f must be a file path in order to use the mmap argument")
            mapped = os.fspath(f) if mmap and _is_path(f) else None
            return _ZipCheckpoint(file, f, restore, mapped).load(unpickle)
        if mmap:
            raise RuntimeError(
                "mmap can only be used with files saved with "
                "`torch.save(_use_new_zipfile_serialization=True), please torch.save your "
                "checkpoint with this option in order to use mmap."
            )
        if not signature:
            raise CorruptCheckpoint(f"hookgrad.load: {_describe(f)} is empty")
        return _load_legacy(file, f, restore, unpickle)


def _describe(f: Any) -> str:
    return repr(os.fspath(f)) if _is_path(f) else "the file"


def _weights_only_message(message: str) -> str:
    """torch's wording around a ``weights_only`` refusal."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the "
            f"checkpoint\033[0m. \n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error "
            f"message.\n\tWeightsUnpickler error: {message}{_DOCS_MESSAGE}"
        )
    text = f"Weights only load failed. {_UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += (
            "Please file an issue with the following so that we can make "
            "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
        )
    return f"{text}\n\n{message}{_DOCS_MESSAGE}"


class _TrustingUnpickler(pickle.Unpickler):
    """Python's unpickler (``weights_only=False``), with torch's names mapped to hookgrad's."""

    def __init__(
        self, file: IO[bytes], persistent_load: Callable[[Any], Any], **kwargs: Any
    ) -> None:
        super().__init__(file, **kwargs)
        self._load_storage = persistent_load

    def persistent_load(self, pid: Any) -> Any:
        return self._load_storage(pid)

    def find_class(self, module: str, name: str) -> Any:
        module3, name3 = allowlist.py3_name(module, name)
        full = f"{module3}.{name3}"
        if full in allowlist.TORCH_NAMES:
            return allowlist.TORCH_NAMES[full]
        if module3 == "torch" or module3.startswith("torch."):
            raise pickle.UnpicklingError(
                f"hookgrad cannot rebuild {full}, a torch object it has no counterpart of: "
                "save a state_dict() rather than the object"
            )
        return super().find_class(module, name)


# ---------------------------------------------------------------- storages


def _restorer(map_location: Any) -> Callable[[np.ndarray, str], np.ndarray]:
    """What ``map_location`` does with a storage's bytes read from a file and its saved
    location: hookgrad keeps them on the CPU, or refuses another device as torch's CPU
    build does."""

    def restore(raw: np.ndarray, location: str) -> np.ndarray:
        if isinstance(map_location, dict):
            location = map_location.get(location, location)
        elif callable(map_location):
            given = UntypedStorage(raw)
            result = map_location(given, location)
            if result is given:
                return raw
            if result is not None:
                raise TypeError(
                    "map_location must return None or the storage it was given: hookgrad "
                    "keeps every tensor on the CPU"
                )
        elif map_location is not None:
            location = map_location
        _check_cpu(location)
        return raw

    return restore


def _check_cpu(location: Any) -> None:
    try:
        kind = device(location).type
    except (RuntimeError, TypeError):
        raise RuntimeError(
            f"don't know how to restore data location of torch.storage.UntypedStorage "
            f"(tagged with {location})"
        ) from None
    if kind == "cuda":
        raise RuntimeError(_NO_CUDA)
    if kind != "cpu":
        raise RuntimeError(
            f"Attempting to deserialize object on a {kind} device, but hookgrad runs on the "
            "CPU only: pass map_location='cpu'"
        )


def _storage_id(pid: Any, length: int) -> tuple[StorageType, str, str, int, Any]:
    """The parts of a storage persistent id, checked."""
    if type(pid) is not tuple or len(pid) != length:
        raise pickle.UnpicklingError(f"persistent_load id must be a storage tuple: {pid!r}")
    kind, storage_type, key, location, numel = pid[:5]
    if kind not in ("storage", b"storage"):
        raise pickle.UnpicklingError(
            f"Only persistent_load of storage is allowed, but got {kind!r}"
        )
    if not isinstance(storage_type, StorageType):
        raise pickle.UnpicklingError(f"not a storage class: {storage_type!r}")
    if not (isinstance(key, str) and isinstance(location, str)):
        raise pickle.UnpicklingError("a storage's key and location must be strings")
    if not isinstance(numel, int) or numel < 0:
        raise pickle.UnpicklingError(f"a storage's size must be a non-negative int: {numel!r}")
    return storage_type, key, location, numel, pid[5] if length == 6 else None


class _ZipCheckpoint:
    """A checkpoint in torch's zip format, open for loading."""

    def __init__(
        self,
        file: IO[bytes],
        f: Any,
        restore: Callable[[np.ndarray, str], np.ndarray],
        mapped_path: str | None,
    ) -> None:
        self.file = file
        self.f = f
        self.restore = restore
        self.mapped_path = mapped_path
        self.storages: dict[str, Storage] = {}

    def _corrupt(self, detail: Any) -> CorruptCheckpoint:
        return CorruptCheckpoint(
            f"hookgrad.load: {_describe(self.f)} is truncated or corrupt, or not a checkpoint "
            f"written by torch.save or hookgrad.save ({detail})"
        )

    def load(self, unpickle: Callable[[IO[bytes], Callable[[Any], Any]], Any]) -> Any:
        try:
            self.archive = zipfile.ZipFile(self.file)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
            raise self._corrupt(error) from None
        with self.archive:
            names = self.archive.namelist()
            if any(name.endswith("/constants.pkl") for name in names):
                raise RuntimeError(
                    "hookgrad.load cannot load TorchScript archives (torch.jit.save)"
                )
            pickles = [name for name in names if re.fullmatch(r"[^/]+/data\.pkl", name)]
            if not pickles:
                raise self._corrupt("the zip archive has no data.pkl")
            self.prefix = pickles[0][: -len("data.pkl")]
            byteorder = (
                self._read_small("byteorder") if self.prefix + "byteorder" in names else b"little"
            )
            if byteorder not in (b"little", b"big"):
                raise self._corrupt(f"unknown byte order {byteorder!r}")
            self.big_endian = byteorder == b"big"
            data = self._read_small("data.pkl")
            return unpickle(io.BytesIO(data), self._load_storage)

    def _read_small(self, record: str) -> bytes:
        try:
            return self.archive.read(self.prefix + record)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
            raise self._corrupt(error) from None

    def _load_storage(self, pid: Any) -> Storage:
        storage_type, key, location, numel, _ = _storage_id(pid, 5)
        found = self.storages.get(key)
        if found is None:
            raw = self._record(f"data/{key}", numel * storage_type.element_size())
            found = Storage(self.restore(raw, location), storage_type.dtype_name, self.big_endian)
            self.storages[key] = found
        return found

    def _record(self, record: str, nbytes: int) -> np.ndarray:
        """The bytes of ``record`` (``nbytes`` of them) in a writable array."""
        try:
            info = self.archive.getinfo(self.prefix + record)
        except KeyError:
            raise self._corrupt(f"no record {record}") from None
        if info.file_size != nbytes:
            raise self._corrupt(f"record {record} has {info.file_size} bytes, not {nbytes}")
        if self.mapped_path is not None and nbytes:
            return self._mapped(info)
        raw = np.empty(nbytes, np.uint8)
        try:
            with self.archive.open(info) as member:
                done = 0
                while done < nbytes:
                    chunk = member.read(min(_CHUNK, nbytes - done))
                    if not chunk:
                        raise EOFError(f"record {record} ends early")
                    raw[done : done + len(chunk)] = np.frombuffer(chunk, np.uint8)
                    done += len(chunk)
                member.read(1)  # reaches the end: the CRC check
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
            raise self._corrupt(error) from None
        return raw

    def _mapped(self, info: zipfile.ZipInfo) -> np.ndarray:
        """The record's bytes mapped copy-on-write from the file (``mmap=True``)."""
        if info.compress_type != zipfile.ZIP_STORED:
            raise self._corrupt(f"record {info.filename} is compressed: it cannot be mapped")
        self.file.seek(info.header_offset)
        header = self.file.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise self._corrupt(f"bad local header for {info.filename}")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        offset = info.header_offset + 30 + name_length + extra_length
        return np.memmap(str(self.mapped_path), np.uint8, "c", offset, (info.file_size,))


def _load_legacy(
    file: IO[bytes],
    f: Any,
    restore: Callable[[np.ndarray, str], np.ndarray],
    unpickle: Callable[[IO[bytes], Callable[[Any], Any]], Any],
) -> Any:
    """Load torch's legacy format: headers, the object's pickle, its storage keys, then
    the storages. The object's pickle is read once without building anything (a dry run)
    to learn each storage's element size, then again once the storages are read."""

    def corrupt(detail: Any) -> CorruptCheckpoint:
        return CorruptCheckpoint(
            f"hookgrad.load: {_describe(f)} is truncated or corrupt ({detail})"
        )

    stream = io.BytesIO(file.read())

    def plain() -> Any:
        return WeightsUnpickler(stream, _no_storages).load()

    try:
        magic = plain()
    except pickle.UnpicklingError:
        magic = None
    if magic != MAGIC_NUMBER:
        raise CorruptCheckpoint("Invalid magic number; corrupt file?")
    try:
        protocol = plain()
        if protocol != PROTOCOL_VERSION:
            raise CorruptCheckpoint(f"Invalid protocol version: {protocol}")
        system = plain()
        little_endian = not isinstance(system, dict) or system.get("little_endian", True)
        start = stream.tell()
        found: dict[str, tuple[StorageType, int]] = {}

        def record(pid: Any) -> None:
            storage_type, key, _, numel, _ = _storage_id(pid, 6)
            found[key] = (storage_type, numel)

        WeightsUnpickler(stream, record, dry_run=True).load()
        keys = plain()
    except pickle.UnpicklingError as error:
        raise corrupt(error) from None
    if not (isinstance(keys, list) and set(keys) == set(found)):
        raise corrupt("its storage keys do not match its storages")
    raws = {}
    count = "<q" if little_endian else ">q"
    for key in keys:
        storage_type, expected = found[key]
        header = stream.read(8)
        if len(header) != 8 or struct.unpack(count, header)[0] != expected:
            raise corrupt(f"storage {key} is missing or has the wrong size")
        nbytes = expected * storage_type.element_size()
        data = stream.read(nbytes)
        if len(data) != nbytes:
            raise corrupt(f"storage {key} ends early")
        raws[key] = np.frombuffer(bytearray(data), np.uint8)
    stream.seek(start)
    storages: dict[tuple[str, Any], Storage] = {}

    def load_storage(pid: Any) -> Storage:
        storage_type, key, location, _, view = _storage_id(pid, 6)
        if (key, None) not in storages:
            raw = restore(raws[key], location)
            storages[key, None] = Storage(raw, storage_type.dtype_name, not little_endian)
        root = storages[key, None]
        if view is None:
            return root
        if not (
            isinstance(view, tuple)
            and len(view) == 3
            and all(isinstance(part, int) and part >= 0 for part in view[1:])
        ):
            raise pickle.UnpicklingError(f"bad storage view {view!r}")
        view_key, offset, size = view
        if (key, view_key) not in storages:
            item = storage_type.element_size()
            if (offset + size) * item > root.raw.nbytes:
                raise corrupt(f"storage view {view!r} is out of bounds")
            raw = root.raw[offset * item : (offset + size) * item]
            storages[key, view_key] = Storage(raw, root.dtype_name, root.big_endian)
        return storages[key, view_key]

    return unpickle(stream, load_storage)


def _no_storages(pid: Any) -> Any:
    raise pickle.UnpicklingError("unexpected persistent id in a checkpoint's header")


def _load_safetensors(f: str | os.PathLike[str], map_location: Any) -> dict[str, Any]:
    """``load`` of a ``.safetensors`` path, as torch's ``load`` does it."""
    if isinstance(map_location, dict) or (
        callable(map_location) and not isinstance(map_location, (str, device))
    ):
        kind = "dict" if isinstance(map_location, dict) else "callable"
        raise RuntimeError(
            f"Loading safetensors file with {kind} map_location is not supported. "
            "Use a device string or torch.device instead."
        )
    return safetensors.load_file(f, device="cpu" if map_location is None else map_location)
