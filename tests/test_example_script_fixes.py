"""What the pytorch/examples scripts needed beyond ``hookgrad.vision``, each as torch does
it: ``torch.tensor`` of a ``deque`` (reinforce.py), a whole module saved and loaded with
``weights_only`` and ``safe_globals`` (word_language_model), ``torch.load``'s environment
overrides (time_sequence_prediction's pickled NumPy array), ``import torch.onnx``."""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict, deque
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.hooks import HookDict


def test_tensor_of_a_deque_is_torchs(torch: Any) -> None:
    for data in (deque([1.5, 2.0]), [deque([1, 2]), deque([3, 4])], deque([True])):
        got, expected = hookgrad.tensor(data), torch.tensor(data)
        assert str(got.dtype) == str(expected.dtype)
        assert got.tolist() == expected.tolist()


class Tagger(hookgrad.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = hookgrad.nn.Embedding(5, 3)
        self.rnn = hookgrad.nn.LSTM(3, 4)


def test_a_whole_module_loads_with_only_its_classes_allowed() -> None:
    hookgrad.manual_seed(0)
    model = Tagger()
    buffer = io.BytesIO()
    hookgrad.save(model, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Tagger"):
        hookgrad.load(buffer)
    buffer.seek(0)
    allowed = [Tagger, hookgrad.nn.Embedding, hookgrad.nn.LSTM]
    with hookgrad.serialization.safe_globals(allowed):
        loaded = hookgrad.load(buffer)
    for key, value in model.state_dict().items():
        assert np.array_equal(loaded.state_dict()[key].numpy(), value.numpy())
    calls = []
    handle = loaded.embed.register_forward_hook(lambda *args: calls.append(1))
    assert type(loaded.embed._forward_hooks) is HookDict
    loaded.embed(hookgrad.tensor([1]))
    handle.remove()
    loaded.embed(hookgrad.tensor([1]))
    assert calls == [1]


def test_hook_dicts_pickle_as_ordered_dicts_and_come_back() -> None:
    layer = hookgrad.nn.Linear(2, 2)
    state = layer.__getstate__()
    assert type(state["_forward_hooks"]) is OrderedDict
    assert type(layer._forward_hooks) is HookDict  # the module itself is unchanged
    copy = pickle.loads(pickle.dumps(layer))
    assert type(copy._backward_hooks) is HookDict and copy._backward_hooks.kind == "module_backward"


@pytest.mark.parametrize(
    "variables, weights_only, loads",
    [
        ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, None, True),
        ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "true"}, True, False),  # passed: kept
        ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "yes"}, False, False),
    ],
)
def test_load_honours_torchs_environment_overrides(
    torch: Any,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    variables: dict[str, str],
    weights_only: bool | None,
    loads: bool,
) -> None:
    path = tmp_path / "array.pt"
    torch.save(np.arange(3.0), path)  # a NumPy array: refused by weights_only loading
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    for library in (torch, hookgrad):
        if loads:
            with pytest.warns(UserWarning, match="forcing weights_only=False"):
                assert library.load(path, weights_only=weights_only).tolist() == [0.0, 1.0, 2.0]
        else:
            with pytest.raises(pickle.UnpicklingError):
                library.load(path, weights_only=weights_only)


def test_load_refuses_both_overrides(torch: Any, tmp_path: Any, monkeypatch: Any) -> None:
    path = tmp_path / "x.pt"
    torch.save(torch.ones(1), path)
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    for library in (torch, hookgrad):
        with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
            library.load(path)


def test_onnx_imports_and_says_it_cannot_export() -> None:
    import hookgrad.onnx

    assert hookgrad.onnx.is_in_onnx_export() is False
    with pytest.raises(RuntimeError, match="hookgrad cannot export ONNX models"):
        hookgrad.onnx.export(hookgrad.nn.Linear(1, 1), (hookgrad.ones(1),), "model.onnx")
