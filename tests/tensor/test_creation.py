"""Creation functions against torch: shapes, dtypes, values and errors."""

import warnings

import numpy as np
import pytest

import hookgrad


def _run(lib, expr):
    """``repr`` of ``expr`` evaluated with ``m`` = ``lib``, or the error it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(eval(expr, {"m": lib, "np": np}))
        except Exception as error:  # noqa: BLE001 (the error is the result)
            return f"{type(error).__name__}: {error}"


def _assert_matches(torch, expr):
    assert _run(hookgrad, expr) == _run(torch, expr)


TENSOR_CASES = [
    # nested data, dtype inference
    "m.tensor(3)",
    "m.tensor(3.5)",
    "m.tensor(True)",
    "m.tensor(1 + 2j)",
    "m.tensor([[1, 2], [3, 4]])",
    "m.tensor([1, 2.5, True])",
    "m.tensor([1, 2, True])",
    "m.tensor([1, 2j, True])",
    "m.tensor([True, False])",
    "m.tensor((1, 2.5))",
    "m.tensor(range(3))",
    "m.tensor([range(2), range(2)])",
    "m.tensor(())",
    "m.tensor([[], []])",
    "m.tensor([[[]]])",
    "m.tensor(2**63 - 1)",
    "m.tensor(-2**63)",
    "m.tensor([1., 2**63])",
    # NumPy arrays and scalars keep their dtype, also inside lists
    "m.tensor(np.array([[1, 2]]))",
    "m.tensor(np.arange(3.))",
    "m.tensor(np.array([1, 2], dtype=np.int32))",
    "m.tensor(np.array([1.5], dtype=np.float16))",
    "m.tensor(np.array([True]))",
    "m.tensor(np.float64(2.0))",
    "m.tensor(np.float32(2.0))",
    "m.tensor([np.float64(2.0), 1.0])",
    "m.tensor([np.float32(2.0), 1])",
    "m.tensor([np.int32(2), 1])",
    "m.tensor([np.int32(2), True])",
    "m.tensor([1, np.float16(2.0)])",
    "m.tensor([np.float16(2.0), 1.5])",
    "m.tensor([np.float64(2.0), np.float32(1)])",
    "m.tensor([np.array([1., 2.]), [2, 3]])",
    # tensors inside lists
    "m.tensor([m.tensor(1.), m.tensor(2.)])",
    "m.tensor([m.tensor(1, dtype=m.int32), 2])",
    "m.tensor([m.tensor(1., dtype=m.float64), 2])",
    "m.tensor([m.tensor(1., dtype=m.float16), 2.5])",
    "m.tensor([[1, 2], m.tensor([1, 1], dtype=m.int32)])",
    # dtype= and requires_grad=
    "m.tensor([[1, 2], [3, 4]], dtype=m.float64)",
    "m.tensor(3.5, dtype=m.int64)",
    "m.tensor([1.7, -1.7], dtype=m.int32)",
    "m.tensor([1.5], dtype=m.bool)",
    "m.tensor([1.5], dtype=m.complex64)",
    "m.tensor([1 + 1j], dtype=m.bool)",
    "m.tensor([1, 2], dtype=float)",
    "m.tensor([1, 2], dtype=int)",
    "m.tensor([1, 2], dtype=complex)",
    "m.tensor([1., 2.], requires_grad=True)",
    "m.tensor([1, 2], dtype=m.complex64, requires_grad=True)",
    "m.tensor(m.tensor([1., 2.], requires_grad=True))",
    # errors
    "m.tensor([[1, 2], [3]])",
    "m.tensor([[1., 2.], [3.]])",
    "m.tensor([[[1]], [[2, 3]]])",
    "m.tensor([[1], []])",
    "m.tensor([[1, 2], 3])",
    "m.tensor([1, [2, 3]])",
    "m.tensor([1., [2., 3.]])",
    "m.tensor([1j, [1]])",
    "m.tensor([True, [1]])",
    "m.tensor([np.ones(2), np.ones(3)])",
    "m.tensor([m.ones(2), m.ones(2)])",
    "m.tensor([1, m.ones(2)])",
    "m.tensor([1, 2], requires_grad=True)",
    "m.tensor([True], requires_grad=True)",
    "m.tensor('abc')",
    "m.tensor([1, 'a'])",
    "m.tensor(b'ab')",
    "m.tensor(None)",
    "m.tensor([1, None])",
    "m.tensor({1: 2})",
    "m.tensor({1, 2})",
    "m.tensor([1 + 2j], dtype=m.float32)",
    "m.tensor([1 + 2j], dtype=m.int64)",
    "m.tensor([None], dtype=m.float32)",
    "m.tensor([None], dtype=m.int64)",
    "m.tensor(['a'], dtype=m.float32)",
    "m.tensor([1, [1]], dtype=m.float32)",
    "m.tensor([1, [1]], dtype=m.int64)",
    "m.tensor([[1], 1], dtype=m.float32)",
    "m.tensor(2**63)",
    "m.tensor([2**64])",
    "m.tensor(np.array([1, 2], dtype=object))",
    "m.tensor(np.array('a'))",
]

AS_TENSOR_AND_FROM_NUMPY_CASES = [
    "m.as_tensor([1, 2])",
    "m.as_tensor([1, 2], dtype=m.float64)",
    "m.as_tensor(np.arange(3))",
    "m.as_tensor(np.arange(3.), dtype=m.float32)",
    "m.as_tensor(m.ones(2, requires_grad=True), dtype=m.float64)",
    "m.as_tensor(m.ones(2, requires_grad=True))",
    "m.from_numpy(np.arange(3))",
    "m.from_numpy(np.arange(6.).reshape(2, 3).T)",
    "m.from_numpy(np.arange(3, dtype=np.float16))",
    "m.from_numpy(np.array(5.0))",
    "m.from_numpy([1])",
    "m.from_numpy(np.float64(1.))",
    "m.from_numpy(np.array(['a']))",
]

FILLED_CASES = [
    "m.zeros(2, 3)",
    "m.zeros((2, 3))",
    "m.zeros([2, 3])",
    "m.zeros(m.Size([2, 3]))",
    "m.zeros(size=(2, 3))",
    "m.zeros(())",
    "m.zeros([])",
    "m.zeros(0)",
    "m.zeros(m.tensor(2))",
    "m.zeros(np.int32(2))",
    "m.zeros(2, 3, dtype=m.int32)",
    "m.zeros(2, dtype=bool)",
    "m.zeros(2, 3, dtype=float)",
    "m.ones(2, dtype=m.bool)",
    "m.ones(2, 2, dtype=m.complex128)",
    "m.ones(3, requires_grad=True)",
    "m.ones(size=[2])",
    "m.empty(2, 3).shape",
    "m.empty((2, 3), dtype=m.int32).dtype",
    "m.empty(size=(1,)).shape",
    "m.full((2, 2), 3)",
    "m.full((2, 2), 3.)",
    "m.full((2, 2), True)",
    "m.full((2,), 1j)",
    "m.full([2], 1.)",
    "m.full((), 1.5)",
    "m.full(m.Size([2]), 1)",
    "m.full(size=(2,), fill_value=1.5)",
    "m.full((2,), 1.5, dtype=m.int64)",
    "m.full((2,), 1.5, dtype=m.bool)",
    "m.full((2,), m.tensor(1.5))",
    "m.full((2,), m.tensor(2))",
    "m.full((2,), m.tensor(1.5, dtype=m.float64))",
    "m.full((2,), np.float64(1.5))",
    "m.full((2,), 1.5, requires_grad=True)",
    # errors
    "m.zeros()",
    "m.ones()",
    "m.zeros(-1)",
    "m.zeros(2, -3)",
    "m.ones(-1)",
    "m.empty(2, -1)",
    "m.full((-1,), 1.)",
    "m.zeros(2.5)",
    "m.zeros((2, 2.5))",
    "m.zeros(2, 2.0)",
    "m.zeros(True)",
    "m.zeros((True, 2))",
    "m.zeros(None)",
    "m.zeros('a')",
    "m.zeros(m.tensor(2.))",
    "m.zeros((2,), 3)",
    "m.ones(3, dtype=m.int64, requires_grad=True)",
    "m.full(2, 1.)",
    "m.full([2, 2.5], 1)",
    "m.full((2,), 'a')",
    "m.full((2,), None)",
    "m.full((2,), m.ones(2))",
    "m.full((2,), 1j, dtype=m.float32)",
]

RANGE_CASES = [
    "m.arange(5)",
    "m.arange(5.)",
    "m.arange(1, 4)",
    "m.arange(1, 4, 0.5)",
    "m.arange(0, -3, -1)",
    "m.arange(5, 0, -1.5)",
    "m.arange(0, 1, 0.1)",
    "m.arange(0, 1, 0.3)",
    "m.arange(-1.0, 1.0, 0.25)",
    "m.arange(0, 10, 3)",
    "m.arange(0, -10, -3)",
    "m.arange(1e-3)",
    "m.arange(1, 2.5)",
    "m.arange(3, 3)",
    "m.arange(10, dtype=m.float64)",
    "m.arange(0.5, 3, dtype=m.int64)",
    "m.arange(0, 2, 0.7, dtype=m.int32)",
    "m.arange(0.5, 3, 0.7, dtype=m.int64)",
    "m.arange(m.tensor(3))",
    "m.arange(m.tensor(3.))",
    "m.arange(end=5)",
    "m.arange(start=1, end=5)",
    "m.arange(5., requires_grad=True)",
    "m.arange(0, 5, 0)",
    "m.arange(0, 5, -1)",
    "m.arange(5, 0)",
    "m.arange(3, dtype=m.bool)",
    "m.arange(5, requires_grad=True)",
    "m.arange(float('inf'))",
    "m.arange(float('nan'))",
    "m.linspace(0, 1, 5)",
    "m.linspace(0, 1, 1)",
    "m.linspace(0, 1, 0)",
    "m.linspace(0, 1, 2)",
    "m.linspace(1, 0, 5)",
    "m.linspace(-1, 1, 7)",
    "m.linspace(-1, 1, 7, dtype=m.float64)",
    "m.linspace(0, 10, 5, dtype=m.int64)",
    "m.linspace(0, 10, 4, dtype=m.int64)",
    "m.linspace(0, 7, 10, dtype=m.int64)",
    "m.linspace(-5, 7, 9, dtype=m.int64)",
    "m.linspace(0, 3, 4, dtype=m.int32)",
    "m.linspace(0, 1j, 3)",
    "m.linspace(m.tensor(0.), m.tensor(1.), 3)",
    "m.linspace(0, 1, steps=3)",
    "m.linspace(0, 1, 3, requires_grad=True)",
    "m.linspace(0, 1, -1)",
    "m.eye(3)",
    "m.eye(2, 3)",
    "m.eye(2, m=3)",
    "m.eye(3, dtype=m.int64)",
    "m.eye(2, dtype=m.bool)",
    "m.eye(0)",
    "m.eye(3, requires_grad=True)",
    "m.eye(-1)",
    "m.eye(2, -1)",
]

LIKE_CASES = [
    "m.zeros_like(m.ones(2, dtype=m.int32))",
    "m.ones_like(m.ones(2, 3))",
    "m.full_like(m.ones(2), 7)",
    "m.full_like(m.ones(2, dtype=m.int64), 7.5)",
    "m.full_like(m.ones(2, dtype=m.bool), 2)",
    "m.empty_like(m.ones(2, 3)).shape",
    "m.empty_like(m.ones(2, 3, dtype=m.float64)).dtype",
    "m.zeros_like(m.ones(2), dtype=m.float64)",
    "m.ones_like(m.ones(2), requires_grad=True)",
    "m.ones_like(m.ones(2, requires_grad=True))",
    "m.zeros_like(m.ones(2, requires_grad=True) * 2)",
    "m.zeros_like([1, 2])",
    "m.zeros_like(np.ones(2))",
    "m.full_like(m.ones(2), 'a')",
    "m.ones_like(m.ones(2, dtype=m.int64), requires_grad=True)",
    "m.ones(2).new_zeros(2, 3)",
    "m.ones(2).new_zeros((2, 3))",
    "m.ones(2).new_zeros(size=(2,))",
    "m.ones(2, dtype=m.int32).new_ones(2)",
    "m.ones(2).new_ones(2, requires_grad=True)",
    "m.ones(2).new_empty(0).shape",
    "m.ones(2).new_full((2,), 5)",
    "m.ones(2).new_full((2,), 5, dtype=m.int64)",
    "m.ones(2).new_tensor([1, 2])",
    "m.ones(2, dtype=m.float64).new_tensor([1, 2])",
    "m.ones(2).new_tensor([1, 2], dtype=m.int64)",
    "m.ones(2).new_full(2, 5)",
    "m.ones(2).new_ones()",
    "m.ones(2, dtype=m.int64).new_ones(2, requires_grad=True)",
    "m.ones(2).new_full((2,), 1.5j)",
    "m.is_tensor(m.ones(1))",
    "m.is_tensor([1])",
    "m.is_floating_point(m.ones(1))",
    "m.is_complex(m.ones(1, dtype=m.complex64))",
    "m.numel(m.ones(2, 3))",
]


@pytest.mark.parametrize(
    "expr",
    TENSOR_CASES + AS_TENSOR_AND_FROM_NUMPY_CASES + FILLED_CASES + RANGE_CASES + LIKE_CASES,
)
def test_matches_torch(torch, expr):
    """Same repr (values, dtype, shape, autograd flags), or the same error and message."""
    _assert_matches(torch, expr)


# scalar_tensor, range, logspace, tril/triu_indices, strided layouts, asarray,
# frombuffer, windows, Tensor.new
MORE_CASES = [
    "m.scalar_tensor(3)",
    "m.scalar_tensor(True)",
    "m.scalar_tensor(m.tensor(2), dtype=m.int32)",
    "m.scalar_tensor(2.5, requires_grad=True)",
    "m.scalar_tensor(1j)",
    "m.scalar_tensor('a')",
    "m.range(0, 1, 0.25)",
    "m.range(3, 0, -1, dtype=m.int64)",
    "m.range(-1, 1, 0.1)",
    "m.range(3, 0)",
    "m.range(3)",
    "m.logspace(0, 2, 5)",
    "m.logspace(0, 2, 5, base=2)",
    "m.logspace(0, 2, 3, dtype=m.int64)",
    "m.logspace(3, 2, 1)",
    "m.logspace(0, 1j, 3)",
    "m.logspace(0, 2, -1)",
    "m.tril_indices(3, 4, 1)",
    "m.triu_indices(3, 4, -1, dtype=m.int32)",
    "m.tril_indices(3, 3, -10)",
    "m.tril_indices(-1, 3)",
    "m.triu_indices(2, 2, dtype=m.float32)",
    "m.empty_strided((2, 3), (1, 2)).stride()",
    "m.empty_strided((2, 3), (1,))",
    "m.empty_strided((2, 3), (1, -2))",
    "m.empty_permuted((2, 3, 4), (0, 2, 1)).stride()",
    "m.empty_permuted((2, 3, 4), (0, 2))",
    "m.empty_permuted((2, 3, 4), (0, 2, 2))",
    "m.ones(2, dtype=m.int64).new_empty_strided((2, 3), (1, 2)).stride()",
    "m.asarray([1, 2.5])",
    "m.asarray(3)",
    "m.asarray(np.float64(2.5))",
    "m.asarray(np.ones(2, dtype=np.int16))",
    "m.asarray([1.0, 2.0], requires_grad=True)",
    "m.asarray(np.ones(3), dtype=m.float32)",
    "m.asarray(m.ones(2), dtype=m.float64, copy=False)",
    "m.asarray(np.ones(2), dtype=m.float32, copy=False)",
    "m.asarray([1.0], copy=False)",
    "m.asarray([1, 2], requires_grad=True)",
    "m.asarray(m.ones(2, requires_grad=True) * 2, dtype=m.float64)",
    "m.asarray(m.ones(2, requires_grad=True) * 2, requires_grad=False)",
    "m.asarray(m.ones(2, requires_grad=True), copy=True)",
    "m.frombuffer(bytearray(8), dtype=m.float32, count=1, offset=4)",
    "m.frombuffer(b'abcd', dtype=m.uint8)",
    "m.frombuffer(bytearray(16), dtype=m.float64, offset=4)",
    "m.frombuffer(bytearray(16), dtype=m.float32, count=5)",
    "m.frombuffer(bytearray(16))",
    "m.frombuffer(bytearray(), dtype=m.uint8)",
    "m.frombuffer(bytearray(16), dtype=m.uint8, offset=16)",
    "m.frombuffer([1, 2], dtype=m.float32)",
    "m.hann_window(5)",
    "m.hann_window(5, False, dtype=m.float64)",
    "m.hann_window(3, dtype=m.float16)",
    "m.hann_window(1, requires_grad=True)",
    "m.hann_window(0)",
    "m.hann_window(-1)",
    "m.hann_window(3, dtype=m.int64)",
    "m.hamming_window(6, False, 0.6, 0.3)",
    "m.blackman_window(7)",
    "m.bartlett_window(6, False, dtype=m.float64)",
    "m.kaiser_window(7, False, 5.0, dtype=m.float64)",
    "m.kaiser_window(3, dtype=m.int32)",
    "m.tensor([1, 2]).new(2, 3).shape",
    "m.tensor([1, 2]).new([1.5, 2])",
    "m.tensor([1, 2]).new()",
    "m.tensor([1, 2]).new(m.tensor([1.5]))",
    "m.tensor([1.0], requires_grad=True).new(m.tensor([1.5]))",
    "m.tensor([1.0]).new('x')",
]


@pytest.mark.parametrize("expr", MORE_CASES)
def test_more_creation_matches_torch(torch, expr):
    """The creation functions beyond the common ones, values as printed, and errors."""
    _assert_matches(torch, expr)


@pytest.mark.parametrize(
    "expr",
    [
        "m.logspace(-1.5, 2.25, 7, dtype=m.float64)",
        "m.logspace(0, 3, 9, base=1.5)",
        "m.hann_window(9, dtype=m.float64)",
        "m.hamming_window(8)",
        "m.blackman_window(6, False)",
        "m.bartlett_window(7)",
        "m.range(0, 2, 0.3, dtype=m.float64)",
    ],
)
@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
def test_values_are_bitwise_torch(torch, expr):
    ours = eval(expr, {"m": hookgrad}).numpy()
    theirs = eval(expr, {"m": torch}).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_kaiser_window_close_to_torch(torch):
    for periodic in (True, False):
        ours = hookgrad.kaiser_window(8, periodic, beta=3.0).numpy()
        theirs = torch.kaiser_window(8, periodic, beta=3.0).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_asarray_and_frombuffer_share_memory(torch):
    array = np.zeros(3)
    hookgrad.asarray(array)[0] = 1.0
    assert array[0] == 1.0
    assert not np.shares_memory(hookgrad.asarray(array, copy=True).numpy(), array)
    buffer = bytearray(8)
    hookgrad.frombuffer(buffer, dtype=hookgrad.uint8)[1] = 7
    assert buffer[1] == 7
    leaf = hookgrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="unspecified requires_grad"):
        assert hookgrad.asarray(leaf) is leaf
    with pytest.warns(UserWarning, match="not writable"):
        hookgrad.frombuffer(b"ab", dtype=hookgrad.uint8)
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        hookgrad.range(0, 1)


def test_empty_strided_layouts_match_torch(torch):
    for lib in (hookgrad, torch):
        x = lib.empty_strided((2, 3), (1, 2))
        assert x.stride() == (1, 2) and not x.is_contiguous()
        y = lib.empty_permuted((2, 3, 4), (2, 0, 1))
        assert y.stride() == (3, 1, 6)


def test_tensor_from_tensor_warns_like_torch(torch):
    with pytest.warns(UserWarning) as expected:
        torch.tensor(torch.ones(2))
    with pytest.warns(UserWarning) as actual:
        hookgrad.tensor(hookgrad.ones(2))
    assert str(actual[0].message) == str(expected[0].message)


def test_tensor_copies_its_data():
    array = np.arange(3.0)
    source = hookgrad.from_numpy(np.arange(3.0))
    with pytest.warns(UserWarning, match="copy construct"):
        from_tensor = hookgrad.tensor(source)
    for copy in (hookgrad.tensor(array), from_tensor):
        copy.numpy()[0] = 9.0
    assert array[0] == 0.0 and source.numpy()[0] == 0.0


def test_from_numpy_shares_memory():
    array = np.arange(3.0)
    t = hookgrad.from_numpy(array)
    array[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0]
    t.numpy()[1] = 7.0
    assert array[1] == 7.0


def test_from_numpy_copies_dtypes_hookgrad_has_not():
    array = np.arange(3, dtype=np.uint16)
    t = hookgrad.from_numpy(array)
    assert t.dtype is hookgrad.int32
    assert t.numpy().dtype == np.int32
    array[0] = 9
    assert t.tolist() == [0, 1, 2]


def test_as_tensor_shares_memory_when_it_can():
    array = np.arange(3.0)
    t = hookgrad.as_tensor(array)
    array[0] = 5.0
    assert t.tolist() == [5.0, 1.0, 2.0]
    assert hookgrad.as_tensor(t) is t
    assert hookgrad.as_tensor(t, dtype=hookgrad.float64) is t
    converted = hookgrad.as_tensor(array, dtype=hookgrad.float32)
    array[1] = 8.0
    assert converted.tolist() == [5.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize(
    "args",
    [(-1, 1, 7), (0, 1, 5), (0.1, 0.9, 13), (-3.3, 7.7, 101), (1, 0, 9), (0, 10, 1000),
     (1e-3, 1e3, 17), (-5, -5, 3), (2, 2, 1), (0, 7, 10), (-20, 33, 64)],
)  # fmt: skip
def test_linspace_is_bitwise_torch(torch, dtype, args):
    expected = torch.linspace(*args, dtype=getattr(torch, dtype)).numpy()
    actual = hookgrad.linspace(*args, dtype=getattr(hookgrad, dtype)).numpy()
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)


def test_linspace_float16_close_to_torch(torch):
    expected = torch.linspace(-3.3, 7.7, 101, dtype=torch.float16).numpy()
    actual = hookgrad.linspace(-3.3, 7.7, 101, dtype=hookgrad.float16).numpy()
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, atol=1e-2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16"])
@pytest.mark.parametrize(
    "args",
    [(0, 1, 0.1), (-1, 1, 0.1), (-1, 1, 0.3), (5, -5, -0.7), (0, 1000, 7), (0.5, 100.5, 0.5),
     (1, 2, 1e-3), (1.5, 6, 1.5), (3, -3, -1.5), (-3.7, 12.1, 0.37)],
)  # fmt: skip
def test_arange_is_bitwise_torch(torch, dtype, args):
    # NOTE: torch's float kernel rounds differently per 32-byte vector lane (see
    # _arange_values); hookgrad follows it, so even the last bit agrees.
    try:
        expected = torch.arange(*args, dtype=getattr(torch, dtype)).numpy()
    except ValueError as error:  # int64 with a step that truncates to 0
        with pytest.raises(ValueError, match=str(error)):
            hookgrad.arange(*args, dtype=getattr(hookgrad, dtype))
        return
    actual = hookgrad.arange(*args, dtype=getattr(hookgrad, dtype)).numpy()
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)


def test_default_dtype_float64_changes_inferred_dtypes(torch):
    exprs = [
        "m.tensor(1.5)",
        "m.tensor([1, 2.5])",
        "m.tensor(1j)",
        "m.tensor(np.float32(2.0))",
        "m.zeros(2)",
        "m.arange(3.)",
        "m.arange(3)",
        "m.linspace(0, 1, 3)",
        "m.full((2,), 1.5)",
        "m.eye(2)",
    ]
    previous = hookgrad.get_default_dtype()
    hookgrad.set_default_dtype(hookgrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        results = [(_run(hookgrad, e), _run(torch, e)) for e in exprs]
    finally:
        hookgrad.set_default_dtype(previous)
        torch.set_default_dtype(torch.float32)
    for actual, expected in results:
        assert actual == expected
