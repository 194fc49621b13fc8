"""The ``weights_only`` unpickler: it runs a pickle's instructions itself and builds only
plain values, containers and what the allowlist names, so loading a file cannot run code.

Python's unpickler trusts the file: a ``GLOBAL`` instruction imports any name and
``REDUCE`` calls it. Here ``GLOBAL`` resolves a name only through the allowlist
(``allowlist.WEIGHTS_ONLY`` and the user's ``add_safe_globals``), ``REDUCE`` and ``NEWOBJ``
call only allowed objects, ``BUILD`` sets state only on ``OrderedDict``/``Counter`` and
allowed classes, and items are added only to real lists, dicts and sets. The refusals are
``pickle.UnpicklingError`` with torch's wording. ``pickletools.genops`` decodes the
instructions (every protocol), so this module only gives them meaning.

A *dry run* builds nothing: every global is an opaque stand-in and calls are skipped. The
legacy format uses it to read a pickle's storage ids before the storage data that follows.
"""

from __future__ import annotations

import collections
import pickle
import pickletools
from collections.abc import Callable
from typing import IO, Any

from hookgrad.nn.parameter import Parameter
from hookgrad.serialization import allowlist
from hookgrad.serialization.storage import StorageType

_VALUES = frozenset(
    {
        "INT", "BININT", "BININT1", "BININT2", "LONG",
        "LONG1", "LONG4", "FLOAT", "BINFLOAT", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
        "UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8",
    }
)  # fmt: skip
_CONSTANTS = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}
_PY2_STRINGS = frozenset({"STRING", "BINSTRING", "SHORT_BINSTRING"})
_DICTS = (dict, collections.OrderedDict, collections.Counter)


class _Opaque:
    """What a dry run puts where a global, a call or a built object would be."""

    __slots__ = ()


_OPAQUE = _Opaque()


