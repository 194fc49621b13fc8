"""A truncated or corrupt checkpoint raises a clear ``RuntimeError`` and changes nothing:
not the file, not the model it was meant for."""

import io
import pickle
import struct
import zipfile

import numpy as np
import pytest

import hookgrad

CORRUPT = "truncated or corrupt"


def _checkpoint(torch, legacy=False):
    buffer = io.BytesIO()
    state = {"weight": torch.arange(64.0).reshape(8, 8), "bias": torch.ones(8), "step": 3}
    torch.save(state, buffer, _use_new_zipfile_serialization=not legacy)
    return buffer.getvalue()


def _data_start(raw: bytes, record: str) -> int:
    """Where the bytes of ``record`` start in the zip file ``raw``."""
    info = zipfile.ZipFile(io.BytesIO(raw)).getinfo(f"archive/{record}")
    name_length, extra_length = struct.unpack(
        "<HH", raw[info.header_offset + 26 : info.header_offset + 30]
    )
    return info.header_offset + 30 + name_length + extra_length


@pytest.mark.parametrize("fraction", [0.05, 0.3, 0.6, 0.9, 0.999])
def test_a_truncated_checkpoint_is_refused(torch, fraction):
    raw = _checkpoint(torch)
    with pytest.raises(RuntimeError, match=CORRUPT):
        hookgrad.load(io.BytesIO(raw[: int(len(raw) * fraction)]))


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8, 0.99])
def test_a_truncated_legacy_checkpoint_is_refused(torch, fraction):
    raw = _checkpoint(torch, legacy=True)
    with pytest.raises(RuntimeError, match=f"{CORRUPT}|Invalid magic number"):
        hookgrad.load(io.BytesIO(raw[: int(len(raw) * fraction)]))


@pytest.mark.parametrize("record", ["data.pkl", "data/0", "data/1"])
def test_a_flipped_byte_is_caught_by_the_checksum(torch, record):
    raw = bytearray(_checkpoint(torch))
    raw[_data_start(bytes(raw), record) + 5] ^= 0x40
    with pytest.raises(RuntimeError, match="Bad CRC-32"):
        hookgrad.load(io.BytesIO(bytes(raw)))


def _rewritten(raw: bytes, record: str, data: bytes | None) -> io.BytesIO:
    """``raw`` with ``record`` replaced by ``data`` (left out when None), checksums valid."""
    source = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in source.namelist():
            if name != f"archive/{record}":
                archive.writestr(name, source.read(name))
            elif data is not None:
                archive.writestr(name, data)
    out.seek(0)
    return out


def test_a_missing_or_short_storage_is_refused(torch):
    raw = _checkpoint(torch)
    with pytest.raises(RuntimeError, match="no record data/0"):
        hookgrad.load(_rewritten(raw, "data/0", None))
    with pytest.raises(RuntimeError, match="record data/0 has 12 bytes, not 256"):
        hookgrad.load(_rewritten(raw, "data/0", bytes(12)))
    with pytest.raises(RuntimeError, match="no data.pkl"):
        hookgrad.load(_rewritten(raw, "data.pkl", None))


def test_a_truncated_pickle_is_refused(torch):
    raw = _checkpoint(torch)
    pickled = zipfile.ZipFile(io.BytesIO(raw)).read("archive/data.pkl")
    with pytest.raises(pickle.UnpicklingError, match=CORRUPT):
        hookgrad.load(_rewritten(raw, "data.pkl", pickled[: len(pickled) // 2]))


def test_other_files_are_refused(tmp_path):
    for content, message in (
        (b"", "is empty"),
        (pickle.dumps({"weight": [1.0]}), "Invalid magic number"),
        (b"\x00" * 64, "Invalid magic number"),
        (b"PK\x03\x04 not really a zip", CORRUPT),
    ):
        path = tmp_path / "other.pt"
        path.write_bytes(content)
        with pytest.raises(RuntimeError, match=message):
            hookgrad.load(path)


def test_a_failed_load_changes_nothing(torch, tmp_path):
    path = tmp_path / "checkpoint.pt"
    raw = _checkpoint(torch)
    path.write_bytes(raw[: len(raw) // 2])
    model = hookgrad.nn.Linear(8, 8)
    before = {name: value.numpy().copy() for name, value in model.state_dict().items()}
    for mmap in (False, True):
        with pytest.raises(RuntimeError, match=CORRUPT):
            model.load_state_dict(hookgrad.load(path, mmap=mmap))
    for name, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[name])
    assert path.read_bytes() == raw[: len(raw) // 2]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_torchscript_archives_are_refused(torch):
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="cannot load TorchScript archives"):
        hookgrad.load(buffer)
