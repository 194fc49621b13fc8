"""Op cases: the losses of ``nn.functional`` beyond the regression and cross-entropy ones
(KL divergence, Poisson and Gaussian likelihoods, soft margin, hinge, margin ranking,
cosine embedding, the multi-class margins, triplet), the distances (pairwise, cosine
similarity) and embedding bags.

Targets are constants (``Const``): labels of 1 / -1, class indices, probabilities.
torch has no second derivative for the multi-class margin losses (their backward's node
is ``NotImplemented``), nor for embedding bags: they are not gradgradchecked.
"""

import numpy as np

from tests.ops.cases.spec import Const, OpCase


def _f(lib):
    return lib.nn.functional


def _signs(rng):
    return rng.choice([-1.0, 1.0], size=(3, 4))


def _row_signs(rng):
    return rng.choice([-1.0, 1.0], size=(3,))


def _probabilities(rng):
    return rng.uniform(0.1, 1.0, (3, 4))


def _counts(rng):
    return rng.integers(0, 5, (3, 4)).astype(np.float64)


def _bits(rng):
    return rng.integers(0, 2, (3, 4)).astype(np.float64)


def _classes(rng):
    return np.array([0, 3, 2])


def _class_weight(rng):
    return rng.uniform(0.5, 2.0, (4,))


def _labels(rng):
    return np.array([[0, 2, -1, 1], [3, -1, 0, 0], [1, 2, 3, 0]])


def _bag_indices(rng):
    return np.array([1, 0, 3, 3, 2, 1])


def _bag_offsets(rng):
    return np.array([0, 2, 2])


def _same(t, x, like):
    """A float64 constant in ``like``'s dtype (the table runs float32 and float64)."""
    return x.to(like.dtype)


CASES = [
    OpCase(
        "kl_div_batchmean",
        lambda t, x, p: _f(t).kl_div(x, _same(t, p, x), reduction="batchmean"),
        ((3, 4), Const(_probabilities)),
    ),
    OpCase(
        "kl_div_log_target",
        lambda t, x, y: _f(t).kl_div(x, y, reduction="sum", log_target=True),
        ((3, 4), (3, 4)),
    ),
    OpCase(
        "poisson_nll",
        lambda t, x, y: _f(t).poisson_nll_loss(x, _same(t, y, x)),
        ((3, 4), Const(_counts)),
    ),
    OpCase(
        "poisson_nll_full",
        lambda t, x, y: _f(t).poisson_nll_loss(x, _same(t, y, x), False, True, reduction="none"),
        ((3, 4), Const(_counts)),
        low=0.5,
        high=2.0,
    ),
    OpCase(
        "gaussian_nll",
        lambda t, x, y, v: _f(t).gaussian_nll_loss(x, y, v),
        ((3, 4), (3, 4), (3, 4)),
        low=0.3,
        high=2.0,
    ),
    OpCase(
        "gaussian_nll_full",
        lambda t, x, y, v: _f(t).gaussian_nll_loss(x, y, v, full=True, reduction="sum"),
        ((3, 4), (3, 4), (3,)),
        low=0.3,
        high=2.0,
    ),
    OpCase(
        "soft_margin",
        lambda t, x, s: _f(t).soft_margin_loss(x, _same(t, s, x)),
        ((3, 4), Const(_signs)),
    ),
    OpCase(
        "soft_margin_none",
        lambda t, x, s: _f(t).soft_margin_loss(x, _same(t, s, x), reduction="none"),
        ((3, 4), Const(_signs)),
    ),
    OpCase(
        "hinge_embedding",
        lambda t, x, s: _f(t).hinge_embedding_loss(x, _same(t, s, x), margin=0.7),
        ((3, 4), Const(_signs)),
    ),
    OpCase(
        "margin_ranking",
        lambda t, a, b, s: _f(t).margin_ranking_loss(a, b, _same(t, s, a), 0.3, reduction="sum"),
        ((3, 4), (3, 4), Const(_signs)),
    ),
    OpCase(
        "cosine_embedding",
        lambda t, a, b, s: _f(t).cosine_embedding_loss(a, b, _same(t, s, a), margin=-0.2),
        ((3, 4), (3, 4), Const(_row_signs)),
    ),
    OpCase(
        "multilabel_soft_margin",
        lambda t, x, y, w: _f(t).multilabel_soft_margin_loss(x, _same(t, y, x), w),
        ((3, 4), Const(_bits), (4,)),
    ),
    OpCase(
        "multi_margin",
        lambda t, x, y: _f(t).multi_margin_loss(x, y, margin=0.8),
        ((3, 4), Const(_classes)),
        gradgrad=False,
    ),
    OpCase(
        "multi_margin_p2",
        lambda t, x, y, w: _f(t).multi_margin_loss(x, y, 2, 1.2, _same(t, w, x), reduction="none"),
        ((3, 4), Const(_classes), Const(_class_weight)),
        gradgrad=False,
    ),
    OpCase(
        "multilabel_margin",
        lambda t, x, y: _f(t).multilabel_margin_loss(x, y),
        ((3, 4), Const(_labels)),
        gradgrad=False,
    ),
    OpCase(
        "triplet_margin",
        lambda t, a, p, n: _f(t).triplet_margin_loss(a, p, n, margin=2.0),
        ((3, 4), (3, 4), (3, 4)),
    ),
    OpCase(
        "triplet_margin_swap",
        lambda t, a, p, n: _f(t).triplet_margin_loss(a, p, n, 3.0, p=1.5, swap=True),
        ((3, 4), (3, 4), (3, 4)),
    ),
    OpCase(
        "triplet_with_distance",
        lambda t, a, p, n: _f(t).triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda x, y: 1 - _f(t).cosine_similarity(x, y), margin=2.0
        ),
        ((3, 4), (3, 4), (3, 4)),
    ),
    OpCase("pairwise_distance", lambda t, a, b: _f(t).pairwise_distance(a, b), ((3, 4), (3, 4))),
    OpCase(
        "pairwise_distance_p1",
        lambda t, a, b: t.pairwise_distance(a, b, 1.0, 1e-6, True),
        ((3, 4), (4,)),
    ),
    OpCase("cosine_similarity", lambda t, a, b: _f(t).cosine_similarity(a, b), ((3, 4), (3, 4))),
    OpCase(
        "embedding_bag_mean",
        lambda t, w, i, o: _f(t).embedding_bag(i, w, o, padding_idx=2),
        ((4, 3), Const(_bag_indices), Const(_bag_offsets)),
        gradgrad=False,
    ),
    OpCase(
        "embedding_bag_weighted",
        lambda t, w, i, o, p: _f(t).embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
        ((4, 3), Const(_bag_indices), Const(_bag_offsets), (6,)),
        gradgrad=False,
    ),
    OpCase(
        "embedding_bag_max",
        lambda t, w, i, o: _f(t).embedding_bag(i, w, o, mode="max"),
        ((4, 3), Const(_bag_indices), Const(_bag_offsets)),
        distinct=True,
        gradgrad=False,
    ),
    OpCase(
        "cosine_similarity_broadcast",
        lambda t, a, b: t.cosine_similarity(a, b, dim=-1),
        ((2, 3, 4), (3, 4)),
    ),
]

__all__ = ["CASES"]
