"""``nn.utils.prune`` against torch: every method's mask (random ones from the default
generator, as torch draws them), combined prunings, ``global_unstructured``, ``remove``,
``is_pruned``, the module's attributes and state dict, gradients through the mask, the
hooks in ``trace_hooks``, and torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch.nn.utils.prune  # noqa: F401 (torch does not import it with torch.nn.utils)

import hookgrad
from hookgrad.utils import trace_hooks
from tests.oracle import outcome


def _model(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 2), lib.nn.Flatten(), lib.nn.Linear(36, 5))


SCENARIOS = [
    ("identity", lambda p, m: p.identity(m[2], "bias")),
    ("random_unstructured", lambda p, m: p.random_unstructured(m[2], "weight", amount=0.3)),
    ("l1_unstructured", lambda p, m: p.l1_unstructured(m[2], "weight", amount=50)),
    (
        "l1_importance",
        lambda p, m: p.l1_unstructured(
            m[2], "bias", 2, importance_scores=m[2].bias.detach().flip(0).abs()
        ),
    ),
    ("random_structured", lambda p, m: p.random_structured(m[0], "weight", amount=2, dim=0)),
    ("ln_structured", lambda p, m: p.ln_structured(m[0], "weight", amount=0.5, n=2, dim=1)),
    ("ln_structured_inf", lambda p, m: p.ln_structured(m[0], "weight", 1, float("inf"), -1)),
    (
        "custom_from_mask",
        lambda p, m: p.custom_from_mask(m[0], "bias", mask=m[0].bias.detach() > 0),
    ),
    (
        "combined",
        lambda p, m: (
            p.l1_unstructured(m[0], "weight", amount=0.2),
            p.ln_structured(m[0], "weight", amount=1, n=1, dim=0),
            p.random_unstructured(m[0], "weight", amount=0.3),
        ),
    ),
    (
        "global",
        lambda p, m: p.global_unstructured(
            [(m[0], "weight"), (m[2], "weight")], pruning_method=p.L1Unstructured, amount=0.4
        ),
    ),
]


@pytest.mark.parametrize("prune_fn", [s[1] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS])
def test_pruning_matches_torch(torch, prune_fn):
    def run(lib: Any) -> Any:
        model = _model(lib)
        prune_fn(lib.nn.utils.prune, model)
        x = lib.ones(2, 3, 4, 4)
        model(x).square().sum().backward()
        state = {k: v.numpy().tolist() for k, v in model.state_dict().items()}
        grads = {n: p.grad.numpy().tolist() for n, p in model.named_parameters()}
        hooks = [[type(h).__name__ for h in m._forward_pre_hooks.values()] for m in model]
        pruned = lib.nn.utils.prune.is_pruned(model)
        for module in model:
            for hook in list(module._forward_pre_hooks.values()):
                lib.nn.utils.prune.remove(module, hook._tensor_name)
        after = sorted(model.state_dict())
        return state, grads, hooks, pruned, after, lib.nn.utils.prune.is_pruned(model)

    ours, theirs = run(hookgrad), run(torch)
    for a, b in zip(ours, theirs):
        if isinstance(a, dict):
            assert a.keys() == b.keys()
            for key in a:
                np.testing.assert_allclose(a[key], b[key], rtol=1e-5, atol=1e-6, err_msg=key)
        else:
            assert a == b


def test_pruning_hooks_show_in_trace_hooks():
    model = _model(hookgrad)
    hookgrad.nn.utils.prune.l1_unstructured(model[2], "weight", amount=0.5)
    with trace_hooks(model) as trace:
        model(hookgrad.ones(1, 3, 4, 4))
    assert [(r.kind, r.owner, r.hook) for r in trace.records] == [
        ("module_forward_pre", "2 (Linear)", "L1Unstructured")
    ]


ERRORS = [
    ("amount_type", lambda t: t.nn.utils.prune.l1_unstructured(_model(t)[2], "weight", "x")),
    ("amount_range", lambda t: t.nn.utils.prune.l1_unstructured(_model(t)[2], "weight", 1.5)),
    ("amount_count", lambda t: t.nn.utils.prune.l1_unstructured(_model(t)[2], "bias", 9)),
    ("structured_1d", lambda t: t.nn.utils.prune.ln_structured(_model(t)[2], "bias", 1, 2, 0)),
    ("structured_dim", lambda t: t.nn.utils.prune.random_structured(_model(t)[2], "weight", 1, 2)),
    ("remove_unpruned", lambda t: t.nn.utils.prune.remove(_model(t)[2], "weight")),
    (
        "global_structured",
        lambda t: t.nn.utils.prune.global_unstructured(
            [(_model(t)[2], "weight")], t.nn.utils.prune.RandomStructured, amount=1
        ),
    ),
    (
        "global_scores",
        lambda t: t.nn.utils.prune.global_unstructured(
            [(_model(t)[2], "weight")], t.nn.utils.prune.L1Unstructured, [], amount=1
        ),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in ERRORS], ids=[n for n, _ in ERRORS])
def test_errors_match_torch(torch, case):
    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    assert ours[0] == "error"
    # a class in a message is named by its module: hookgrad's where torch's is torch's
    assert ours[:2] + (ours[2].replace("hookgrad.", "torch."),) == theirs


def test_failed_pruning_leaves_the_module_as_it_was():
    layer = _model(hookgrad)[2]
    with pytest.raises(ValueError):
        hookgrad.nn.utils.prune.l1_unstructured(layer, "bias", 9)
    assert sorted(dict(layer.named_parameters())) == ["bias", "weight"]
    assert not layer._forward_pre_hooks
