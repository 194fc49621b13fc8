"""``hookgrad.linalg``: torch's ``torch.linalg``, for ``import hookgrad as torch``.

Factorizations (``cholesky``, ``qr``, ``eig``, ``eigh``, ``svd``, ``lu``,
``ldl_factor`` ...), determinants and solvers (``det``, ``slogdet``, ``inv``, ``solve``,
``solve_triangular``, ``lstsq``, ``pinv`` ...), norms and products (``norm``,
``vector_norm``, ``matrix_norm``, ``cross``, ``vecdot``, ``multi_dot`` ...), batched over
leading dims, for real and complex inputs, with torch's gradients, node names and errors
(``LinAlgError`` for singular or not positive-definite input; the ``_ex`` variants return
``info`` instead). Decompositions are unique only up to signs or phases: as in torch, a
differentiable function of singular vectors or eigenvectors must not depend on them.

This package sits in the tensor layer beside ``hookgrad.tensor.functions``: it imports
the ops and ``Tensor``, never the function modules (``hookgrad.tensor.functions.linalg``
imports it for the top-level aliases ``torch.det``, ``torch.svd`` ...). Example::

    import hookgrad as torch

    A = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
    torch.linalg.det(A).backward()      # A.grad is det(A) * inv(A).T
"""

from hookgrad.linalg.checks import LinAlgError
from hookgrad.linalg.factorizations import (
    cholesky,
    cholesky_ex,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    householder_product,
    ldl_factor,
    ldl_factor_ex,
    lu,
    lu_factor,
    lu_factor_ex,
    qr,
    svd,
    svdvals,
)
from hookgrad.linalg.norms import (
    cross,
    diagonal,
    matmul,
    matrix_norm,
    multi_dot,
    norm,
    vander,
    vecdot,
    vector_norm,
)
from hookgrad.linalg.solvers import (
    cond,
    det,
    inv,
    inv_ex,
    ldl_solve,
    lstsq,
    lu_solve,
    matrix_exp,
    matrix_power,
    matrix_rank,
    pinv,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
    tensorinv,
    tensorsolve,
)

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]
