"""``hookgrad.return_types``: the named tuples torch's functions return, by torch's names:
``max``, ``min``, ``median``, ``sort``, ``topk`` ... (``values``, ``indices``), the
factorizations of ``hookgrad.linalg`` (``linalg_qr``: ``Q``, ``R`` ...) and of the
top-level functions (``qr``, ``svd``, ``slogdet`` ...).

torch has one more class per function for its ``out=`` form (``max_out``); hookgrad's
``<name>_out`` is the same class as ``<name>``. ``all_return_types`` lists them all, as
torch's does. Example::

    result = hookgrad.tensor([[1.0, 3.0], [4.0, 2.0]]).max(dim=1)
    isinstance(result, hookgrad.return_types.max)      # True
    result.values, result.indices
"""

from hookgrad.linalg.factorizations import (
    linalg_cholesky_ex,
    linalg_eig,
    linalg_eigh,
    linalg_ldl_factor,
    linalg_ldl_factor_ex,
    linalg_lu,
    linalg_lu_factor,
    linalg_lu_factor_ex,
    linalg_qr,
    linalg_svd,
)
from hookgrad.linalg.solvers import linalg_inv_ex, linalg_lstsq, linalg_slogdet, linalg_solve_ex
from hookgrad.linalg.toplevel import geqrf_result as geqrf
from hookgrad.linalg.toplevel import lu_unpack_result as lu_unpack
from hookgrad.linalg.toplevel import qr_result as qr
from hookgrad.linalg.toplevel import slogdet_result as slogdet
from hookgrad.linalg.toplevel import svd_result as svd
from hookgrad.linalg.toplevel import triangular_solve_result as triangular_solve
from hookgrad.tensor.named_tuples import RETURN_TYPES

max = RETURN_TYPES["max"]  # noqa: A001
min = RETURN_TYPES["min"]  # noqa: A001
median = RETURN_TYPES["median"]
# sorting, selection, scans and histograms
aminmax = RETURN_TYPES["aminmax"]
cummax = RETURN_TYPES["cummax"]
cummin = RETURN_TYPES["cummin"]
histogram = RETURN_TYPES["histogram"]
histogramdd = RETURN_TYPES["histogramdd"]
kthvalue = RETURN_TYPES["kthvalue"]
mode = RETURN_TYPES["mode"]
nanmedian = RETURN_TYPES["nanmedian"]
sort = RETURN_TYPES["sort"]
topk = RETURN_TYPES["topk"]

# torch's classes for the ``out=`` forms: here the same classes.
aminmax_out = aminmax
cummax_out = cummax
cummin_out = cummin
geqrf_out = geqrf
histogram_out = histogram
kthvalue_out = kthvalue
linalg_cholesky_ex_out = linalg_cholesky_ex
linalg_eig_out = linalg_eig
linalg_eigh_out = linalg_eigh
linalg_inv_ex_out = linalg_inv_ex
linalg_ldl_factor_ex_out = linalg_ldl_factor_ex
linalg_ldl_factor_out = linalg_ldl_factor
linalg_lstsq_out = linalg_lstsq
linalg_lu_factor_ex_out = linalg_lu_factor_ex
linalg_lu_factor_out = linalg_lu_factor
linalg_lu_out = linalg_lu
linalg_qr_out = linalg_qr
linalg_slogdet_out = linalg_slogdet
linalg_solve_ex_out = linalg_solve_ex
linalg_svd_out = linalg_svd
lu_unpack_out = lu_unpack
max_out = max
median_out = median
min_out = min
mode_out = mode
nanmedian_out = nanmedian
qr_out = qr
slogdet_out = slogdet
sort_out = sort
svd_out = svd
topk_out = topk
triangular_solve_out = triangular_solve

__all__ = [
    "aminmax",
    "cummax",
    "cummin",
    "geqrf",
    "histogram",
    "histogramdd",
    "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eig",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_ldl_factor",
    "linalg_ldl_factor_ex",
    "linalg_lstsq",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "lu_unpack",
    "max",
    "median",
    "min",
    "mode",
    "nanmedian",
    "qr",
    "slogdet",
    "sort",
    "svd",
    "topk",
    "triangular_solve",
]
__all__ += [f"{name}_out" for name in __all__ if name != "histogramdd"]

# Every class, once (torch's list holds each name and its ``_out`` class).
all_return_types = [globals()[name] for name in __all__ if not name.endswith("_out")]
