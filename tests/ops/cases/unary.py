"""Op cases: unary elementwise math."""

from tests.ops.cases.spec import OpCase

CASES: list[OpCase] = [
    OpCase("exp", lambda t, a: a.exp(), ((3, 4),)),
    OpCase("log", lambda t, a: a.log(), ((3, 4),), low=0.5, high=3.0),
    OpCase("reciprocal", lambda t, a: a.reciprocal(), ((3, 4),), low=0.5, high=3.0),
]
