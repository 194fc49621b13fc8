"""``hookgrad.compile`` returns what it is given, uncompiled, after torch's argument
checks; ``hookgrad.compiler`` answers as with nothing ever being compiled."""

import inspect

import pytest

import hookgrad
from tests.oracle import outcome


def _double(x):
    return x * 2


def test_compile_returns_the_model_itself():
    model = hookgrad.nn.BatchNorm1d(3)
    assert hookgrad.compile(model) is model
    assert hookgrad.compile(model, mode="max-autotune", fullgraph=True, dynamic=False) is model
    assert hookgrad.compile(model, backend="eager", options={"trace.enabled": True}) is model
    assert hookgrad.compile(_double, disable=True) is _double
    decorate = hookgrad.compile(mode="reduce-overhead")
    assert decorate(_double) is _double
    assert list(hookgrad.compile(model).state_dict()) == list(model.state_dict())


def test_compiled_results_match_torch(torch):
    # NOTE: torch's default backend needs a C++ compiler; "eager" runs anywhere.
    def scenario(m):
        @m.compile(fullgraph=True, backend="eager")
        def step(x):
            return (x * x).sum()

        x = m.tensor([1.0, 2.0], requires_grad=True)
        step(x).backward()
        return [m.compile(_double, backend="eager")(m.tensor([3.0])), x.grad]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


CHECKS = [
    lambda m: m.compile(1),
    lambda m: m.compile(_double, mode="nonsense"),
    lambda m: m.compile(_double, mode="default", options={}),
    lambda m: m.compile(_double, unknown=True),
]


@pytest.mark.parametrize("case", CHECKS)
def test_argument_checks_match_torch(torch, case):
    assert outcome(case, hookgrad) == outcome(case, torch)


def test_signature_matches_torch(torch):
    assert list(inspect.signature(hookgrad.compile).parameters) == list(
        inspect.signature(torch.compile).parameters
    )


def test_compiler_module():
    assert hookgrad.compiler.is_compiling() is False
    assert hookgrad.compiler.is_dynamo_compiling() is False
    assert hookgrad.compiler.reset() is None
    assert hookgrad.compiler.disable(_double) is _double
    assert hookgrad.compiler.disable(recursive=False)(_double) is _double
