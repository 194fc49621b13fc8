"""Grad modes (context managers, decorators, generators, threads) and inference tensors."""

from __future__ import annotations

import threading

import pytest

import hookgrad


def modes(lib):
    return (lib.is_grad_enabled(), lib.is_inference_mode_enabled())


def recorded(lib):
    """Whether an op run now is recorded."""
    x = lib.ones(2, requires_grad=True)
    return (x * 2).requires_grad


# -- context managers -------------------------------------------------------------------
def test_nested_modes_match_torch(torch):
    def run(lib):
        seen = [modes(lib)]
        with lib.no_grad():
            seen.append(modes(lib))
            with lib.enable_grad():
                seen.append(modes(lib))
                with lib.set_grad_enabled(False):
                    seen.append(modes(lib))
                seen.append(modes(lib))
            with lib.inference_mode(False):  # leaving inference mode turns grad mode on
                seen.append(modes(lib))
            seen.append(modes(lib))
        with lib.inference_mode():
            seen.append(modes(lib))
            with lib.inference_mode(False):
                seen.append(modes(lib))
            with lib.enable_grad():
                seen.append(modes(lib))
            seen.append(modes(lib))
        seen.append(modes(lib))
        return seen

    assert run(hookgrad) == run(torch)


def test_modes_control_recording():
    assert recorded(hookgrad)
    with hookgrad.no_grad():
        assert not recorded(hookgrad)
        with hookgrad.enable_grad():
            assert recorded(hookgrad)
    with hookgrad.set_grad_enabled(False):
        assert not recorded(hookgrad)
    with hookgrad.inference_mode():
        assert not recorded(hookgrad)
    assert recorded(hookgrad)


def test_set_grad_enabled_takes_effect_at_once(torch):
    for lib in (hookgrad, torch):
        lib.set_grad_enabled(False)
        try:
            assert not lib.is_grad_enabled()
        finally:
            lib.set_grad_enabled(True)
        assert lib.is_grad_enabled()


@pytest.mark.parametrize(
    "mode",
    [
        hookgrad.no_grad,
        hookgrad.enable_grad,
        lambda: hookgrad.set_grad_enabled(False),
        hookgrad.inference_mode,
        lambda: hookgrad.inference_mode(False),
    ],
    ids=["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "inference_off"],
)
def test_mode_is_restored_when_the_body_raises(mode):
    for outer in (hookgrad.no_grad, hookgrad.enable_grad, hookgrad.inference_mode):
        with outer():
            before = modes(hookgrad)
            with pytest.raises(KeyError):
                with mode():
                    raise KeyError("boom")
            assert modes(hookgrad) == before

            @mode()
            def failing():
                raise KeyError("boom")

            with pytest.raises(KeyError):
                failing()
            assert modes(hookgrad) == before


# -- decorators -------------------------------------------------------------------------
def test_decorators_with_and_without_parentheses(torch):
    def run(lib):
        def probe():
            return modes(lib)

        decorated = [
            lib.no_grad()(probe),
            lib.no_grad(probe),
            lib.enable_grad()(probe),
            lib.enable_grad(probe),
            lib.inference_mode()(probe),
            lib.inference_mode(probe),
            lib.inference_mode(False)(probe),
        ]
        seen = [fn() for fn in decorated]
        with lib.no_grad():
            seen += [fn() for fn in decorated]
        return seen

    assert run(hookgrad) == run(torch)


def test_set_grad_enabled_decorator_does_not_change_the_mode_at_decoration():
    @hookgrad.set_grad_enabled(False)
    def probe():
        return hookgrad.is_grad_enabled()

    assert hookgrad.is_grad_enabled()
    assert probe() is False
    assert hookgrad.is_grad_enabled()


def test_decorated_function_keeps_name_doc_and_result():
    @hookgrad.no_grad()
    def double(x, *, factor=2):
        """Doubles."""
        return x * factor

    assert double.__name__ == "double" and double.__doc__ == "Doubles."
    x = hookgrad.ones(2, requires_grad=True)
    out = double(x, factor=3)
    assert not out.requires_grad and out.tolist() == [3.0, 3.0]


def test_decorated_class_warns_and_constructs_under_the_mode():
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):

        @hookgrad.no_grad()
        class Probe:
            def __init__(self, value):
                self.value = value
                self.enabled = hookgrad.is_grad_enabled()

    probe = Probe(5)
    assert (probe.value, probe.enabled) == (5, False)


