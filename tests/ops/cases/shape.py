"""Op cases: shape and view ops."""

from tests.ops.cases.spec import OpCase

CASES: list[OpCase] = [
    OpCase("reshape", lambda t, a: a.reshape(4, -1) * 2, ((2, 3, 2),)),
    OpCase("expand", lambda t, a: a.expand(2, 3, 4) * 1.5, ((3, 1),)),
]
