"""Checkpoints both ways: files ``torch.save`` writes load in hookgrad (in a process that
cannot import torch), and files ``hookgrad.save`` writes load in ``torch.load`` with
``weights_only=True``, values, dtypes, layouts and shared storages compared."""

import collections
import io
import json
import pathlib
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import hookgrad
from tests.serialization.without_torch import describe

SCRIPT = pathlib.Path(__file__).with_name("without_torch.py")
# torch dtype -> what hookgrad loads it as (dtypes hookgrad lacks are widened).
WIDENED = {"torch.bfloat16": "torch.float32"}


def _load_without_torch(path, **kwargs):
    """What ``hookgrad.load(path, **kwargs)`` gives in a process without torch."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(path), json.dumps(kwargs)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _storage_groups(description, found=None):
    """Replace storage addresses by the order in which each first appears."""
    found = {} if found is None else found
    if "storage" in description:
        address = description["storage"]
        description = dict(description, storage=found.setdefault(address, len(found)))
    elif "items" in description:
        items = [
            [item[0], _storage_groups(item[1], found)]
            if isinstance(item, list)
            else _storage_groups(item, found)
            for item in description["items"]
        ]
        description = dict(description, items=items)
    return description


def _as_hookgrad_loads(description):
    """A ``describe`` of torch's objects with the dtypes hookgrad loads them as (a dtype
    hookgrad lacks, as a value, is an ``UnsupportedDtype``)."""
    if description.get("class") == "dtype" and description["repr"] in WIDENED:
        return dict(description, **{"class": "UnsupportedDtype"})
    if "dtype" in description:
        return dict(description, dtype=WIDENED.get(description["dtype"], description["dtype"]))
    if "items" in description:
        return dict(
            description,
            items=[
                [item[0], _as_hookgrad_loads(item[1])]
                if isinstance(item, list)
                else _as_hookgrad_loads(item)
                for item in description["items"]
            ],
        )
    return description


def _assert_loads_as_in_torch(torch, tmp_path, obj, **save_kwargs):
    path = tmp_path / "from_torch.pt"
    torch.save(obj, path, **save_kwargs)
    loaded = _load_without_torch(path)
    expected = torch.load(path, weights_only=True)
    assert _storage_groups(loaded) == _storage_groups(_as_hookgrad_loads(describe(expected)))
    return loaded


# ---------------------------------------------------------------- torch.save -> hookgrad

TORCH_DTYPES = [
    "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
    "bool", "complex64", "complex128",
]  # fmt: skip


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_every_dtype_and_layout_loads_without_torch(torch, tmp_path, legacy):
    tensors = {}
    for name in TORCH_DTYPES:
        dtype = getattr(torch, name)
        values = torch.arange(-3, 9).reshape(3, 4)
        if dtype.is_complex:
            values = values + 0.5j * values.flip(0)
        tensors[name] = values.to(dtype)
    base = torch.arange(24.0).reshape(2, 3, 4)
    small = torch.arange(250, 262).to(torch.uint8)  # views of it share memory once loaded
    checkpoint = {
        "dtypes": tensors,
        "scalar": torch.tensor(2.5, dtype=torch.float64),
        "widened_scalar": torch.tensor(1.5, dtype=torch.bfloat16),
        "small_ints": [torch.tensor(-3).to(torch.int8), small, small[2:].view(2, 5)],
        "widened_view": torch.arange(6.0).reshape(2, 3).to(torch.bfloat16).t(),
        "empty": torch.zeros(2, 0, 3),
        "base": base,
        "transposed": base.transpose(0, 2),  # non-contiguous view of base
        "sliced": base[1, 1:, ::2],  # storage offset, strides (4, 2)
        "expanded": torch.ones(3, 1).expand(3, 4),  # stride 0
        "special": torch.tensor([float("nan"), float("inf"), -0.0, 1e-45]),
    }
    loaded = _assert_loads_as_in_torch(
        torch, tmp_path, checkpoint, _use_new_zipfile_serialization=not legacy
    )
    groups = _storage_groups(loaded)["items"]
    by_name = dict((key, value["storage"]) for key, value in groups if "storage" in value)
    assert by_name["'base'"] == by_name["'transposed'"] == by_name["'sliced'"]
    assert len(set(by_name.values())) == len(by_name) - 2


def test_views_keep_sharing_memory_after_load(torch, tmp_path):
    base = torch.arange(12.0).reshape(3, 4)
    torch.save({"base": base, "view": base[1:, 1:].t()}, tmp_path / "views.pt")
    loaded = hookgrad.load(tmp_path / "views.pt")
    view = loaded["view"]
    assert view.stride() == (1, 4) and view.storage_offset() == 5
    assert view.untyped_storage().data_ptr() == loaded["base"].untyped_storage().data_ptr()
    loaded["base"][1, 1] = 100.0
    assert view[0, 0].item() == 100.0
    assert view.tolist() == [[100.0, 9.0], [6.0, 10.0], [7.0, 11.0]]


def test_state_dicts_and_python_values_load_without_torch(torch, tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(5, 3)).sum().backward()
    optimizer.step()
    optimizer_state = optimizer.state_dict()
    optimizer_state["state"][1]["step"] = torch.tensor(7)  # an int64 step tensor
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer_state,
        "parameter": torch.nn.Parameter(torch.ones(2, 2)),
        "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
        "size": torch.Size([2, 3]),
        "dtype": torch.float16,
        "other_dtype": torch.bfloat16,
        "device": torch.device("cuda", 1),
        "values": [1, 2.5, None, True, "text", b"raw", (1, (2, 3)), 2**70, 1 + 2j, {4, 5}],
        "counter": collections.Counter("aab"),
        "ordered": collections.OrderedDict(b=1, a=2),
        "bytes": bytearray(b"ab"),
    }
    loaded = _assert_loads_as_in_torch(torch, tmp_path, checkpoint)
    items = dict(loaded["items"])
    assert items["'parameter'"]["class"] == "Parameter"
    assert items["'parameter'"]["requires_grad"] is True
    assert items["'frozen'"]["requires_grad"] is False
    assert items["'other_dtype'"] == {"class": "UnsupportedDtype", "repr": "torch.bfloat16"}


def test_a_torch_model_and_optimizer_continue_in_hookgrad(torch, tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    x = torch.randn(4, 3)
    model(x).pow(2).sum().backward()
    optimizer.step()
    torch.save(
        {"model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp_path / "c.pt"
    )

    checkpoint = hookgrad.load(tmp_path / "c.pt")
    twin = hookgrad.nn.Linear(3, 2)
    twin_optimizer = hookgrad.optim.Adam(twin.parameters(), lr=0.1)
    twin.load_state_dict(checkpoint["model"])
    twin_optimizer.load_state_dict(checkpoint["optimizer"])
    for library, net, opt in ((torch, model, optimizer), (hookgrad, twin, twin_optimizer)):
        opt.zero_grad()
        net(library.tensor(x.numpy())).pow(2).sum().backward()
        opt.step()
    np.testing.assert_allclose(twin.weight.detach().numpy(), model.weight.detach().numpy(), 1e-6)


def test_map_location(torch, tmp_path):
    path = tmp_path / "cpu.pt"
    torch.save({"w": torch.arange(3.0)}, path)
    seen = []

    def keep(storage, location):
        seen.append(location)
        return storage

    for map_location in ("cpu", hookgrad.device("cpu"), {"cuda:0": "cpu"}, keep, None):
        assert hookgrad.load(path, map_location=map_location)["w"].tolist() == [0.0, 1.0, 2.0]
    assert seen == ["cpu"]
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        hookgrad.load(path, map_location="cuda")
    with pytest.raises(RuntimeError, match="CUDA device"):
        hookgrad.load(path, map_location={"cpu": "cuda:1"})
    with pytest.raises(RuntimeError, match="CUDA device"):
        torch.load(path, map_location="cuda")  # torch's CPU build says the same


def test_mmap_maps_storages_copy_on_write(torch, tmp_path):
    path = tmp_path / "big.pt"
    torch.save({"w": torch.arange(1000.0), "v": torch.ones(3, dtype=torch.int64)}, path)
    loaded = hookgrad.load(path, mmap=True)
    assert loaded["w"].tolist() == list(map(float, range(1000)))
    root = loaded["w"]._data
    while not isinstance(root, np.memmap) and root.base is not None:
        root = root.base
    assert isinstance(root, np.memmap)
    loaded["w"][0] = -1.0  # copy-on-write: the file is unchanged
    assert hookgrad.load(path)["w"][0].item() == 0.0
    with pytest.raises(ValueError, match="file path"):
        hookgrad.load(io.BytesIO(path.read_bytes()), mmap=True)


# ---------------------------------------------------------------- hookgrad.save -> torch

HOOKGRAD_DTYPES = [
    "bool",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_torch_reads_hookgrad_checkpoints_with_weights_only(torch, tmp_path, legacy):
    base = hookgrad.arange(24.0).reshape(2, 3, 4)
    checkpoint = {
        "dtypes": {
            name: (hookgrad.arange(-3, 9).reshape(3, 4) % 5).to(getattr(hookgrad, name))
            for name in HOOKGRAD_DTYPES
        },
        "base": base,
        "transposed": base.transpose(0, 2),
        "sliced": base[1, 1:, ::2],
        "expanded": hookgrad.ones(3, 1).expand(3, 4),
        "scalar": hookgrad.tensor(2.5),
        "empty": hookgrad.zeros(2, 0, 3),
        "parameter": hookgrad.nn.Parameter(hookgrad.ones(2, 2)),
        "non_leaf": hookgrad.ones(2, requires_grad=True) * 3,
        "size": hookgrad.Size([2, 3]),
        "dtype": hookgrad.complex64,
        "device": hookgrad.device("cpu"),
        "values": [1, 2.5, None, True, "text", b"raw", (1, (2, 3)), 2**70, 1 + 2j, {4, 5}],
        "ordered": collections.OrderedDict(b=1, a=2),
    }
    path = tmp_path / "from_hookgrad.pt"
    hookgrad.save(checkpoint, path, _use_new_zipfile_serialization=not legacy)
    loaded = torch.load(path, weights_only=True)
    assert _storage_groups(describe(loaded)) == _storage_groups(describe(hookgrad.load(path)))
    expected = _storage_groups(describe(checkpoint))
    # a non-leaf saves as a leaf that requires grad, in both libraries
    assert _storage_groups(describe(loaded)) == expected
    assert type(loaded["parameter"]) is torch.nn.Parameter
    loaded["base"][1, 1, 0] = -7.0
    assert loaded["sliced"][0, 0].item() == -7.0  # still a view of base


def test_torch_model_loads_a_hookgrad_state_dict(torch, tmp_path):
    hookgrad.manual_seed(0)
    model = hookgrad.nn.Sequential(
        hookgrad.nn.Linear(3, 4), hookgrad.nn.ReLU(), hookgrad.nn.Linear(4, 1)
    )
    hookgrad.save(model.state_dict(), tmp_path / "model.pt")
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    twin.load_state_dict(torch.load(tmp_path / "model.pt", weights_only=True))
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        twin(torch.tensor(x)).detach().numpy(), model(hookgrad.tensor(x)).detach().numpy(), 1e-6
    )


def test_file_objects_paths_and_alignment(torch, tmp_path):
    x = hookgrad.arange(5.0)
    for target in (str(tmp_path / "a.pt"), tmp_path / "b.pt"):
        hookgrad.save(x, target)
        assert torch.load(target).tolist() == x.tolist()
        assert hookgrad.load(target).tolist() == x.tolist()
    buffer = io.BytesIO()
    hookgrad.save([x, x * 2], buffer)
    buffer.seek(0)
    assert [t.tolist() for t in torch.load(buffer)] == [x.tolist(), (x * 2).tolist()]
    with open(tmp_path / "c.pt", "wb") as file:
        hookgrad.save({"x": x}, file)
    with open(tmp_path / "c.pt", "rb") as file:
        assert hookgrad.load(file)["x"].tolist() == x.tolist()
    # torch maps storages straight from the file: records start at multiples of 64
    assert torch.load(tmp_path / "c.pt", mmap=True)["x"].tolist() == x.tolist()


def test_torch_names_survive_a_round_trip_through_hookgrad(torch, tmp_path):
    torch.save({"dtype": torch.bfloat16, "uint8": torch.uint8}, tmp_path / "names.pt")
    loaded = hookgrad.load(tmp_path / "names.pt")
    assert repr(loaded["dtype"]) == "torch.bfloat16"
    loaded["format"] = hookgrad.channels_last
    hookgrad.save(loaded, tmp_path / "again.pt")
    again = torch.load(tmp_path / "again.pt", weights_only=False)
    assert again == {"dtype": torch.bfloat16, "uint8": torch.uint8, "format": torch.channels_last}
    assert (
        hookgrad.load(tmp_path / "again.pt", weights_only=False)["format"] is hookgrad.channels_last
    )


def test_saving_to_a_stream_that_cannot_seek(torch):
    class Stream:
        def __init__(self):
            self.chunks = []

        def write(self, data):
            self.chunks.append(bytes(data))
            return len(data)

        def flush(self):
            pass

    stream = Stream()
    hookgrad.save({"x": hookgrad.arange(100.0)}, stream)
    data = b"".join(stream.chunks)
    assert torch.load(io.BytesIO(data), weights_only=True)["x"].tolist() == list(
        map(float, range(100))
    )


def test_big_endian_checkpoints_load(torch):
    source = io.BytesIO()
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "i": torch.tensor([1, -2])}, source)
    archive = zipfile.ZipFile(source)
    swapped = io.BytesIO()
    with zipfile.ZipFile(swapped, "w") as out:
        for name in archive.namelist():
            data = archive.read(name)
            if name == "archive/byteorder":
                data = b"big"
            elif name.startswith("archive/data/"):
                data = np.frombuffer(data, "<i8" if len(data) == 16 else "<f4").byteswap().tobytes()
            out.writestr(name, data)
    for load in (hookgrad.load, torch.load):
        swapped.seek(0)
        loaded = load(swapped)
        assert loaded["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        assert loaded["i"].tolist() == [1, -2]