def test_decorator_instance_is_reentrant():
    calls = []
    no_grad = hookgrad.no_grad()

    @no_grad
    def recurse(depth):
        calls.append(hookgrad.is_grad_enabled())
        if depth:
            recurse(depth - 1)
        calls.append(hookgrad.is_grad_enabled())

    recurse(2)
    assert calls == [False] * 6 and hookgrad.is_grad_enabled()


# -- generators -------------------------------------------------------------------------
def test_generator_mode_holds_only_inside_the_generator(torch):
    def run(lib):
        seen = []

        @lib.no_grad()
        def gen():
            received = yield lib.is_grad_enabled()
            seen.append(("inside", received, lib.is_grad_enabled()))
            yield lib.is_grad_enabled()
            return "done"

        it = gen()
        seen.append(("first", next(it), lib.is_grad_enabled()))
        seen.append(("sent", it.send("hello"), lib.is_grad_enabled()))
        with pytest.raises(StopIteration) as stop:
            next(it)
        seen.append(("return", stop.value.value))
        return seen

    got = run(hookgrad)
    assert got == run(torch)
    assert got[0] == ("first", False, True)


def test_generator_throw_and_close():
    log = []

    @hookgrad.inference_mode()
    def gen():
        try:
            yield 1
        except ValueError:
            log.append(("caught", modes(hookgrad)))
            yield 2
        finally:
            log.append(("closing", modes(hookgrad)))

    it = gen()
    assert next(it) == 1
    assert it.throw(ValueError("x")) == 2
    it.close()
    assert log == [("caught", (False, True)), ("closing", (False, True))]
    assert modes(hookgrad) == (True, False)

    @hookgrad.no_grad()
    def failing():
        yield 1
        raise KeyError("boom")

    it = failing()
    next(it)
    with pytest.raises(KeyError):
        next(it)
    assert hookgrad.is_grad_enabled()


def test_yield_from_a_decorated_generator():
    @hookgrad.no_grad()
    def inner():
        yield hookgrad.is_grad_enabled()
        return 7

    def outer():
        result = yield from inner()
        yield result

    assert list(outer()) == [False, 7]


# -- threads ----------------------------------------------------------------------------
def test_modes_are_thread_local():
    ready, done = threading.Event(), threading.Event()
    seen = {}

    def worker():
        seen["initial"] = modes(hookgrad)
        with hookgrad.inference_mode():
            ready.set()
            done.wait(5)
            seen["inside"] = modes(hookgrad)

    with hookgrad.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        assert ready.wait(5)
        # The worker is inside inference_mode; this thread keeps its own no_grad.
        seen["main"] = modes(hookgrad)
        done.set()
        thread.join(5)
    assert seen == {"initial": (True, False), "inside": (False, True), "main": (False, False)}
    assert modes(hookgrad) == (True, False)


# -- inference tensors ------------------------------------------------------------------
def test_inference_tensors_match_torch(torch):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            created = [lib.zeros(3), lib.tensor([1.0]), lib.randn(2), x * 2]
            grad_leaf = lib.ones(2, requires_grad=True)
        frozen = created[0]
        return [
            [t.is_inference() for t in created],
            [t.requires_grad for t in created],
            (grad_leaf.requires_grad, grad_leaf.is_inference()),
            (frozen * 2).is_inference(),
            frozen.detach().is_inference(),
            x.is_inference(),
        ]

    assert run(hookgrad) == run(torch)


def test_no_grad_tensors_are_not_inference_tensors():
    with hookgrad.no_grad():
        out = hookgrad.ones(2) * 2
    assert not out.is_inference()


def test_requires_grad_on_an_inference_tensor(torch):
    messages = []
    for lib in (hookgrad, torch):
        with lib.inference_mode():
            frozen = lib.zeros(3)
            frozen.requires_grad_()  # allowed inside the mode
            assert frozen.requires_grad
            other = lib.zeros(3)
        other.requires_grad_(False)  # turning it off is always allowed
        with pytest.raises(RuntimeError) as info:
            other.requires_grad_()
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[0] == (
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
    )


def test_saving_an_inference_tensor_for_backward(torch):
    messages = []
    for lib in (hookgrad, torch):
        with lib.inference_mode():
            frozen = lib.ones(3)
        x = lib.ones(3, requires_grad=True)
        assert (x + frozen).requires_grad  # add saves nothing: fine
        with pytest.raises(RuntimeError) as info:
            x * frozen  # mul saves ``frozen`` for backward
        messages.append(str(info.value))
    # NOTE: dispatch.py still has torch's older wording after the first sentence.
    first_sentence = "Inference tensors cannot be saved for backward."
    assert messages[0].startswith(first_sentence) and messages[1].startswith(first_sentence)
