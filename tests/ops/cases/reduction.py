"""Op cases: reductions (sum, mean, var, std, prod, max/min, logsumexp, norm)."""

from tests.ops.cases.spec import OpCase

CASES: list[OpCase] = [
    OpCase("sum", lambda t, a: a.sum(), ((3, 4),)),
    OpCase("sum_dim", lambda t, a: a.sum(1), ((3, 4),)),
    OpCase("sum_dims_keepdim", lambda t, a: a.sum((0, 2), keepdim=True), ((2, 3, 4),)),
    OpCase("mean", lambda t, a: a.mean(), ((3, 4),)),
    OpCase("mean_dim", lambda t, a: a.mean(-1, keepdim=True), ((3, 4),)),
]
