"""LBFGS against torch's: the parameters, losses and state of a few optimisations (with
and without the strong-Wolfe line search), bit for bit with torch's dot products and
square roots (``torch_rounding``), else to 1e-6 relative; its errors."""

import numpy as np
import pytest

import hookgrad

CONFIGS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 3, "max_iter": 7, "lr": 0.5},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "tolerance_change": 1e-4},
    {"line_search_fn": "strong_wolfe", "max_iter": 30, "max_eval": 12, "lr": 0.3},
    {"tolerance_grad": 5.0},
]


def _optimise(lib, options, dtype, steps=3):
    """A small non-quadratic problem made of products and sums only (whose gradients
    hookgrad computes as torch does), optimised ``steps`` times."""
    rng = np.random.default_rng(0)
    kind = getattr(lib, dtype)
    scale = lib.tensor(rng.random((3, 2)) + 0.5, dtype=kind)
    target = lib.tensor(rng.standard_normal((3, 2)), dtype=kind)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((3, 2)), dtype=kind))
    b = lib.nn.Parameter(lib.tensor(rng.standard_normal(2), dtype=kind))
    opt = lib.optim.LBFGS([w, b], **options)

    def closure():
        opt.zero_grad()
        r = w - target
        loss = (scale * r * r).sum() + (w * w * w * w).sum() * 0.1 + ((b - 1.5) * (b - 1.5)).sum()
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(steps)]
    return [w, b], losses, opt


def _state(torch, opt):
    """The first parameter's state with tensors as (type, dtype, values)."""

    def plain(value):
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, (torch.Tensor, hookgrad.Tensor)):
            return ("tensor", str(value.dtype), value.tolist())
        return value

    return {k: plain(v) for k, v in opt.state_dict()["state"][0].items()}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_lbfgs_matches_torch_bit_for_bit(torch, torch_rounding, options, dtype):
    ours, our_losses, opt = _optimise(hookgrad, options, dtype)
    theirs, their_losses, ref = _optimise(torch, options, dtype)
    assert our_losses == their_losses
    for p, q in zip(ours, theirs):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    assert _state(torch, opt) == _state(torch, ref)
    assert opt.state_dict()["param_groups"] == ref.state_dict()["param_groups"]


@pytest.mark.parametrize("options", CONFIGS[:4], ids=[str(c) for c in CONFIGS[:4]])
def test_lbfgs_matches_torch_with_numpys_dot(torch, options):
    ours, our_losses, _ = _optimise(hookgrad, options, "float32")
    theirs, their_losses, _ = _optimise(torch, options, "float32")
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-6)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_lbfgs_complex_parameters(torch, torch_rounding):
    runs = []
    for lib in (hookgrad, torch):
        z = lib.nn.Parameter(lib.tensor([1.0 + 2.0j, -0.5 + 0.25j], dtype=lib.complex64))
        opt = lib.optim.LBFGS([z], line_search_fn="strong_wolfe")

        def closure(z=z, opt=opt):
            opt.zero_grad()
            d = z - 0.3
            loss = (d * d.conj()).real.sum() + (z.real * z.real * z.imag * z.imag).sum()
            loss.backward()
            return loss

        opt.step(closure)
        runs.append(z.detach().numpy())
    np.testing.assert_array_equal(runs[0], runs[1])


def test_lbfgs_resumes_from_a_state_dict_saved_by_torch(torch, torch_rounding, tmp_path):
    _, _, ref = _optimise(torch, CONFIGS[1], "float32", steps=2)
    torch.save(ref.state_dict(), tmp_path / "lbfgs.pt")
    ours, _, opt = _optimise(hookgrad, CONFIGS[1], "float32", steps=2)
    opt.load_state_dict(hookgrad.load(tmp_path / "lbfgs.pt"))
    assert _state(torch, opt) == _state(torch, ref)
    hookgrad.save(opt.state_dict(), tmp_path / "ours.pt")
    assert _state(torch, opt) == _state(torch, ref)
    reloaded = torch.load(tmp_path / "ours.pt", weights_only=True)
    ref.load_state_dict(reloaded)
    assert _state(torch, ref) == _state(torch, opt)


def test_lbfgs_errors(torch):
    for lib in (hookgrad, torch):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))
        with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        with pytest.raises(ValueError, match=r"^Invalid learning rate: -1$"):
            lib.optim.LBFGS([a], lr=-1)
        opt = lib.optim.LBFGS([a], line_search_fn="armijo")

        def closure(a=a, opt=opt):
            opt.zero_grad()
            loss = (a * a).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match=r"^only 'strong_wolfe' is supported$"):
            opt.step(closure)
        with pytest.raises(TypeError, match="closure"):
            opt.step()
