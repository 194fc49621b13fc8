"""The safetensors format: byte-exact files, round trips, dtypes hookgrad lacks, and
corrupt files refused before anything loads."""

import json
import struct

import numpy as np
import pytest

import hookgrad
from hookgrad.serialization.safetensors import (
    SafetensorError,
    load,
    load_file,
    save,
    save_file,
)


def _file(header: dict, data: bytes, padding: int = 0) -> bytes:
    """Safetensors bytes written by hand from the format's definition."""
    text = json.dumps(header, separators=(",", ":")).encode() + b" " * padding
    return struct.pack("<Q", len(text)) + text + data


def test_files_are_byte_exact():
    values = struct.pack("<6f", 0, 1, 2, 3, 4, 5)
    header = {"attn.0": {"dtype": "F32", "shape": [1, 2, 3], "data_offsets": [0, 24]}}
    assert save({"attn.0": hookgrad.arange(6.0).reshape(1, 2, 3)}) == _file(header, values)
    # the header is padded with spaces to a multiple of 8 bytes
    header = {"attn0": {"dtype": "F32", "shape": [1, 1, 2, 3], "data_offsets": [0, 24]}}
    assert save({"attn0": hookgrad.arange(6.0).reshape(1, 1, 2, 3)}) == _file(header, values, 7)
    assert save({}) == _file({}, b"", 6)
    metadata = {"__metadata__": {"framework": "pt"}}
    assert save({}, metadata={"framework": "pt"}) == _file(metadata, b"", 5)


def test_tensors_are_ordered_by_alignment_then_name():
    tensors = {
        "b": hookgrad.ones(1, dtype=hookgrad.float16),
        "a": hookgrad.ones(1, dtype=hookgrad.float16),
        "c": hookgrad.ones(1, dtype=hookgrad.float64),
        "d": hookgrad.tensor([True]),
    }
    (length,) = struct.unpack("<Q", save(tensors)[:8])
    header = json.loads(save(tensors)[8 : 8 + length])
    assert list(header) == ["c", "a", "b", "d"]
    assert [header[name]["data_offsets"] for name in header] == [
        [0, 8],
        [8, 10],
        [10, 12],
        [12, 13],
    ]


def test_round_trip(tmp_path):
    tensors = {
        "bool": hookgrad.tensor([True, False]),
        "int32": hookgrad.tensor([[1, -2]], dtype=hookgrad.int32),
        "int64": hookgrad.arange(5),
        "uint8": hookgrad.tensor([0, 255], dtype=hookgrad.uint8),
        "int8": hookgrad.tensor([-128, 127], dtype=hookgrad.int8),
        "int16": hookgrad.tensor([[-300]], dtype=hookgrad.int16),
        "float16": hookgrad.tensor([0.5, -1.0], dtype=hookgrad.float16),
        "float32": hookgrad.randn(3, 4),
        "float64": hookgrad.randn(2, dtype=hookgrad.float64),
        "complex64": hookgrad.tensor([1 + 2j]),
        "scalar": hookgrad.tensor(2.5),
        "empty": hookgrad.zeros(0, 3),
    }
    path = tmp_path / "model.safetensors"
    save_file(tensors, path, metadata={"format": "pt"})
    for loaded in (load_file(path), load(path.read_bytes()), hookgrad.load(path)):
        assert list(loaded) == sorted(tensors)
        for name, tensor in tensors.items():
            assert loaded[name].dtype is tensor.dtype and loaded[name].shape == tensor.shape
            np.testing.assert_array_equal(loaded[name].numpy(), tensor.numpy())
    model = hookgrad.nn.Linear(3, 2)
    save_file(model.state_dict(), path)
    twin = hookgrad.nn.Linear(3, 2)
    twin.load_state_dict(load_file(path))
    np.testing.assert_array_equal(twin.weight.detach().numpy(), model.weight.detach().numpy())


def test_small_ints_load_as_they_are_and_bfloat16_widened(torch):
    raw = {
        "BF16": torch.tensor([1.5, -2.25, 3e38], dtype=torch.bfloat16),
        "I8": torch.tensor([-128, 127], dtype=torch.int8),
        "I16": torch.tensor([-300], dtype=torch.int16),
        "U8": torch.tensor([0, 255], dtype=torch.uint8),
    }
    header, data = {}, b""
    for code, tensor in raw.items():
        chunk = tensor.view(torch.uint8).numpy().tobytes()
        header[code] = {
            "dtype": code,
            "shape": list(tensor.shape),
            "data_offsets": [len(data), len(data) + len(chunk)],
        }
        data += chunk
    loaded = load(_file(header, data))
    expected_dtypes = {"BF16": "float32", "I8": "int8", "I16": "int16", "U8": "uint8"}
    for code, tensor in raw.items():
        assert loaded[code].dtype is getattr(hookgrad, expected_dtypes[code])
        assert loaded[code].tolist() == tensor.tolist()


def test_what_safetensors_cannot_hold_is_refused():
    x = hookgrad.arange(4.0)
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        save({"a": x, "b": x[1:]})
    with pytest.raises(ValueError, match="non contiguous tensor: `a`"):
        save({"a": hookgrad.ones(2, 3).t()})
    with pytest.raises(ValueError, match="no dtype for torch.complex128"):
        save({"a": hookgrad.ones(1, dtype=hookgrad.complex128)})
    with pytest.raises(ValueError, match="Key `a` is invalid"):
        save({"a": [1.0]})


GOOD = {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\x08\x00\x00", "HeaderTooSmall"),
        (struct.pack("<Q", 10**9) + b"{}", "HeaderTooLarge"),
        (_file(GOOD, bytes(8))[:12], "InvalidHeaderLength"),
        (_file(GOOD, bytes(7)), "MetadataIncompleteBuffer"),
        (_file(GOOD, bytes(9)), "MetadataIncompleteBuffer"),
        (struct.pack("<Q", 4) + b"{]}x", "InvalidHeaderDeserialization"),
        (struct.pack("<Q", 2) + b"\xff\xfe", "InvalidHeaderDeserialization"),
        (
            _file({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, bytes(8)),
            "TensorInvalidInfo",
        ),
        (
            _file({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, bytes(8)),
            "InvalidOffset",
        ),
        (
            _file({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, bytes(8)),
            "InvalidHeaderDeserialization",
        ),
        (
            _file({"w": {"dtype": "X9", "shape": [2], "data_offsets": [0, 8]}}, bytes(8)),
            "InvalidHeaderDeserialization",
        ),
        (_file({"w": GOOD["w"], "v": GOOD["w"]}, bytes(8)), "InvalidOffset"),
    ],
)
def test_corrupt_files_are_refused(tmp_path, data, kind):
    with pytest.raises(SafetensorError, match=kind):
        load(data)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(SafetensorError, match=kind):
        load_file(path)
    assert path.read_bytes() == data


def test_duplicate_names_are_refused():
    entry = b'{"dtype":"F32","shape":[1],"data_offsets":[0,4]}'
    text = b'{"w":' + entry + b',"w":' + entry + b"}"
    with pytest.raises(SafetensorError, match="duplicate key"):
        load(struct.pack("<Q", len(text)) + text + bytes(4))


def test_load_takes_only_cpu_locations(tmp_path):
    path = tmp_path / "w.safetensors"
    save_file({"w": hookgrad.ones(2)}, path)
    assert hookgrad.load(path, map_location="cpu")["w"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="dict map_location is not supported"):
        hookgrad.load(path, map_location={"cpu": "cpu"})
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        load_file(path, device="cuda")
