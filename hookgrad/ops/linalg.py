"""Linear algebra: mm, matmul, bmm, dot, einsum."""
