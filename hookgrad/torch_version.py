"""``TorchVersion``: a version string that compares as a version (torch's
``torch.torch_version``), with the PEP 440 ordering it needs.

``hookgrad.__version__`` is one, so ``hookgrad.__version__ >= "0.1"`` and
``hookgrad.__version__ >= (0, 1)`` compare versions, not strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["InvalidVersion", "TorchVersion", "Version"]

# PEP 440's version grammar (the permissive form ``packaging`` accepts).
_PATTERN = re.compile(
    r"""
    v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?:-(?P<post_n1>[0-9]+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc"}
_PRE["rc"] = "rc"


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


class _Infinity:
    """Larger than anything else in a sort key (``packaging``'s ``Infinity``)."""

    def __lt__(self, other: object) -> bool:
        return False

    def __le__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return True

    def __ge__(self, other: object) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Infinity)

    def __hash__(self) -> int:
        return hash(_Infinity)


class _NegativeInfinity:
    """Smaller than anything else in a sort key."""

    def __lt__(self, other: object) -> bool:
        return True

    def __le__(self, other: object) -> bool:
        return True

    def __gt__(self, other: object) -> bool:
        return False

    def __ge__(self, other: object) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NegativeInfinity)

    def __hash__(self) -> int:
        return hash(_NegativeInfinity)


_INF, _NEG_INF = _Infinity(), _NegativeInfinity()


class Version:
    """A PEP 440 version (``"2.13.0+cpu"``, ``"1.10.0a0"``), ordered as ``packaging``
    orders them: epoch, release, pre-release, post-release, dev release, local part."""

    def __init__(self, version: str) -> None:
        match = _PATTERN.fullmatch(version.strip())
        if match is None:
            raise InvalidVersion(f"Invalid version: '{version}'")
        self._text = version
        self._key = _key(match)

    def __repr__(self) -> str:
        return f"<Version('{self._text}')>"

    def __lt__(self, other: Version) -> bool:
        return self._key < other._key

    def __le__(self, other: Version) -> bool:
        return self._key <= other._key

    def __gt__(self, other: Version) -> bool:
        return self._key > other._key

    def __ge__(self, other: Version) -> bool:
        return self._key >= other._key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)


def _key(match: re.Match) -> tuple:
    """``packaging``'s sort key of a parsed version."""
    release = tuple(int(part) for part in match["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    pre: Any = _INF
    if match["pre_l"]:
        pre = (_PRE[match["pre_l"].lower()], int(match["pre_n"] or 0))
    post: Any = _NEG_INF
    if match["post_n1"] or match["post_l"]:
        post = int(match["post_n1"] or match["post_n2"] or 0)
    dev: Any = _INF
    if match["dev_l"]:
        dev = int(match["dev_n"] or 0)
    if pre is _INF and post is _NEG_INF and dev is not _INF:
        pre = _NEG_INF  # 1.0.dev0 sorts before 1.0a0
    local: Any = _NEG_INF
    if match["local"]:
        local = tuple(
            (int(part), "") if part.isdigit() else (_NEG_INF, part)
            for part in re.split(r"[-_.]", match["local"].lower())
        )
    return (int(match["epoch"] or 0), release, pre, post, dev, local)


class TorchVersion(str):
    """A version string that compares with strings, ``Version``s and tuples as a version
    (falling back to string comparison for something that is not one). Example::

        v = TorchVersion("2.13.0+cpu")
        v > "2.1", v >= (2, 13), v < (2, 14, 0)     # True, True, True
    """

    __slots__ = ()

    def _convert_to_version(self, inp: Any) -> Version:
        if isinstance(inp, Version):
            return inp
        if isinstance(inp, str):
            return Version(inp)
        if isinstance(inp, Iterable):
            return Version(".".join(str(item) for item in inp))
        raise InvalidVersion(inp)

    def _cmp_wrapper(self, cmp: Any, method: str) -> bool:
        try:
            return getattr(Version(self), method)(self._convert_to_version(cmp))
        except InvalidVersion:
            return getattr(super(), method)(cmp)

    def __gt__(self, cmp: Any) -> bool:  # type: ignore[override]
        return self._cmp_wrapper(cmp, "__gt__")

    def __lt__(self, cmp: Any) -> bool:  # type: ignore[override]
        return self._cmp_wrapper(cmp, "__lt__")

    def __eq__(self, cmp: Any) -> bool:  # type: ignore[override]
        return self._cmp_wrapper(cmp, "__eq__")

    def __ge__(self, cmp: Any) -> bool:  # type: ignore[override]
        return self._cmp_wrapper(cmp, "__ge__")

    def __le__(self, cmp: Any) -> bool:  # type: ignore[override]
        return self._cmp_wrapper(cmp, "__le__")

    __hash__ = str.__hash__
