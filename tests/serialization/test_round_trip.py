"""``hookgrad.save`` then ``hookgrad.load``: tensors, Parameters, layouts and Python
values come back as they were saved."""

import collections
import io
import pickle

import numpy as np
import pytest

import hookgrad
from hookgrad.serialization import safe_globals

DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "complex64", "complex128",
]  # fmt: skip


def _round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    hookgrad.save(obj, buffer)
    buffer.seek(0)
    return hookgrad.load(buffer, **load_kwargs)


def _assert_same_tensor(actual, expected):
    assert type(actual) is type(expected)
    assert actual.dtype is expected.dtype
    assert actual.shape == expected.shape
    assert actual.stride() == expected.stride()
    assert actual.requires_grad == expected.requires_grad
    assert actual.is_leaf
    np.testing.assert_array_equal(actual.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 3, 2)])
def test_tensor_round_trip_keeps_dtype_shape_and_values(name, shape):
    x = (hookgrad.arange(int(np.prod(shape))) - 2).reshape(shape).to(getattr(hookgrad, name))
    _assert_same_tensor(_round_trip(x), x)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_requires_grad_and_parameters_are_kept(name):
    dtype = getattr(hookgrad, name)
    x = hookgrad.ones(2, 3, dtype=dtype, requires_grad=True)
    parameter = hookgrad.nn.Parameter(hookgrad.zeros(3, dtype=dtype))
    frozen = hookgrad.nn.Parameter(hookgrad.zeros(3, dtype=dtype), requires_grad=False)
    loaded = _round_trip({"leaf": x, "detached": x.detach(), "p": parameter, "f": frozen})
    _assert_same_tensor(loaded["leaf"], x)
    assert not loaded["detached"].requires_grad
    _assert_same_tensor(loaded["p"], parameter)
    _assert_same_tensor(loaded["f"], frozen)


def test_non_leaf_loads_as_a_leaf_that_requires_grad(torch):
    loaded = _round_trip(hookgrad.tensor([1.0, 2.0], requires_grad=True) * 3)
    assert loaded.is_leaf and loaded.requires_grad and loaded.grad_fn is None
    assert loaded.tolist() == [3.0, 6.0]
    buffer = io.BytesIO()
    torch.save(torch.tensor([1.0, 2.0], requires_grad=True) * 3, buffer)
    buffer.seek(0)
    expected = torch.load(buffer)
    assert expected.is_leaf and expected.requires_grad  # torch does the same


def test_special_values_survive():
    x = hookgrad.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1e-45])
    loaded = _round_trip(x).numpy()
    np.testing.assert_array_equal(loaded, x.numpy())
    assert np.signbit(loaded[3])


def test_nested_checkpoint_round_trip():
    model = hookgrad.nn.Linear(2, 3)
    optimizer = hookgrad.optim.Adam(model.parameters())
    model(hookgrad.ones(4, 2)).sum().backward()
    optimizer.step()
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": 7,
        "names": ["a", "b"],
        "flags": (True, None, 2.5, 1 + 2j, b"raw", "text", 2**80),
        "dtype": hookgrad.float16,
        "size": hookgrad.Size([2, 3]),
        "device": hookgrad.device("cpu"),
        "set": {1, 2},
        "bytes": bytearray(b"xy"),
        "counter": collections.Counter("aab"),
    }
    loaded = _round_trip(state)
    assert type(loaded["model"]) is collections.OrderedDict
    assert list(loaded["model"]) == ["weight", "bias"]
    for name, tensor in state["model"].items():
        _assert_same_tensor(loaded["model"][name], tensor)
    twin = hookgrad.nn.Linear(2, 3)
    twin_optimizer = hookgrad.optim.Adam(twin.parameters())
    twin.load_state_dict(loaded["model"])
    twin_optimizer.load_state_dict(loaded["optimizer"])
    assert twin_optimizer.state_dict()["state"][0]["step"].item() == 1
    for key in ("epoch", "names", "flags", "set", "bytes", "counter", "device"):
        assert loaded[key] == state[key] and type(loaded[key]) is type(state[key])
    assert loaded["dtype"] is hookgrad.float16
    assert type(loaded["size"]) is hookgrad.Size and loaded["size"] == (2, 3)


def test_same_object_loads_as_one_object_and_memory_is_its_own():
    x = hookgrad.arange(3.0)
    loaded = _round_trip({"a": x, "b": [x]})
    assert loaded["a"] is loaded["b"][0]
    loaded["a"][0] = 9.0
    assert x.tolist() == [0.0, 1.0, 2.0]


def test_views_share_memory_after_loading():
    base = hookgrad.arange(12.0).reshape(3, 4)
    loaded = _round_trip({"base": base, "row": base[1], "t": base.t(), "col": base[:, 2]})
    for name in ("row", "t", "col"):
        expected = {"row": base[1], "t": base.t(), "col": base[:, 2]}[name]
        assert loaded[name].stride() == expected.stride()
        assert loaded[name].storage_offset() == expected.storage_offset()
    loaded["base"][1, 2] = -1.0
    assert loaded["row"][2].item() == loaded["t"][2, 1].item() == loaded["col"][1].item() == -1.0


def test_memory_torch_cannot_describe_is_saved_as_a_copy():
    flipped = hookgrad.from_numpy(np.arange(6.0)[::-1].copy()[::-1])  # negative strides
    _assert_same_tensor(
        _round_trip(flipped), hookgrad.tensor(flipped.tolist(), dtype=flipped.dtype)
    )


class Tagged(hookgrad.Tensor):
    """A user tensor subclass: loaded only when allowed."""


def test_tensor_subclasses_need_to_be_allowed():
    tagged = object.__new__(Tagged)
    tagged.__dict__.update(vars(hookgrad.arange(3.0)))
    with pytest.raises(pickle.UnpicklingError, match="Tagged was not an allowed global"):
        _round_trip(tagged)
    with safe_globals([Tagged]):
        loaded = _round_trip(tagged)
    assert type(loaded) is Tagged and loaded.tolist() == [0.0, 1.0, 2.0]


def test_arbitrary_objects_save_but_load_only_when_trusted():
    arrays = {"array": np.arange(4.0), "scalar": np.float32(2.5)}
    with pytest.raises(pickle.UnpicklingError, match="not an allowed global"):
        _round_trip(arrays)
    loaded = _round_trip(arrays, weights_only=False)
    np.testing.assert_array_equal(loaded["array"], arrays["array"])
    assert loaded["scalar"] == np.float32(2.5) and loaded["scalar"].dtype == np.float32


def test_a_failed_save_leaves_no_file(tmp_path):
    target = tmp_path / "model.pt"
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        hookgrad.save({"fn": lambda x: x, "w": hookgrad.ones(2)}, target)
    assert not target.exists()
