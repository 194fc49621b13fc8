"""``hookgrad.save`` / ``hookgrad.load``: round trips, and loading never runs code."""

import collections
import io
import pathlib
import pickle
import sys
import types
import zipfile

import numpy as np
import pytest

import hookgrad

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


def _round_trip(obj):
    buffer = io.BytesIO()
    hookgrad.save(obj, buffer)
    buffer.seek(0)
    return hookgrad.load(buffer)


def _assert_same_tensor(actual, expected):
    assert type(actual) is type(expected)
    assert actual.dtype is expected.dtype
    assert actual.shape == expected.shape
    assert actual.requires_grad == expected.requires_grad
    assert actual.is_leaf
    np.testing.assert_array_equal(actual.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 3, 2)])
def test_tensor_round_trip_keeps_dtype_shape_and_values(name, shape):
    x = (hookgrad.arange(int(np.prod(shape))) - 2).reshape(shape).to(getattr(hookgrad, name))
    _assert_same_tensor(_round_trip(x), x)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_requires_grad_is_kept(name):
    x = hookgrad.ones(2, 3, dtype=getattr(hookgrad, name), requires_grad=True)
    loaded = _round_trip({"leaf": x, "frozen": x.detach()})
    _assert_same_tensor(loaded["leaf"], x)
    assert not loaded["frozen"].requires_grad


def test_non_leaf_loads_as_a_leaf_that_requires_grad(torch):
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True) * 3
    loaded = _round_trip(x)
    assert loaded.is_leaf and loaded.requires_grad and loaded.grad_fn is None
    assert loaded.tolist() == [3.0, 6.0]
    # torch does the same:
    buffer = io.BytesIO()
    torch.save(torch.tensor([1.0, 2.0], requires_grad=True) * 3, buffer)
    buffer.seek(0)
    expected = torch.load(buffer)
    assert expected.is_leaf and expected.requires_grad


def test_special_values_survive():
    x = hookgrad.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1e-45])
    loaded = _round_trip(x).numpy()
    np.testing.assert_array_equal(loaded, x.numpy())
    assert np.signbit(loaded[3])


def test_nested_state_dict_round_trip():
    state = {
        "model": collections.OrderedDict(
            [("fc.weight", hookgrad.randn(3, 2)), ("fc.bias", hookgrad.zeros(3))]
        ),
        "optimizer": {
            "state": {0: {"step": 5, "exp_avg": hookgrad.ones(3, 2, dtype=hookgrad.float64)}},
            "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1]}],
        },
        "epoch": 7,
        "names": ["a", "b"],
        "flags": (True, None, 2.5, 1 + 2j, b"raw", "text"),
        "dtype": hookgrad.float16,
        "size": hookgrad.Size([2, 3]),
        "device": hookgrad.device("cpu"),
        "set": {1, 2},
        "array": np.arange(4.0).reshape(2, 2),
        "scalar": np.float32(2.5),
    }
    loaded = _round_trip(state)
    assert type(loaded["model"]) is collections.OrderedDict
    assert list(loaded["model"]) == ["fc.weight", "fc.bias"]
    for name, tensor in state["model"].items():
        _assert_same_tensor(loaded["model"][name], tensor)
    optimizer = loaded["optimizer"]
    assert optimizer["state"][0]["step"] == 5
    _assert_same_tensor(optimizer["state"][0]["exp_avg"], state["optimizer"]["state"][0]["exp_avg"])
    assert optimizer["param_groups"] == state["optimizer"]["param_groups"]
    assert loaded["epoch"] == 7 and loaded["names"] == ["a", "b"]
    assert loaded["flags"] == state["flags"]
    assert loaded["dtype"] is hookgrad.float16
    assert loaded["size"] == (2, 3) and repr(loaded["size"]) == "torch.Size([2, 3])"
    assert loaded["device"] == hookgrad.device("cpu")
    assert loaded["set"] == {1, 2}
    np.testing.assert_array_equal(loaded["array"], state["array"])
    assert loaded["scalar"] == np.float32(2.5) and loaded["scalar"].dtype == np.float32


