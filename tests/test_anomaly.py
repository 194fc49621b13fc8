"""Anomaly detection: the switches, NaN checks, and the forward stack printed on errors."""

from __future__ import annotations

import warnings

import pytest

import hookgrad

ENABLED_WARNING = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should only "
    "be enabled for debugging."
)


def make_failing(lib):
    """A custom Function whose backward raises ValueError."""

    class Fail(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("boom")

    return Fail


def outcome(fn):
    """(exception type, message, warning messages other than the 'enabled' one) of fn()."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            error = (None, None)
        except Exception as exc:  # noqa: BLE001 (the tests compare any error)
            error = (type(exc).__name__, str(exc))
    messages = [str(w.message) for w in caught if str(w.message) != ENABLED_WARNING]
    # torch's C++ warnings end with " (Triggered internally at ...)"
    messages = [m.split(" (Triggered internally at")[0] for m in messages]
    return error, messages


# -- switches ---------------------------------------------------------------------------
def test_switches_match_torch(torch):
    def run(lib):
        seen = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
                mode = lib.autograd.detect_anomaly()
            with mode:
                seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(True)  # as a plain call it stays on
        seen.append(lib.is_anomaly_enabled())
        lib.autograd.set_detect_anomaly(False)
        seen.append(lib.is_anomaly_enabled())
        return seen

    assert run(hookgrad) == run(torch)


def test_enabled_warning_text():
    with pytest.warns(UserWarning) as record:
        hookgrad.autograd.detect_anomaly()
    assert str(record[0].message) == ENABLED_WARNING
    assert record[0].filename == __file__


def test_mode_restored_after_an_exception():
    with pytest.raises(KeyError):
        with pytest.warns(UserWarning), hookgrad.autograd.detect_anomaly():
            raise KeyError
    assert not hookgrad.is_anomaly_enabled()


def test_detect_anomaly_as_decorator():
    with pytest.warns(UserWarning):

        @hookgrad.autograd.detect_anomaly(check_nan=False)
        def state():
            return hookgrad.is_anomaly_enabled(), hookgrad.is_anomaly_check_nan_enabled()

    assert state() == (True, False)
    assert state() == (True, False)  # each call enters the mode afresh
    assert not hookgrad.is_anomaly_enabled()
    assert hookgrad.is_anomaly_check_nan_enabled()


# -- NaN checks -------------------------------------------------------------------------
NAN_CASES = {
    # sqrt'(0) = inf, times a zero gradient: NaN in SqrtBackward0's only output
    "sqrt": lambda lib: (lib.tensor([0.0, 1.0], requires_grad=True).sqrt() * 0).sum(),
    # 0/0: only the gradient of the divisor (output 1) is NaN
    "div": lambda lib: (
        lib.tensor([0.0], requires_grad=True) / lib.tensor([0.0], requires_grad=True)
    ).sum(),
    # a NaN constant factor: the outer MulBackward0 fails first
    "mul_nan": lambda lib: (
        lib.tensor([1.0]) * lib.tensor([1.0], requires_grad=True) * float("nan")
    ).sum(),
}


@pytest.mark.parametrize("case", NAN_CASES)
def test_nan_raises_like_torch(torch, case):
    def run(lib):
        with pytest.warns(UserWarning), lib.autograd.detect_anomaly():
            return outcome(lambda: NAN_CASES[case](lib).backward())

    (error, messages), (torch_error, torch_messages) = run(hookgrad), run(torch)
    assert error == torch_error
    assert error[0] == "RuntimeError" and "returned nan values in its" in error[1]
    # the warning names the node and ends with the user's line that created it
    assert [m.splitlines()[0] for m in messages] == [m.splitlines()[0] for m in torch_messages]
    assert messages[0].splitlines()[-1] == torch_messages[0].splitlines()[-1]


def test_nan_message_names_the_output_index():
    with pytest.warns(UserWarning), hookgrad.autograd.detect_anomaly():
        a = hookgrad.tensor([0.0], requires_grad=True)
        b = hookgrad.tensor([0.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            (a / b).sum().backward()
    assert str(info.value) == "Function 'DivBackward0' returned nan values in its 1th output."


def test_nan_from_a_tensor_hook_is_caught():
    with pytest.warns(UserWarning), hookgrad.autograd.detect_anomaly():
        a = hookgrad.tensor([1.0], requires_grad=True)
        b = a * 2
        b.register_hook(lambda grad: grad * float("nan"))
        with pytest.raises(RuntimeError, match="Function 'MulBackward0' returned nan values"):
            b.sum().backward()


def test_autograd_grad_checks_nan():
    with pytest.warns(UserWarning), hookgrad.autograd.detect_anomaly():
        x = hookgrad.tensor([0.0, 1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan values in its 0th"):
            hookgrad.autograd.grad(x.sqrt().sum() * 0, x)


def test_check_nan_false_lets_nan_through(torch):
    def run(lib):
        with pytest.warns(UserWarning), lib.autograd.detect_anomaly(check_nan=False):
            a = lib.tensor([1.0, 0.0], requires_grad=True)
            b = lib.tensor([2.0, 0.0], requires_grad=True)
            (a / b).sum().backward()
        return a.grad.tolist(), b.grad.tolist()

    got, expected = run(hookgrad), run(torch)
    assert str(got) == str(expected)  # NaN != NaN: compare the printed values
    assert "nan" in str(got)


def test_without_anomaly_mode_nothing_is_checked():
    a = hookgrad.tensor([0.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (a.sqrt() * 0).sum().backward()
    assert str(a.grad.tolist()) == "[nan]"
    assert "traceback_" not in (a * 2).grad_fn.metadata


# -- errors in backward -----------------------------------------------------------------
def test_error_warns_with_forward_stack_like_torch(torch):
    def run(lib):
        fail = make_failing(lib)
        with pytest.warns(UserWarning), lib.autograd.detect_anomaly():
            x = lib.ones(3, requires_grad=True)
            y = fail.apply(x * 2).sum()  # the line the warning must show
            return outcome(y.backward)

    (error, messages), (torch_error, torch_messages) = run(hookgrad), run(torch)
    assert error == torch_error == ("ValueError", "boom")
    assert len(messages) == len(torch_messages) == 1
    header = "Error detected in FailBackward. Traceback of forward call that caused the error:"
    assert messages[0].splitlines()[0] == header
    assert "y = fail.apply(x * 2).sum()  # the line the warning must show" in messages[0]
    assert torch_messages[0].startswith(header)


def test_recorded_stack_ends_at_the_users_line():
    with pytest.warns(UserWarning), hookgrad.autograd.detect_anomaly():
        x = hookgrad.ones(2, requires_grad=True)
        y = x * 3  # creation line
    stack = y.grad_fn.metadata["traceback_"]
    assert isinstance(stack, list) and all(isinstance(line, str) for line in stack)
    assert stack[-1].strip().endswith("y = x * 3  # creation line")
    assert "parent_" not in y.grad_fn.metadata


def test_error_in_a_hook_names_the_node(torch):
    def run(lib):
        with pytest.warns(UserWarning), lib.autograd.detect_anomaly():
            a = lib.tensor([1.0], requires_grad=True)
            b = a * 2
            b.register_hook(lambda grad: 1 / 0)
            return outcome(b.sum().backward)

    (error, messages), (torch_error, torch_messages) = run(hookgrad), run(torch)
    assert error[0] == torch_error[0] == "ZeroDivisionError"
    assert [m.splitlines()[0] for m in messages] == [m.splitlines()[0] for m in torch_messages]
    assert messages[0].startswith("Error detected in MulBackward0.")


def test_forward_outside_anomaly_mode_has_no_stack(torch):
    def run(lib):
        y = make_failing(lib).apply(lib.ones(1, requires_grad=True)).sum()
        with pytest.warns(UserWarning), lib.autograd.detect_anomaly():
            return outcome(y.backward)

    got, expected = run(hookgrad), run(torch)
    assert got == expected
    assert got[1] == [
        "Error detected in FailBackward. No forward pass information available. Enable detect "
        "anomaly during forward pass for more information."
    ]


def test_error_in_double_backward_shows_the_parent_stack(torch):
    def run(lib):
        fail = make_failing(lib)

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return fail.apply(2 * grad * x)

        with pytest.warns(UserWarning), lib.autograd.detect_anomaly():
            a = lib.tensor([1.0], requires_grad=True)
            y = Square.apply(a).sum()  # parent's creation line
            (g,) = lib.autograd.grad(y, a, create_graph=True)
            assert g.grad_fn.metadata["parent_"] is not None
            return outcome(g.sum().backward)

    (error, messages), (torch_error, torch_messages) = run(hookgrad), run(torch)
    assert error == torch_error == ("ValueError", "boom")
    assert len(messages) == len(torch_messages) == 2
    assert messages[0].startswith("Error detected in FailBackward. Traceback of forward call")
    assert "return fail.apply(2 * grad * x)" in messages[0]
    assert messages[1].splitlines()[:3] == torch_messages[1].splitlines()[:3]
    assert messages[1].startswith(
        "\n\nPrevious calculation was induced by SquareBackward. Traceback of forward call "
        "that induced the previous calculation:\n"
    )
    assert "y = Square.apply(a).sum()  # parent's creation line" in messages[1]


def test_engine_works_after_an_anomaly():
    with pytest.warns(UserWarning), hookgrad.autograd.detect_anomaly():
        x = hookgrad.tensor([0.0, 4.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            (x.sqrt() * 0).sum().backward()
        x[1:].sqrt().sum().backward()
    assert x.grad.tolist() == [0.0, 0.25]
    assert not hookgrad.is_anomaly_enabled()
