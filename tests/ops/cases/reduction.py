"""Op cases: reductions and scans (sum, mean, var/std, prod, max/min/median, amax/amin,
logsumexp, norm, cumsum/cumprod, softmax/log_softmax).

Ops whose gradient jumps where elements tie (max, median, inf-norms) use
``distinct=True``; ties and zeros are tested against torch in ``test_reduction.py``.
"""

from tests.ops.cases.spec import OpCase

INF = float("inf")
# Distinct values whose absolute values are distinct too, none near 0 (for p-norms).
AWAY_FROM_TIES = {"distinct": True, "low": -1.1, "high": 2.0}

CASES: list[OpCase] = [
    # sum / mean
    OpCase("sum", lambda t, a: a.sum(), ((3, 4),)),
    OpCase("sum_dim", lambda t, a: a.sum(1), ((3, 4),)),
    OpCase("sum_neg_dim", lambda t, a: t.sum(a, -1), ((3, 4),)),
    OpCase("sum_dims_keepdim", lambda t, a: a.sum((0, 2), keepdim=True), ((2, 3, 4),)),
    OpCase("sum_keepdim_all", lambda t, a: a.sum(None, keepdim=True), ((2, 3),)),
    OpCase("sum_empty_dims", lambda t, a: a.sum(()), ((2, 3),)),
    OpCase("sum_0dim", lambda t, a: a.sum(), ((),)),
    OpCase("sum_0dim_dim", lambda t, a: a.sum(0, keepdim=True), ((),)),
    OpCase("sum_dtype", lambda t, a: a.sum(1, dtype=t.float64), ((3, 4),)),
    OpCase("mean", lambda t, a: a.mean(), ((3, 4),)),
    OpCase("mean_dim", lambda t, a: a.mean(-1, keepdim=True), ((3, 4),)),
    OpCase("mean_dims", lambda t, a: t.mean(a, (0, 2)), ((2, 3, 4),)),
    OpCase("mean_0dim", lambda t, a: a.mean(), ((),)),
    # var / std
    OpCase("var", lambda t, a: a.var(), ((3, 4),)),
    OpCase("var_dim", lambda t, a: a.var(1), ((3, 4),)),
    OpCase("var_dims_keepdim", lambda t, a: a.var((0, 2), keepdim=True), ((2, 3, 4),)),
    OpCase("var_biased", lambda t, a: t.var(a, 0, False), ((5, 2),)),
    OpCase("var_correction", lambda t, a: a.var(-1, correction=2, keepdim=True), ((2, 5),)),
    OpCase("std", lambda t, a: a.std(), ((3, 4),)),
    OpCase("std_dim", lambda t, a: a.std(0, keepdim=True), ((4, 3),)),
    OpCase("std_correction", lambda t, a: t.std(a, (0, 1), correction=0), ((2, 3, 2),)),
    OpCase("var_mean", lambda t, a: t.var_mean(a, 1), ((3, 4),)),
    OpCase("var_mean_all", lambda t, a: t.var_mean(a, correction=0), ((3, 4),)),
    OpCase("std_mean", lambda t, a: t.std_mean(a, (0, 1), keepdim=True), ((3, 4, 2),)),
    # prod
    OpCase("prod", lambda t, a: a.prod(), ((2, 3),), low=0.5, high=1.5),
    OpCase("prod_signed", lambda t, a: a.prod(), ((5,),)),
    OpCase("prod_dim", lambda t, a: a.prod(1), ((3, 4),)),
    OpCase("prod_dim_keepdim", lambda t, a: t.prod(a, 0, keepdim=True), ((3, 2, 2),)),
    OpCase("prod_0dim", lambda t, a: a.prod(), ((),)),
    OpCase("prod_0dim_dim", lambda t, a: a.prod(0), ((),)),
    # max / min / median
    OpCase("max", lambda t, a: a.max(), ((3, 4),), distinct=True),
    OpCase("min", lambda t, a: t.min(a), ((3, 4),), distinct=True),
    OpCase("max_dim", lambda t, a: a.max(1), ((3, 4),), distinct=True),
    OpCase("max_dim_keepdim", lambda t, a: t.max(a, 0, keepdim=True), ((3, 4),), distinct=True),
    OpCase("min_dim", lambda t, a: a.min(dim=-1), ((2, 3, 4),), distinct=True),
    OpCase("max_0dim", lambda t, a: a.max(), ((),)),
    OpCase("max_0dim_dim", lambda t, a: a.max(0), ((),)),
    OpCase("max_binary", lambda t, a, b: t.max(a, b), ((3, 4), (4,)), distinct=True),
    OpCase("median", lambda t, a: a.median(), ((3, 5),), distinct=True),
    OpCase("median_dim", lambda t, a: a.median(1), ((3, 5),), distinct=True),
    OpCase("median_even", lambda t, a: t.median(a, 0, True), ((4, 3),), distinct=True),
    OpCase("amax", lambda t, a: a.amax(), ((3, 4),), distinct=True),
    OpCase("amax_dim", lambda t, a: a.amax(1), ((3, 4),), distinct=True),
    OpCase("amax_dims", lambda t, a: t.amax(a, (0, -1), keepdim=True), ((2, 3, 4),), distinct=True),
    OpCase("amin_dims", lambda t, a: a.amin((2, 0)), ((2, 3, 4),), distinct=True),
    OpCase("amax_0dim", lambda t, a: a.amax(), ((),)),
    # logsumexp
    OpCase("logsumexp", lambda t, a: a.logsumexp(1), ((3, 4),)),
    OpCase("logsumexp_dims", lambda t, a: t.logsumexp(a, (0, 2), keepdim=True), ((2, 3, 4),)),
    OpCase("logsumexp_large", lambda t, a: (a * 500).logsumexp(0), ((4, 2),)),
    OpCase("logsumexp_0dim", lambda t, a: a.logsumexp(0), ((),)),
    # norm
    OpCase("norm", lambda t, a: a.norm(), ((3, 4),)),
    OpCase("norm_dim", lambda t, a: a.norm(dim=1), ((3, 4),)),
    OpCase("norm_fro_dims", lambda t, a: t.norm(a, "fro", (0, 2), keepdim=True), ((2, 3, 2),)),
    OpCase("norm_p1", lambda t, a: a.norm(p=1, dim=0), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_inf", lambda t, a: a.norm(p=INF), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_neg_inf", lambda t, a: a.norm(-INF, 1), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_p3", lambda t, a: a.norm(3, 1, True), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_p1_5", lambda t, a: a.norm(1.5), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_p0_5", lambda t, a: a.norm(0.5, dim=(0, 1)), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_neg_p", lambda t, a: a.norm(-2, dim=0), ((3, 4),), **AWAY_FROM_TIES),
    OpCase("norm_0dim", lambda t, a: a.norm(), ((),)),
    # cumsum / cumprod
    OpCase("cumsum", lambda t, a: a.cumsum(1), ((3, 4),)),
    OpCase("cumsum_neg_dim", lambda t, a: t.cumsum(a, -3), ((3, 2, 2),)),
    OpCase("cumsum_0dim", lambda t, a: a.cumsum(0), ((),)),
    OpCase("cumprod", lambda t, a: a.cumprod(1), ((3, 4),)),
    OpCase("cumprod_dim0", lambda t, a: t.cumprod(a, 0), ((4, 2, 2),)),
    OpCase("cumprod_0dim", lambda t, a: a.cumprod(0), ((),)),
    # softmax
    OpCase("softmax", lambda t, a: a.softmax(1), ((3, 4),)),
    OpCase("softmax_dim0", lambda t, a: t.softmax(a, 0), ((3, 4, 2),)),
    OpCase("softmax_large", lambda t, a: (a * 500).softmax(-1), ((2, 3),)),
    OpCase("softmax_dtype", lambda t, a: t.softmax(a, -1, dtype=t.float64), ((2, 3),)),
    OpCase("softmax_0dim", lambda t, a: a.softmax(0), ((),)),
    OpCase("log_softmax", lambda t, a: a.log_softmax(1), ((3, 4),)),
    OpCase("log_softmax_dim0", lambda t, a: t.log_softmax(a, 0), ((3, 4, 2),)),
    OpCase("log_softmax_large", lambda t, a: (a * 500).log_softmax(0), ((3, 2),)),
]
