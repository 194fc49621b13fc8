"""Tensor basics against torch: metadata, conversions to Python/NumPy, copies, pickling."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck


def _run(lib, expr):
    """``repr`` of ``expr`` evaluated with ``m`` = ``lib``, or the error it raised."""
    scope = {"m": lib, "np": np, "copy": copy, "pickle": pickle}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(eval(expr, scope))
        except Exception as error:  # noqa: BLE001 (the error is the result)
            return f"{type(error).__name__}: {error}"


CASES = [
    # shape, size, dims
    "m.ones(2, 3).shape",
    "str(m.ones(2, 3).shape)",
    "m.ones(()).shape",
    "m.ones(2, 3).size()",
    "m.ones(2, 3).size(1)",
    "m.ones(2, 3).size(-1)",
    "m.ones(2, 3).size(dim=0)",
    "m.ones(2, 3).size(2)",
    "m.ones(2, 3).dim()",
    "m.ones(2, 3).ndim",
    "m.ones(2, 3).numel()",
    "m.ones(0, 3).numel()",
    "m.ones(2, 3).nelement()",
    "m.ones(2, 3, dtype=m.float64).element_size()",
    "len(m.ones(3, 2))",
    "len(m.tensor(1.))",
    "m.Size([2, 3])",
    "m.Size([2, 3]).numel()",
    "m.Size()",
    "m.Size([2, 3])[1]",
    "m.Size([2, 3])[1:]",
    "m.Size([2, 3])[::-1]",
    "m.Size([2, 3]) + m.Size([4])",
    "m.Size([2, 3]) + (4,)",
    "(4,) + m.Size([2, 3])",
    "m.Size([2]) * 2",
    "m.Size([2, 3]) == (2, 3)",
    "pickle.loads(pickle.dumps(m.Size([1, 2])))",
    # dtype and device
    "m.ones(2).dtype",
    "m.ones(2, dtype=m.int32).dtype",
    "m.ones(2).device",
    "str(m.ones(2).device)",
    "m.ones(2).device.type",
    "m.device('cpu')",
    "m.device('cpu', 0)",
    "m.device('cpu:0')",
    "m.device('cuda:1')",
    "str(m.device('cuda', 1))",
    "m.device('cpu') == m.ones(1).device",
    "m.device('cpu') == 'cpu'",
    "m.device('foo')",
    "m.device('cpu:x')",
    "m.ones(2).is_floating_point()",
    "m.ones(2, dtype=m.int64).is_floating_point()",
    "m.ones(2, dtype=m.complex64).is_complex()",
    "m.ones(2).is_leaf",
    # Python numbers and lists
    "m.tensor(2.5).item()",
    "m.tensor([2]).item()",
    "m.tensor(3).item()",
    "m.tensor(True).item()",
    "m.tensor(1 + 2j).item()",
    "m.tensor([2, 3]).item()",
    "m.ones(1, requires_grad=True).item()",
    "m.tensor([[1., 2.]]).tolist()",
    "m.tensor(2).tolist()",
    "m.tensor([True]).tolist()",
    "m.ones(2, requires_grad=True).tolist()",
    "float(m.tensor([2.5]))",
    "int(m.tensor(2.7))",
    "int(m.tensor([-2.7]))",
    "complex(m.tensor(2.))",
    "bool(m.tensor([1.]))",
    "bool(m.tensor([0.]))",
    "bool(m.tensor([1., 2.]))",
    "[0, 1, 2][m.tensor(1)]",
    "m.tensor(2.5).__index__()",
    "f'{m.tensor(2.5):.3f}'",
    "f'{m.tensor(2.5)}'",
    "f'{m.tensor([2.5])}'",
    "f'{m.tensor(3):5d}'",
    "format(m.tensor([1., 2.]), '')",
    # NumPy
    "m.tensor([1, 2]).numpy()",
    "m.tensor([1., 2.], dtype=m.float64).numpy()",
    "m.tensor([1., 2.], requires_grad=True).numpy()",
    "m.ones(2, requires_grad=True).detach().numpy()",
    "np.asarray(m.tensor([1., 2.]))",
    # detach / clone / copies
    "m.tensor([1.], requires_grad=True).detach()",
    "m.tensor([1.], requires_grad=True).detach().requires_grad",
    "(m.tensor([1.], requires_grad=True) * 2).detach().is_leaf",
    "m.ones(2, requires_grad=True).data",
    "m.tensor([1., 2.]).clone()",
    "m.tensor([1., 2.], requires_grad=True).clone()",
    "m.clone(m.tensor([1., 2.], requires_grad=True))",
    "copy.copy(m.tensor([1., 2.]))",
    "copy.deepcopy(m.tensor([1., 2.], requires_grad=True))",
    "copy.deepcopy(m.tensor([1, 2], dtype=m.int32))",
    "copy.deepcopy(m.tensor([1., 2.], requires_grad=True) * 2)",
    "pickle.loads(pickle.dumps(m.tensor([1., 2.], requires_grad=True)))",
    "pickle.loads(pickle.dumps(m.tensor([1, 2], dtype=m.int32)))",
    "pickle.loads(pickle.dumps(m.tensor([[1 + 2j]])))",
    "pickle.loads(pickle.dumps(m.float16))",
    "pickle.loads(pickle.dumps(m.bool))",
    "pickle.loads(pickle.dumps(m.device('cpu')))",
    # dtype conversions
    "m.tensor([1., 2.]).to(m.float64)",
    "m.tensor([1., 2.]).to(m.ones(1, dtype=m.int32))",
    "m.tensor([1., 2.]).to(dtype=m.int32)",
    "m.tensor([1., 2.]).to('cpu')",
    "m.tensor([1., 2.]).to('cpu', m.float64)",
    "m.tensor([1., 2.]).to(device='cpu', dtype=m.float64)",
    "m.tensor([1., 2.]).to(m.device('cpu'), copy=True)",
    "m.tensor([1., 2.]).to(float)",
    "m.tensor([1., 2.]).to(int)",
    "m.tensor([1., 2.]).to(None)",
    "m.tensor([1, 2]).to(m.float64, copy=True)",
    "m.tensor([1., 2.], requires_grad=True).to(m.float64)",
    "m.tensor([1., 2.], requires_grad=True).to(m.float32, copy=True)",
    "m.tensor([1., 2.], requires_grad=True).to(copy=True)",
    "m.tensor([1., 2.], requires_grad=True).to(m.ones(1, dtype=m.float64), copy=True)",
    "m.tensor([1., 2.], requires_grad=True).float()",
    "m.tensor([1., 2.], requires_grad=True).double().float()",
    "m.tensor([1., 2.], requires_grad=True).long()",
    "m.tensor([1.5, 2.]).float()",
    "m.tensor([1.5]).double()",
    "m.tensor([1.5]).half()",
    "m.tensor([1.5, -1.5]).long()",
    "m.tensor([1.5, -1.5]).int()",
    "m.tensor([1.5, 0.]).bool()",
    "m.tensor([1.5, 0.]).cfloat()",
    "m.tensor([1.5, 0.]).cdouble()",
    "m.tensor([1 + 2j]).float()",
    "m.tensor([1 + 2j]).to(m.float64)",
    "m.ones(2, dtype=m.complex64, requires_grad=True).float()",
    "m.tensor([1., 2.]).type(m.float64)",
    "m.tensor([1., 2.]).type('torch.DoubleTensor')",
    "m.tensor([1., 2.]).type()",
    "m.tensor([1, 2]).type()",
    "m.tensor([True]).type()",
    "m.tensor([1j]).type()",
    "m.tensor([1., 2.]).type_as(m.ones(1, dtype=m.int32))",
    "m.tensor([1., 2.]).cpu()",
    "m.tensor([1., 2.]).contiguous()",
    "m.tensor([1 + 2j]).conj()",
    "m.tensor([1 + 2j, -3j], requires_grad=True).real",
    "m.tensor([1 + 2j, -3j], requires_grad=True).imag",
    "m.real(m.tensor([1 + 2j], dtype=m.complex128))",
    "m.imag(m.tensor([1 + 2j]))",
    "m.tensor([1.5]).real",
    "m.tensor([1.5]).imag",
    "m.conj(m.ones(1, dtype=m.complex64, requires_grad=True))",
    # comparisons of whole tensors
    "m.tensor([1, 2]).equal(m.tensor([1, 2]))",
    "m.equal(m.tensor([1, 2]), m.tensor([1., 2.]))",
    "m.equal(m.tensor([1, 2]), m.tensor([1, 2, 3]))",
    "m.equal(m.tensor([1., float('nan')]), m.tensor([1., float('nan')]))",
    "m.allclose(m.tensor([1., 2.]), m.tensor([1., 2.000001]))",
    "m.allclose(m.tensor([1., 2.]), m.tensor([1., 2.1]))",
    "m.tensor([1., 2.]).allclose(m.tensor([1., 2.]))",
    "m.allclose(m.tensor([1., float('nan')]), m.tensor([1., float('nan')]))",
    "m.allclose(m.tensor([1., float('nan')]), m.tensor([1., float('nan')]), equal_nan=True)",
]


@pytest.mark.parametrize("expr", CASES)
def test_matches_torch(torch, expr):
    """Same result (by repr), or the same error type and message."""
    assert _run(hookgrad, expr) == _run(torch, expr)


TENSOR_PY_CASES = [
    "bool(m.tensor([]))",
    "float(m.tensor([2.5, 1]))",
    "int(m.tensor([1, 2]))",
    "f'{m.tensor([2.5]):.2f}'",
    "pickle.loads(pickle.dumps(m.tensor([1., 2.], requires_grad=True) * 2))",
    "m.ones(2, dtype=m.float64).itemsize",
    "m.ones(2, dtype=m.float64).nbytes",
    "m.Tensor([1, 2])",
]


@pytest.mark.parametrize("expr", TENSOR_PY_CASES)
def test_tensor_core_matches_torch(torch, expr):
    assert _run(hookgrad, expr) == _run(torch, expr)


def test_detach_shares_memory():
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf
    d.numpy()[0] = 5.0
    assert x.tolist() == [5.0, 2.0]


def test_clone_and_deepcopy_do_not_share_memory():
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    x.grad = hookgrad.tensor([0.5, 0.5])
    for copied in (x.clone().detach(), copy.deepcopy(x)):
        copied.detach().numpy()[0] = 9.0
    assert x.tolist() == [1.0, 2.0]
    deep = copy.deepcopy(x)
    assert deep is not x and deep.requires_grad and deep.is_leaf
    assert deep.grad.tolist() == [0.5, 0.5] and deep.grad is not x.grad


@pytest.mark.parametrize("name", ["bool", "int32", "int64", "float16", "float32", "float64",
                                  "complex64", "complex128"])  # fmt: skip
def test_pickle_round_trip_keeps_dtype_shape_and_values(name):
    x = hookgrad.arange(6).reshape(2, 3).to(getattr(hookgrad, name))
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype is x.dtype and y.shape == x.shape and y.tolist() == x.tolist()


def test_real_and_imag_share_memory_and_gradients_match_torch(torch):
    grads = []
    for lib in (hookgrad, torch):
        z = lib.tensor([1 + 2j, -3j], requires_grad=True)
        (z.real * lib.tensor([2.0, 5.0]) + z.imag * 3).sum().backward()
        grads.append(z.grad)
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy())
    z = hookgrad.tensor([1 + 2j])
    z.real.numpy()[0] = 7.0
    z.imag.numpy()[0] = -1.0
    assert z.tolist() == [7 - 1j]


def test_numpy_shares_memory():
    x = hookgrad.zeros(2)
    x.numpy()[1] = 3.0
    assert x.tolist() == [0.0, 3.0]


def test_conversion_gradients_match_torch(torch):
    for lib in (hookgrad, torch):
        x = lib.tensor([1.5, -2.0], requires_grad=True)
        (x.double() * 3).sum().backward()
        (x.half().float() * 2).sum().backward()
        (x.clone() * x.to(lib.float64)).sum().backward()
        x.to(lib.int64)  # not differentiable: no graph, no error
        if lib is hookgrad:
            actual = x.grad
        else:
            expected = x.grad
    assert actual.dtype is hookgrad.float32
    np.testing.assert_allclose(actual.numpy(), expected.numpy())


def test_complex_to_real_gradient_matches_torch(torch):
    results = []
    for lib in (hookgrad, torch):
        z = lib.tensor([1 + 2j, -3j], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (z.float() * lib.tensor([2.0, 3.0])).sum().backward()
        results.append(z.grad)
    assert results[0].dtype is hookgrad.complex64
    np.testing.assert_allclose(results[0].numpy(), results[1].numpy())


def test_complex_to_real_warns():
    # torch's text; torch itself warns only once per process, so it is not re-run here.
    with pytest.warns(UserWarning, match="^Casting complex values to real discards the imag"):
        hookgrad.tensor([1j]).float()


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.clone(),
        lambda x: x.to(hookgrad.complex128).conj(),
        lambda x: x.to(hookgrad.complex128) * (1 + 2j),
        lambda x: (x.to(hookgrad.complex128) * (1 + 2j)).real,
        lambda x: (x.to(hookgrad.complex128) * (2 - 1j)).imag * x,
    ],
    ids=["clone", "conj", "to-complex", "real", "imag"],
)
def test_conversion_ops_gradcheck(fn):
    x = hookgrad.tensor([0.5, -1.25, 2.0], dtype=hookgrad.float64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
