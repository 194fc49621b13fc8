"""``weights_only`` loading (the default): a checkpoint naming anything but tensors and
plain values is refused before any of it runs, with torch's error; ``add_safe_globals``,
``safe_globals`` and ``weights_only=False`` are the opt-ins."""

import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import hookgrad
from hookgrad.serialization import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)


class _Exploit:
    """Pickles to a call of ``os.system``: what a malicious checkpoint holds."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class Config:
    """A user class: loaded only when allowed."""

    def __init__(self, lr):
        self.lr = lr


class Stateful:
    """A user class with ``__setstate__``."""

    def __init__(self):
        self.value = 3

    def __setstate__(self, state):
        self.restored = state


@pytest.fixture(autouse=True)
def _no_leftover_safe_globals():
    yield
    clear_safe_globals()


def _torch_saved(torch, obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return buffer


def _errors(load):
    try:
        load()
    except Exception as error:  # noqa: BLE001 (the test compares what each raised)
        return type(error), str(error)
    raise AssertionError("expected the load to fail")


def test_a_malicious_pickle_is_refused_without_running(torch, tmp_path):
    marker = tmp_path / "pwned"
    data = _torch_saved(torch, {"weight": torch.ones(2), "payload": _Exploit(marker)}).getvalue()
    error_type, message = _errors(lambda: hookgrad.load(io.BytesIO(data)))
    assert error_type is pickle.UnpicklingError
    assert "Trying to load unsupported GLOBAL posix.system whose module posix is blocked" in message
    assert (error_type, message) == _errors(lambda: torch.load(io.BytesIO(data)))
    # even an allowlist cannot let os.system through
    add_safe_globals([os.system])
    with pytest.raises(pickle.UnpicklingError, match="is blocked"):
        hookgrad.load(io.BytesIO(data))
    assert not marker.exists()


def test_an_unknown_class_is_refused_with_torchs_message(torch):
    data = _torch_saved(torch, {"config": Config(0.1)}).getvalue()
    error_type, message = _errors(lambda: hookgrad.load(io.BytesIO(data)))
    assert error_type is pickle.UnpicklingError
    assert f"GLOBAL {__name__}.Config was not an allowed global by default" in message
    assert (error_type, message) == _errors(lambda: torch.load(io.BytesIO(data)))


@pytest.mark.parametrize("value", [frozenset({1}), slice(1, 2), np.float32(2.5), np.ones(2)])
def test_values_torch_refuses_are_refused(torch, value):
    data = _torch_saved(torch, {"value": value}).getvalue()
    hookgrad_error = _errors(lambda: hookgrad.load(io.BytesIO(data)))
    assert hookgrad_error[0] is pickle.UnpicklingError
    assert hookgrad_error == _errors(lambda: torch.load(io.BytesIO(data)))


def test_safe_globals_and_weights_only_false_opt_in(torch):
    data = _torch_saved(torch, {"config": Config(0.1), "w": torch.ones(1)}).getvalue()
    with safe_globals([Config]):
        assert get_safe_globals() == [Config]
        loaded = hookgrad.load(io.BytesIO(data))
    assert type(loaded["config"]) is Config and loaded["config"].lr == 0.1
    assert get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        hookgrad.load(io.BytesIO(data))
    add_safe_globals([Config])
    assert hookgrad.load(io.BytesIO(data))["config"].lr == 0.1
    clear_safe_globals()
    unsafe = hookgrad.load(io.BytesIO(data), weights_only=False)
    assert unsafe["config"].lr == 0.1 and unsafe["w"].tolist() == [1.0]


def test_numpy_values_load_when_allowed(torch):
    data = _torch_saved(torch, {"array": np.arange(4.0), "state": Stateful()}).getvalue()
    for load in (hookgrad.load, torch.load):
        with pytest.raises(pickle.UnpicklingError, match="_reconstruct"):
            load(io.BytesIO(data))
    allowed = [
        np.arange(1.0).__reduce__()[0],  # numpy's _reconstruct
        np.ndarray,
        np.dtype,
        type(np.dtype(np.float64)),
        Stateful,
    ]
    with safe_globals(allowed):
        loaded = hookgrad.load(io.BytesIO(data))
    np.testing.assert_array_equal(loaded["array"], np.arange(4.0))
    assert loaded["state"].restored == {"value": 3}


def test_weights_only_false_keeps_torch_objects_out(torch):
    data = _torch_saved(torch, {"model": torch.nn.Linear(2, 2)}).getvalue()
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.linear.Linear"):
        hookgrad.load(io.BytesIO(data), weights_only=False)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        hookgrad.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)


def _with_pickle(torch, payload: bytes) -> io.BytesIO:
    """A torch checkpoint of one float tensor with ``payload`` as its ``data.pkl``."""
    source = zipfile.ZipFile(_torch_saved(torch, torch.arange(4.0)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in source.namelist():
            archive.writestr(name, payload if name.endswith("data.pkl") else source.read(name))
    out.seek(0)
    return out


def _crafted_tensor(torch, offset, size, stride) -> io.BytesIO:
    """A checkpoint whose tensor claims ``offset``/``size``/``stride`` on a 4-float storage."""
    storage = object()

    class Crafted:
        def __reduce__(self):
            args = (storage, offset, size, stride, False, collections.OrderedDict())
            return (torch._utils._rebuild_tensor_v2, args)

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", torch.FloatStorage, "0", "cpu", 4) if obj is storage else None

    payload = io.BytesIO()
    Pickler(payload, protocol=2).dump(Crafted())
    return _with_pickle(torch, payload.getvalue())


def test_a_crafted_layout_cannot_read_outside_its_storage(torch):
    assert hookgrad.load(_crafted_tensor(torch, 1, (3,), (1,))).tolist() == [1.0, 2.0, 3.0]
    assert hookgrad.load(_crafted_tensor(torch, 0, (2, 2), (0, 3))).tolist() == [[0, 3], [0, 3]]
    for offset, size, stride in ((2, (3,), (1,)), (0, (2, 2), (3, 1)), (0, (5,), (1,))):
        for load in (hookgrad.load, torch.load):
            with pytest.raises(
                RuntimeError, match="Trying to resize storage that is not resizable"
            ):
                load(_crafted_tensor(torch, offset, size, stride))


# payload -> what hookgrad says; torch refuses the first two alike (the last one fails
# there too, with an AttributeError: torch builds state on any allowed type)
REFUSED = {
    b"\x80\x02}K\x01a.": "Can only append to lists",
    b"\x80\x02]K\x01K\x02s.": "Can only SETITEM for dict",
    b"\x80\x02ctorch\nSize\n)R}X\x01\x00\x00\x00aK\x01sb.": "Can only build",
}


@pytest.mark.parametrize("payload", list(REFUSED))
def test_instructions_only_build_what_they_may(torch, payload):
    with pytest.raises(pickle.UnpicklingError, match=REFUSED[payload]):
        hookgrad.load(_with_pickle(torch, payload))
    with pytest.raises((pickle.UnpicklingError, AttributeError)):
        torch.load(_with_pickle(torch, payload))


def test_an_ordered_dicts_attributes_are_kept(torch):
    payload = b"\x80\x02ccollections\nOrderedDict\n)R}X\x01\x00\x00\x00aK\x01sb."
    for load in (hookgrad.load, torch.load):
        loaded = load(_with_pickle(torch, payload))
        assert type(loaded) is collections.OrderedDict and loaded.a == 1
