"""Op cases: indexing ops."""

from tests.ops.cases.spec import OpCase

CASES: list[OpCase] = []