def test_paths_and_file_objects(tmp_path):
    x = hookgrad.arange(5.0)
    for target in (str(tmp_path / "a.pt"), tmp_path / "b.pt"):
        hookgrad.save(x, target)
        _assert_same_tensor(hookgrad.load(target), x)
    with open(tmp_path / "c.pt", "wb") as file:
        hookgrad.save([x, x * 2], file)
    with open(tmp_path / "c.pt", "rb") as file:
        loaded = hookgrad.load(file, map_location="cpu", weights_only=True)
    assert [t.tolist() for t in loaded] == [x.tolist(), (x * 2).tolist()]
    assert isinstance(tmp_path / "b.pt", pathlib.Path)


def test_same_object_loads_as_one_object_and_memory_is_its_own():
    x = hookgrad.arange(3.0)
    loaded = _round_trip({"a": x, "b": [x]})
    assert loaded["a"] is loaded["b"][0]
    loaded["a"].numpy()[0] = 9.0  # loaded arrays are writable and not x's memory
    assert x.tolist() == [0.0, 1.0, 2.0]


def test_non_contiguous_tensor():
    x = hookgrad.from_numpy(np.arange(6.0).reshape(2, 3).T)
    _assert_same_tensor(_round_trip(x), x)


def test_map_location_must_be_the_cpu():
    buffer = io.BytesIO()
    hookgrad.save(hookgrad.ones(1), buffer)
    buffer.seek(0)
    with pytest.raises(AssertionError, match="CUDA"):
        hookgrad.load(buffer, map_location="cuda")


class _Exploit:
    """Pickles to a call of ``os.system``: what a malicious checkpoint would contain."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.path}",))


def _archive_with_pickle(payload: bytes) -> io.BytesIO:
    buffer = io.BytesIO()
    hookgrad.save(hookgrad.ones(1), buffer)
    buffer.seek(0)
    with zipfile.ZipFile(buffer) as source:
        members = {name: source.read(name) for name in source.namelist()}
    members["hookgrad/data.pkl"] = payload
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    out.seek(0)
    return out


def test_load_refuses_code_in_the_pickle(tmp_path):
    marker = tmp_path / "pwned"
    payload = pickle.dumps({"weight": _Exploit(marker)})
    with pytest.raises(pickle.UnpicklingError, match=r"refuses the global '\w+\.system'"):
        hookgrad.load(_archive_with_pickle(payload))
    assert not marker.exists()


class Plain:
    """An ordinary user class: hookgrad.load will not rebuild it."""

    def __init__(self):
        self.weight = hookgrad.ones(2)


def test_load_refuses_arbitrary_classes():
    buffer = io.BytesIO()
    hookgrad.save({"obj": Plain()}, buffer)  # saving works, as in torch
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="test_serialization.Plain"):
        hookgrad.load(buffer)


def test_load_refuses_pickled_object_arrays():
    buffer = io.BytesIO()
    with pytest.raises(TypeError, match="objects"):
        hookgrad.save(np.array([object()]), buffer)


def test_load_rejects_foreign_files(tmp_path):
    plain = tmp_path / "plain.pt"
    plain.write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(RuntimeError, match="not a file written by hookgrad.save"):
        hookgrad.load(plain)
    other_zip = tmp_path / "other.zip"
    with zipfile.ZipFile(other_zip, "w") as archive:
        archive.writestr("archive/data.pkl", b"")
    with pytest.raises(RuntimeError, match="not a file written by hookgrad.save"):
        hookgrad.load(other_zip)


class _Parameter(hookgrad.Tensor):
    """A Tensor subclass with torch's ``Parameter(data, requires_grad)`` signature."""

    def __init__(self, data, requires_grad=True):
        super().__init__(data, requires_grad=requires_grad)


def test_hookgrad_tensor_subclasses_are_rebuilt(monkeypatch):
    module = types.ModuleType("hookgrad._test_parameter")
    module.Parameter = type("Parameter", (_Parameter,), {"__module__": module.__name__})
    monkeypatch.setitem(sys.modules, module.__name__, module)
    p = module.Parameter(hookgrad.ones(2, 3))
    loaded = _round_trip({"weight": p})["weight"]
    assert type(loaded) is module.Parameter
    _assert_same_tensor(loaded, p)


def test_tensor_subclasses_outside_hookgrad_are_refused():
    buffer = io.BytesIO()
    hookgrad.save(_Parameter(hookgrad.ones(2)), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="refuses the tensor class"):
        hookgrad.load(buffer)