class WeightsUnpickler:
    """Unpickles one pickle from ``file``, refusing everything ``weights_only`` refuses.

    ``persistent_load(pid)`` gives the object a persistent id stands for (a storage).
    Example::

        WeightsUnpickler(io.BytesIO(data), load_storage).load()
    """

    def __init__(
        self, file: IO[bytes], persistent_load: Callable[[Any], Any], dry_run: bool = False
    ) -> None:
        self.file = file
        self.persistent_load = persistent_load
        self.dry_run = dry_run
        self.allowed = {**allowlist.WEIGHTS_ONLY, **allowlist.user_globals()}
        self.user_types = {id(v) for v in allowlist.user_globals().values()}
        self._allowed_ids = {id(v) for v in self.allowed.values()}
        self.stack: list[Any] = []
        self.metastack: list[list[Any]] = []
        self.memo: dict[int, Any] = {}

    def load(self) -> Any:
        """The unpickled object; the file is left just after the pickle's STOP."""
        ops = pickletools.genops(self.file)
        while True:
            try:
                opcode, arg, _ = next(ops)
            except (ValueError, StopIteration) as error:
                raise pickle.UnpicklingError(
                    f"the pickle is truncated or corrupt: {error}"
                ) from None
            name = opcode.name
            if name in _VALUES:
                self.stack.append(arg)
            elif name in _CONSTANTS:
                self.stack.append(_CONSTANTS[name])
            elif name == "STOP":
                return self._pop()
            elif name in _PY2_STRINGS:
                self.stack.append(str(arg).encode("latin-1").decode("utf-8"))
            else:
                handler = getattr(self, f"_op_{name}", None)
                if handler is None:
                    raise pickle.UnpicklingError(f"Unsupported operand {ord(opcode.code)}")
                handler(arg)

    # -- the stack ------------------------------------------------------------------------
    def _pop(self) -> Any:
        if not self.stack:
            raise pickle.UnpicklingError("the pickle is corrupt: its stack is empty")
        return self.stack.pop()

    def _top(self) -> Any:
        if not self.stack:
            raise pickle.UnpicklingError("the pickle is corrupt: its stack is empty")
        return self.stack[-1]

    def _pop_mark(self) -> list[Any]:
        if not self.metastack:
            raise pickle.UnpicklingError("the pickle is corrupt: it has no mark")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _op_PROTO(self, arg: int) -> None:  # noqa: N802
        pass

    _op_FRAME = _op_PROTO

    def _op_MARK(self, arg: None) -> None:  # noqa: N802
        self.metastack.append(self.stack)
        self.stack = []

    def _op_POP(self, arg: None) -> None:  # noqa: N802
        if self.stack:
            self.stack.pop()
        else:
            self._pop_mark()

    def _op_POP_MARK(self, arg: None) -> None:  # noqa: N802
        self._pop_mark()

    def _op_DUP(self, arg: None) -> None:  # noqa: N802
        self.stack.append(self._top())

    def _op_PUT(self, arg: int) -> None:  # noqa: N802
        self.memo[arg] = self._top()

    _op_BINPUT = _op_LONG_BINPUT = _op_PUT

    def _op_MEMOIZE(self, arg: None) -> None:  # noqa: N802
        self.memo[len(self.memo)] = self._top()

    def _op_GET(self, arg: int) -> None:  # noqa: N802
        if arg not in self.memo:
            raise pickle.UnpicklingError(f"Memo value not found at index {arg}")
        self.stack.append(self.memo[arg])

    _op_BINGET = _op_LONG_BINGET = _op_GET

    # -- containers -----------------------------------------------------------------------
    def _op_EMPTY_LIST(self, arg: None) -> None:  # noqa: N802
        self.stack.append([])

    def _op_EMPTY_DICT(self, arg: None) -> None:  # noqa: N802
        self.stack.append({})

    def _op_EMPTY_TUPLE(self, arg: None) -> None:  # noqa: N802
        self.stack.append(())

    def _op_EMPTY_SET(self, arg: None) -> None:  # noqa: N802
        self.stack.append(set())

    # NOTE: ``self.stack.append(self._pop_mark())`` would append to the stack above the
    # mark: the method is looked up before ``_pop_mark`` swaps the stacks.
    def _op_LIST(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        self.stack.append(items)

    def _op_TUPLE(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        self.stack.append(tuple(items))

    def _op_TUPLE1(self, arg: None) -> None:  # noqa: N802
        self.stack.append((self._pop(),))

    def _op_TUPLE2(self, arg: None) -> None:  # noqa: N802
        second = self._pop()
        self.stack.append((self._pop(), second))

    def _op_TUPLE3(self, arg: None) -> None:  # noqa: N802
        third = self._pop()
        second = self._pop()
        self.stack.append((self._pop(), second, third))

    def _op_DICT(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        self.stack.append(dict(zip(items[::2], items[1::2])))

    def _op_FROZENSET(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        self.stack.append(frozenset(items))

    def _op_BYTEARRAY8(self, arg: bytearray) -> None:  # noqa: N802
        self.stack.append(bytearray(arg))

    def _target(self, kinds: tuple[type, ...], opcode: str) -> Any:
        """The container an item is added to: exactly one of ``kinds`` (None in a dry run
        when it is a stand-in)."""
        target = self._top()
        if type(target) in kinds:
            return target
        if self.dry_run:
            return None
        plural: dict[type, str] = {list: "lists", set: "sets"}
        names = plural.get(kinds[0])
        if names is None:
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, "
                f"collections.Counter, but got {type(target)}"
            )
        raise pickle.UnpicklingError(f"Can only {opcode} to {names}, but got {type(target)}")

    def _op_APPEND(self, arg: None) -> None:  # noqa: N802
        item = self._pop()
        target = self._target((list,), "append")
        if target is not None:
            target.append(item)

    def _op_APPENDS(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        target = self._target((list,), "extend")
        if target is not None:
            target.extend(items)

    def _op_SETITEM(self, arg: None) -> None:  # noqa: N802
        value = self._pop()
        key = self._pop()
        target = self._target(_DICTS, "SETITEM")
        if target is not None:
            target[key] = value

    def _op_SETITEMS(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        target = self._target(_DICTS, "SETITEMS")
        if target is not None:
            for key, value in zip(items[::2], items[1::2]):
                target[key] = value

    def _op_ADDITEMS(self, arg: None) -> None:  # noqa: N802
        items = self._pop_mark()
        target = self._target((set,), "add")
        if target is not None:
            target.update(items)

    # -- persistent ids, globals and calls ------------------------------------------------
    def _op_PERSID(self, arg: str) -> None:  # noqa: N802
        self.stack.append(self.persistent_load(arg))

    def _op_BINPERSID(self, arg: None) -> None:  # noqa: N802
        self.stack.append(self.persistent_load(self._pop()))

    def _op_GLOBAL(self, arg: str) -> None:  # noqa: N802
        module, _, name = arg.partition(" ")
        self.stack.append(self._find_global(module, name))

    def _op_STACK_GLOBAL(self, arg: None) -> None:  # noqa: N802
        name = self._pop()
        module = self._pop()
        if not (isinstance(module, str) and isinstance(name, str)):
            raise pickle.UnpicklingError("STACK_GLOBAL requires str")
        self.stack.append(self._find_global(module, name))

    def _find_global(self, module: str, name: str) -> Any:
        module, name = allowlist.py3_name(module, name)
        full = f"{module}.{name}"
        if self.dry_run:
            found = self.allowed.get(full)
            return found if isinstance(found, StorageType) else _OPAQUE
        if module in allowlist.BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked."
            )
        if full in self.allowed:
            return self.allowed[full]
        shown = name if module == "builtins" else full
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
            "global if you trust this class/function."
        )

    def _op_REDUCE(self, arg: None) -> None:  # noqa: N802
        args = self._pop()
        func = self._top()
        if self.dry_run:
            self.stack[-1] = _OPAQUE
            return
        if id(func) not in self._allowed_ids or not callable(func) or not isinstance(args, tuple):
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
        self.stack[-1] = func(*args)

    def _new_object(self, cls: Any, args: Any, kwargs: Any) -> Any:
        if self.dry_run:
            return _OPAQUE
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise pickle.UnpicklingError("NEWOBJ arguments must be a tuple and a dict")
        if cls is Parameter:
            return Parameter(*args, **kwargs)
        if id(cls) in self._allowed_ids and isinstance(cls, type):
            return cls.__new__(cls, *args, **kwargs)
        raise pickle.UnpicklingError(
            "Can only create new object for nn.Parameter or classes allowlisted via "
            f"`add_safe_globals` but got {cls}"
        )

    def _op_NEWOBJ(self, arg: None) -> None:  # noqa: N802
        args = self._pop()
        cls = self._pop()
        self.stack.append(self._new_object(cls, args, {}))

    def _op_NEWOBJ_EX(self, arg: None) -> None:  # noqa: N802
        kwargs = self._pop()
        args = self._pop()
        cls = self._pop()
        self.stack.append(self._new_object(cls, args, kwargs))

    def _op_BUILD(self, arg: None) -> None:  # noqa: N802
        state = self._pop()
        inst = self._top()
        if self.dry_run:
            return
        if type(inst) in (collections.OrderedDict, collections.Counter):
            if not isinstance(state, dict):
                raise pickle.UnpicklingError("an OrderedDict's state must be a dict")
            inst.__dict__.update(state)
        elif id(type(inst)) in self.user_types:
            _build(inst, state)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {type(inst)}"
            )


def _build(inst: Any, state: Any) -> None:
    """Set ``state`` on an instance of a class the user allowed, as ``pickle`` would."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        inst.__dict__.update(state)
    for name, value in (slots or {}).items():
        setattr(inst, name, value)
