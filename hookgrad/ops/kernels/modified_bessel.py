"""torch's modified Bessel functions (ATen's ``native/Math.h``, from Cephes), vectorised:
``i0``, ``i0e``, ``i1``, ``i1e`` (torch's ``calc_i0`` ... behind ``torch.i0`` and
``torch.special.i1``/``i1e``) and the ``special`` functions ``modified_bessel_i0``/``i1``/
``k0``/``k1`` and their scaled forms ``scaled_modified_bessel_k0``/``k1``.

Both families sum the same Chebyshev series of Cephes; they differ in how float32 is
treated (``calc_i1`` drops the tail of its tables for float, ``modified_bessel_i1`` keeps
them) and in the order of some products. As in ``hookgrad.ops.kernels.cephes`` each
function runs the scalar C++ on whole arrays in the element's type; every function takes a
float32 or float64 array of any shape and returns one of the same dtype and shape.

Example::

    i0(np.float64([0.0, 1.0]))  # [1.0, 1.2660658777520082]
"""

from __future__ import annotations

import numpy as np

from hookgrad.ops.kernels import libm
from hookgrad.ops.kernels.cephes_common import chbevl, elementwise, fmadd

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

# Chebyshev coefficients of exp(-x) I0(x) on [0, 8] and of exp(-x) sqrt(x) I0(x) on
# (8, inf) (in 32 / x - 2).
_I0E_A = (
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
)
_I0E_B = (
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)
# The same for exp(-x) I1(x) / x and exp(-x) sqrt(x) I1(x); float32 uses the last 17 and
# 7 coefficients only.
_I1E_A = (
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
_I1E_B = (
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)


def _i1e_coefficients(x: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if x.dtype == _F32:
        return _I1E_A[-17:], _I1E_B[-7:]
    return _I1E_A, _I1E_B


def _bessel_parts(
    x: np.ndarray, small: tuple[float, ...], large: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The two Chebyshev series of Cephes' ``i0``/``i1`` families at ``|x|``: on [0, 8]
    at ``|x|/2 - 2``, beyond at ``32/|x| - 2``; and where the first applies."""
    magnitude = np.abs(x)
    inside = magnitude <= 8
    series = np.empty_like(x)
    series[inside] = chbevl(magnitude[inside] / 2 - 2, small)
    series[~inside] = chbevl(32 / magnitude[~inside] - 2, large)
    return series, inside


def _i0(x: np.ndarray) -> np.ndarray:
    magnitude = np.abs(x)
    series, inside = _bessel_parts(x, _I0E_A, _I0E_B)
    scaled = libm.exp(magnitude) * series
    return np.where(inside, scaled, scaled / np.sqrt(magnitude))


def _i1(x: np.ndarray) -> np.ndarray:
    magnitude = np.abs(x)
    series, inside = _bessel_parts(x, _I1E_A, _I1E_B)
    growth = libm.exp(magnitude)
    out = np.where(inside, series * magnitude * growth, growth * series / np.sqrt(magnitude))
    return np.where(x < 0, -out, out)


@elementwise
def i0(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind of order 0 (``calc_i0``)."""
    return _i0(x)


@elementwise
def i0e(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) i0(x)`` (``calc_i0e``)."""
    series, inside = _bessel_parts(x, _I0E_A, _I0E_B)
    return np.where(inside, series, series / np.sqrt(np.abs(x)))


@elementwise
def i1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind of order 1 (``calc_i1``)."""
    magnitude = np.abs(x)
    series, inside = _bessel_parts(x, *_i1e_coefficients(x))
    growth = libm.exp(magnitude)
    out = np.where(inside, growth * magnitude * series, growth * series / np.sqrt(magnitude))
    return np.where(x < 0, -out, out)


@elementwise
def i1e(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) i1(x)`` (``calc_i1e``)."""
    magnitude = np.abs(x)
    series, inside = _bessel_parts(x, *_i1e_coefficients(x))
    out = np.where(inside, series * magnitude, series / np.sqrt(magnitude))
    return np.where(x < 0, -out, out)


_K0_A = (
    1.37446543561352307156e-16,
    4.25981614279661018399e-14,
    1.03496952576338420167e-11,
    1.90451637722020886025e-09,
    2.53479107902614945675e-07,
    2.28621210311945178607e-05,
    1.26461541144692592338e-03,
    3.59799365153615016266e-02,
    3.44289899924628486886e-01,
    -5.35327393233902768720e-01,
)
_K0_B = (
    5.30043377268626276149e-18,
    -1.64758043015242134646e-17,
    5.21039150503902756861e-17,
    -1.67823109680541210385e-16,
    5.51205597852431940784e-16,
    -1.84859337734377901440e-15,
    6.34007647740507060557e-15,
    -2.22751332699166985548e-14,
    8.03289077536357521100e-14,
    -2.98009692317273043925e-13,
    1.14034058820847496303e-12,
    -4.51459788337394416547e-12,
    1.85594911495471785253e-11,
    -7.95748924447710747776e-11,
    3.57739728140030116597e-10,
    -1.69753450938905987466e-09,
    8.57403401741422608519e-09,
    -4.66048989768794782956e-08,
    2.76681363944501510342e-07,
    -1.83175552271911948767e-06,
    1.39498137188764993662e-05,
    -1.28495495816278026384e-04,
    1.56988388573005337491e-03,
    -3.14481013119645005427e-02,
    2.44030308206595545468e00,
)
_K1_A = (
    -7.02386347938628759343e-18,
    -2.42744985051936593393e-15,
    -6.66690169419932900609e-13,
    -1.41148839263352776110e-10,
    -2.21338763073472585583e-08,
    -2.43340614156596823496e-06,
    -1.73028895751305206302e-04,
    -6.97572385963986435018e-03,
    -1.22611180822657148235e-01,
    -3.53155960776544875667e-01,
    1.52530022733894777053e00,
)
_K1_B = (
    -5.75674448366501715755e-18,
    1.79405087314755922667e-17,
    -5.68946255844285935196e-17,
    1.83809354436663880070e-16,
    -6.05704724837331885336e-16,
    2.03870316562433424052e-15,
    -7.01983709041831346144e-15,
    2.47715442448130437068e-14,
    -8.97670518232499435011e-14,
    3.34841966607842919884e-13,
    -1.28917396095102890680e-12,
    5.13963967348173025100e-12,
    -2.12996783842756842877e-11,
    9.21831518760500529508e-11,
    -4.19035475934189648750e-10,
    2.01504975519703286596e-09,
    -1.03457624656780970260e-08,
    5.74108412545004946722e-08,
    -3.50196060308781257119e-07,
    2.40648494783721712015e-06,
    -1.93619797416608296024e-05,
    1.95215518471351631108e-04,
    -2.85781685962277938680e-03,
    1.03923736576817238437e-01,
    2.72062619048444266945e00,
)


@elementwise
def modified_bessel_i0(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind of order 0 (torch's
    ``modified_bessel_i0_forward``; float32 with the full double tables)."""
    return _i0(x)


@elementwise
def modified_bessel_i1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind of order 1 (odd)."""
    return _i1(x)


def _k_parts(
    x: np.ndarray, small: tuple, large: tuple
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Chebyshev series of ``k0``/``k1``: in ``x^2 - 2`` on (0, 2], in ``8/x - 2``
    beyond; and where the first applies."""
    dtype = x.dtype.type
    inside = x <= 2
    near = np.empty_like(x)
    xs = x[inside]
    near[inside] = chbevl(fmadd(xs, xs, -dtype(2.0)), small)
    far = np.empty_like(x)
    far[~inside] = chbevl(dtype(8.0) / x[~inside] - dtype(2.0), large)
    return near, far, inside


def _k_edges(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    out = np.where(x < 0, np.nan, out)
    return np.where(x == 0, np.inf, out).astype(x.dtype)


@elementwise
def modified_bessel_k0(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the second kind of order 0: inf at 0, NaN below.
    On (0, 2] C's ``log(0.5 * x)`` is a double (``0.5`` is a double literal)."""
    near, far, inside = _k_parts(x, _K0_A, _K0_B)
    out = np.empty_like(x)
    xs = x[inside]
    log_half = libm.log(0.5 * xs.astype(_F64))
    wide = fmadd(-log_half, _i0(xs).astype(_F64), near[inside].astype(_F64))
    out[inside] = wide.astype(x.dtype)
    xf = x[~inside]
    out[~inside] = libm.exp(-xf) * far[~inside] / np.sqrt(xf)
    return _k_edges(x, out)


@elementwise
def modified_bessel_k1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the second kind of order 1: inf at 0, NaN below."""
    dtype = x.dtype.type
    near, far, inside = _k_parts(x, _K1_A, _K1_B)
    out = np.empty_like(x)
    xs = x[inside]
    out[inside] = fmadd(libm.log(dtype(0.5) * xs), _i1(xs), near[inside] / xs)
    xf = x[~inside]
    out[~inside] = libm.exp(-xf) * far[~inside] / np.sqrt(xf)
    return _k_edges(x, out)


@elementwise
def scaled_modified_bessel_k0(x: np.ndarray) -> np.ndarray:
    """``exp(x) k0(x)``: inf at 0, NaN below 0."""
    dtype = x.dtype.type
    near, far, inside = _k_parts(x, _K0_A, _K0_B)
    out = np.empty_like(x)
    xs = x[inside]
    value = fmadd(-libm.log(dtype(0.5) * xs), _i0(xs), near[inside])
    out[inside] = value * libm.exp(xs)
    out[~inside] = far[~inside] / np.sqrt(x[~inside])
    return _k_edges(x, out)


@elementwise
def scaled_modified_bessel_k1(x: np.ndarray) -> np.ndarray:
    """``exp(x) k1(x)``: inf at 0, NaN below 0."""
    dtype = x.dtype.type
    near, far, inside = _k_parts(x, _K1_A, _K1_B)
    out = np.empty_like(x)
    xs = x[inside]
    value = fmadd(libm.log(dtype(0.5) * xs), _i1(xs), near[inside] / xs)
    out[inside] = value * libm.exp(xs)
    out[~inside] = far[~inside] / np.sqrt(x[~inside])
    return _k_edges(x, out)
