"""Op cases: linalg ops."""

from tests.ops.cases.spec import OpCase

CASES: list[OpCase] = []
