"""``nn.DataParallel`` against torch: without GPUs it runs the wrapped module, which it
holds as ``.module`` (so parameter and ``state_dict`` keys start with ``module.``).

What torch does with a GPU present (``device_ids``, moving the module) is not compared:
the CPU-only answers are written here.
"""

import numpy as np

import hookgrad
from tests.oracle import observe, outcome


def _model(m):
    """A small model with fixed weights, a buffer and a submodule."""
    model = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.BatchNorm1d(2), m.nn.ReLU())
    with m.no_grad():
        model[0].weight.copy_(m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]))
        model[0].bias.copy_(m.tensor([0.1, -0.2]))
    return model


def test_wrapping_matches_torch(torch):
    def scenario(m):
        dp = m.nn.DataParallel(_model(m), device_ids=[0], output_device=0, dim=1)
        x = m.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, 1.0, -1.0]])
        y = dp(x)
        y.sum().backward()
        return [
            repr(dp),
            type(dp.module).__name__,
            list(dp.state_dict()),
            [name for name, _ in dp.named_parameters()],
            [name for name, _ in dp.named_modules()],
            y,
            dp.module[0].weight.grad,
            dp.module[1].running_mean,
            isinstance(dp, m.nn.Module),
            m.nn.parallel.DataParallel is m.nn.DataParallel,
        ]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_without_gpus_device_arguments_are_ignored():
    dp = hookgrad.nn.DataParallel(_model(hookgrad), device_ids=[0, 1], output_device=1, dim=1)
    assert dp.device_ids == []
    for name in ("output_device", "dim", "src_device_obj"):
        expected = ("error", "AttributeError", f"'DataParallel' object has no attribute '{name}'")
        assert outcome(lambda m, name=name: getattr(dp, name), hookgrad) == expected


def test_module_is_the_wrapped_object_and_runs_with_kwargs():
    inner = _model(hookgrad)
    dp = hookgrad.nn.DataParallel(inner)
    assert dp.module is inner
    assert list(dp.parameters()) == list(inner.parameters())
    x = hookgrad.ones(4, 3)
    np.testing.assert_allclose(dp(input=x).detach().numpy(), inner(x).detach().numpy())


def test_state_dict_round_trip_and_unwrapping(torch):
    def scenario(m):
        dp = m.nn.DataParallel(_model(m))
        dp.eval()
        copy = m.nn.DataParallel(
            m.nn.Sequential(m.nn.Linear(3, 2), m.nn.BatchNorm1d(2), m.nn.ReLU())
        )
        missing = copy.load_state_dict(dp.state_dict())
        plain = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.BatchNorm1d(2), m.nn.ReLU())
        unwrapped = {key.removeprefix("module."): value for key, value in dp.state_dict().items()}
        plain.load_state_dict(unwrapped)
        plain.eval()
        copy.eval()
        x = m.tensor([[1.0, -2.0, 0.5]])
        bad = outcome(lambda m: plain.load_state_dict(dp.state_dict()), m, first_line=True)
        return [observe(list(missing)), copy(x), plain(x), dp.training, copy.module.training, bad]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)
