"""torch's factory functions with torch's keyword options, against torch: ``out=`` (the
values written into it, its dtype taken, resized as torch resizes it), ``layout=`` (only
``strided``), ``pin_memory=`` (False is accepted, True fails as in a CPU-only torch),
``memory_format=`` (``empty`` and the ``*_like`` functions) and ``generator=`` (the
random ones, drawing torch's numbers into ``out``'s memory in its order).

Every case runs on hookgrad and on torch and must give the same observation (values,
dtype, ``requires_grad``, strides, identity of the result, version counters) or the same
exception.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

import hookgrad
from tests.oracle import outcome

# (factory, its arguments without the options) for the options every factory takes
FACTORIES = {
    "zeros": lambda t: ((2, 3), {}),
    "ones": lambda t: ((2, 3), {}),
    "empty": lambda t: ((2, 3), {}),
    "full": lambda t: (((2, 3), 1.5), {}),
    "arange": lambda t: ((1, 4, 0.5), {}),
    "linspace": lambda t: ((-1, 1, 5), {}),
    "logspace": lambda t: ((0, 2, 3), {"base": 2.0}),
    "eye": lambda t: ((2, 3), {}),
    "rand": lambda t: ((2, 3), {}),
    "randn": lambda t: ((2, 3), {}),
    "randint": lambda t: ((-3, 5, (2, 3)), {}),
    "randperm": lambda t: ((5,), {}),
    "zeros_like": lambda t: ((t.ones(2, 3),), {}),
    "ones_like": lambda t: ((t.ones(2, 3),), {}),
    "empty_like": lambda t: ((t.ones(2, 3),), {}),
    "full_like": lambda t: ((t.ones(2, 3), 2.5), {}),
    "rand_like": lambda t: ((t.ones(2, 3),), {}),
    "randn_like": lambda t: ((t.ones(2, 3),), {}),
    "randint_like": lambda t: ((t.ones(2, 3), 5), {}),
    "empty_strided": lambda t: (((2, 3), (1, 2)), {}),
    "empty_permuted": lambda t: (((2, 3), (1, 0)), {}),
    "scalar_tensor": lambda t: ((1.5,), {}),
    "tensor": lambda t: (([1.0, 2.0],), {}),
    "hann_window": lambda t: ((4,), {}),
    "hamming_window": lambda t: ((4,), {"periodic": False}),
    "blackman_window": lambda t: ((5,), {}),
    "bartlett_window": lambda t: ((5,), {}),
    "kaiser_window": lambda t: ((5, True, 4.0), {}),
    "tril_indices": lambda t: ((3, 2), {}),
    "triu_indices": lambda t: ((3, 3, 1), {}),
}
RANDOM = ("rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like")
UNINITIALISED = ("empty", "empty_like", "empty_strided", "empty_permuted")
# the factories that take ``out`` (each of the others refuses it with a TypeError)
WITH_OUT = ("zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye")
WITH_OUT += ("rand", "randn", "randint", "randperm")


def _call(lib: Any, name: str, **options: Any) -> Any:
    args, kwargs = FACTORIES[name](lib)
    return getattr(lib, name)(*args, **kwargs, **options)


def _observe(lib: Any, name: str, result: Any) -> Any:
    """A result as comparable values (``empty``'s values are any values: shape only)."""
    if name in UNINITIALISED:
        return tuple(result.shape), str(result.dtype), result.requires_grad, result.stride()
    return result, result.stride()


def _seeded(lib: Any, run: Any) -> Any:
    """``run()`` after seeding the global generator, which is restored after."""
    state = lib.get_rng_state()
    try:
        lib.manual_seed(5)
        return run()
    finally:
        lib.set_rng_state(state)


def _typed(observed: Any) -> Any:
    """``observed`` with the messages of TypeErrors dropped: where torch has overloads,
    its message lists them all, hookgrad's names the argument (the type is compared)."""
    if isinstance(observed, (tuple, list)):
        if len(observed) == 3 and list(observed[:2]) == ["error", "TypeError"]:
            return ("error", "TypeError")
        return type(observed)(_typed(x) for x in observed)
    return observed


def _same(case: Any) -> None:
    def run(lib):
        return _typed(outcome(lambda lib: _seeded(lib, lambda: case(lib)), lib))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.range's deprecation
        assert run(hookgrad) == run(torch)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_layout_and_pin_memory(name):
    """``layout=strided`` (or None) and ``pin_memory=False`` change nothing;
    ``pin_memory=True`` fails as without an accelerator; other values are refused."""

    def case(lib):
        plain = _observe(lib, name, _call(lib, name))
        options = {"layout": lib.strided, "pin_memory": False}
        if name in ("tensor",):
            options = {"pin_memory": False}
        given = _observe(lib, name, _call(lib, name, **options))
        errors = [
            outcome(lambda lib: _call(lib, name, pin_memory=True), lib),
            outcome(lambda lib: _call(lib, name, pin_memory=1), lib),
        ]
        if name != "tensor":
            errors.append(outcome(lambda lib: _call(lib, name, layout="sparse"), lib))
            errors.append(_observe(lib, name, _call(lib, name, layout=None)))
        return plain, given, errors

    _same(case)


@pytest.mark.parametrize("name", WITH_OUT)
def test_out(name):
    """The values go into ``out``, which is returned, takes no new history, gives its
    dtype and is resized when its shape differs; a non-contiguous ``out`` of the right
    shape keeps its layout (random draws follow its memory order)."""
    dtype = "int32" if name in ("randint", "randperm") else "float64"

    def case(lib):
        out = lib.empty(0, dtype=getattr(lib, dtype))
        result = _call(lib, name, out=out)
        shape = tuple(result.shape)
        strided = lib.empty(tuple(reversed(shape)), dtype=getattr(lib, dtype)).T
        kept = _call(lib, name, out=strided)
        return [
            _observe(lib, name, result),
            result is out,
            out._version,
            kept is strided,
            _observe(lib, name, kept),
            _observe(lib, name, _call(lib, name, out=lib.empty(shape, dtype=getattr(lib, dtype)))),
        ]

    _same(case)


@pytest.mark.parametrize("name", WITH_OUT)
def test_out_errors(name):
    """A ``dtype`` other than ``out``'s, an ``out`` that requires grad (nothing drawn or
    written then) and an ``out`` that is not a tensor are refused as by torch;
    ``requires_grad=True`` makes ``out`` require grad."""

    def case(lib):
        leaf = lib.zeros(2, dtype=lib.float64, requires_grad=True)
        seen = [
            outcome(lambda lib: _call(lib, name, out=lib.empty(0), dtype=lib.float64), lib),
            outcome(lambda lib: _call(lib, name, out=leaf), lib),
            leaf.detach().tolist(),
            lib.rand(1),  # the generator did not move
            outcome(lambda lib: _call(lib, name, out=[1.0]), lib),
        ]
        if name not in ("randint", "randperm"):
            out = lib.empty(0, dtype=lib.float64)
            seen.append(_call(lib, name, out=out, requires_grad=True).requires_grad)
        return seen

    _same(case)


FACTORY_CASES = [
    # out: the dtype decides the values (an integer ``out`` of linspace truncates)
    ("linspace_int_out", lambda t: t.linspace(0, 10, 5, out=t.empty(0, dtype=t.int64))),
    ("full_int_out", lambda t: t.full((2,), 7.5, out=t.empty(0, dtype=t.int64))),
    ("full_bool_out", lambda t: t.full((2,), 2.5, out=t.empty(0, dtype=t.bool))),
    ("eye_bool_out", lambda t: t.eye(2, out=t.empty(0, dtype=t.bool))),
    ("arange_bool_out", lambda t: t.arange(3, out=t.empty(0, dtype=t.bool))),
    ("arange_int_out_float_step", lambda t: t.arange(0, 1, 0.25, out=t.empty(0, dtype=t.int64))),
    ("arange_double_out", lambda t: t.arange(-1, 1, 0.1, out=t.empty(0, dtype=t.float64))),
    ("rand_int_out", lambda t: t.rand(2, out=t.empty(0, dtype=t.int64))),
    ("rand_complex_out", lambda t: t.rand(2, out=t.empty(0, dtype=t.complex64))),
    ("randperm_bool_out", lambda t: t.randperm(3, out=t.empty(0, dtype=t.bool))),
    ("randint_float_out", lambda t: t.randint(5, (3,), out=t.empty(0))),
    ("range_out", lambda t: t.range(0, 2, 0.5, out=t.empty(0, dtype=t.float64))),
    ("range_out_resized", lambda t: t.range(0, 4, out=t.empty(3))),
    ("zeros_out_view", lambda t: (lambda base: (t.ones(2, out=base[1:3]), base))(t.zeros(4))),
    ("zeros_size_keyword_out", lambda t: t.zeros(size=(2, 2), out=t.empty(4, dtype=t.int32))),
    (
        "zeros_out_no_grad",
        lambda t: _without_grad(t, lambda: t.zeros(2, out=t.empty(2, requires_grad=True))),
    ),
    # generator: the draws of a seeded generator, into a new tensor or into ``out``
    (
        "rand_generator_out",
        lambda t: t.rand(2, 2, generator=t.Generator().manual_seed(3), out=t.empty(3, 2).T),
    ),
    ("randint_generator", lambda t: t.randint(0, 9, (4,), generator=t.Generator().manual_seed(3))),
    (
        "randperm_generator_out",
        lambda t: t.randperm(
            6, generator=t.Generator().manual_seed(3), out=t.empty(0, dtype=t.int64)
        ),
    ),
    (
        "randn_like_generator",
        lambda t: t.randn_like(t.ones(3, 2).T, generator=t.Generator().manual_seed(3)),
    ),
    # memory_format
    ("empty_channels_last", lambda t: t.empty(1, 2, 3, 4, memory_format=t.channels_last).stride()),
    (
        "empty_channels_last_3d",
        lambda t: t.empty(1, 2, 3, 4, 2, memory_format=t.channels_last_3d).stride(),
    ),
    ("empty_contiguous", lambda t: t.empty(2, 3, memory_format=t.contiguous_format).stride()),
    ("empty_preserve", lambda t: t.empty(2, memory_format=t.preserve_format)),
    ("empty_channels_last_rank", lambda t: t.empty(2, 3, memory_format=t.channels_last)),
    ("empty_format_type", lambda t: t.empty(2, memory_format="x")),
    ("zeros_like_preserves", lambda t: t.zeros_like(t.ones(2, 3).T).stride()),
    (
        "ones_like_preserves_channels_last",
        lambda t: t.ones_like(
            t.ones(1, 2, 3, 4).contiguous(memory_format=t.channels_last)
        ).stride(),
    ),
    (
        "full_like_preserves",
        lambda t: (lambda x: (x, x.stride()))(t.full_like(t.ones(2, 3, 4).permute(2, 0, 1), 3)),
    ),
    ("empty_like_not_dense", lambda t: t.empty_like(t.ones(3, 4)[:, ::2]).stride()),
    (
        "zeros_like_contiguous",
        lambda t: t.zeros_like(t.ones(2, 3).T, memory_format=t.contiguous_format).stride(),
    ),
    (
        "zeros_like_channels_last",
        lambda t: t.zeros_like(t.ones(1, 2, 3, 4), memory_format=t.channels_last).stride(),
    ),
    (
        "rand_like_channels_last_3d_rank",
        lambda t: t.rand_like(t.ones(2), memory_format=t.channels_last_3d),
    ),
    ("randint_like_preserves", lambda t: t.randint_like(t.ones(2, 3).T, 7).stride()),
    ("zeros_like_format_type", lambda t: t.zeros_like(t.ones(2), memory_format="x")),
    # tensor's options
    ("tensor_pin_memory_none", lambda t: t.tensor([1.0], pin_memory=None)),
]


def _without_grad(lib: Any, run: Any) -> Any:
    with lib.no_grad():
        return run()


@pytest.mark.parametrize("case", [c[1] for c in FACTORY_CASES], ids=[c[0] for c in FACTORY_CASES])
def test_factory_option_as_torch(case):
    _same(lambda lib: (case(lib), lib.rand(1)))


def test_arange_warns_before_resizing_out():
    """An ``out`` with elements, but not as many as the range has, is resized with torch's
    warning (an empty one silently)."""

    def case(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resized = lib.arange(5, out=lib.empty(3))
            lib.arange(5, out=lib.empty(0))
        return resized.tolist(), [str(w.message).split(" (Triggered")[0] for w in caught]

    assert case(hookgrad) == case(torch)


# The options torch does not take, refused with a TypeError by both (torch's message lists
# its overloads, hookgrad's names the argument).
REFUSED = [
    ("zeros", "memory_format"),
    ("full", "memory_format"),
    ("arange", "memory_format"),
    ("eye", "generator"),
    ("rand", "memory_format"),
    ("zeros_like", "out"),
    ("rand_like", "out"),
    ("scalar_tensor", "out"),
    ("tensor", "layout"),
    ("hann_window", "out"),
    ("range", "pin_memory"),
    ("empty_strided", "memory_format"),
]


@pytest.mark.parametrize("name,option", REFUSED, ids=[f"{n}-{o}" for n, o in REFUSED])
def test_option_torch_does_not_take(name, option):
    def error_type(lib):
        value = {"memory_format": lib.contiguous_format, "generator": lib.Generator()}
        value |= {"out": lib.empty(0), "layout": lib.strided, "pin_memory": False}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                _call(lib, name, **{option: value[option]}) if name != "range" else lib.range(
                    0, 2, **{option: value[option]}
                )
            except TypeError:
                return "TypeError"
        return None

    assert error_type(hookgrad) == error_type(torch) == "TypeError"
