"""Op cases: ``torch.fft`` (the c2c, r2c and c2r transforms with n/s, dim and norm, the
Hermitian ones, shifts)."""

from tests.ops.cases.spec import OpCase


def _cx(t, a):
    """A complex tensor from the trailing (real, imag) pairs of ``a``."""
    return t.view_as_complex(a)


def _resolved(x):
    """``x * 1``: torch's ``ifft``/``ihfft`` of a real input is a lazy conjugate view,
    which ``numpy()`` (the comparison) refuses; the product is a plain tensor."""
    return x * 1


CASES = [
    OpCase("fft.fft", lambda t, x: t.fft.fft(x), ((2, 5),)),
    OpCase("fft.fft_complex_n", lambda t, x: t.fft.fft(_cx(t, x), n=6, norm="ortho"), ((2, 4, 2),)),
    OpCase("fft.fft_trim", lambda t, x: t.fft.fft(x, n=3, dim=0, norm="forward"), ((4, 2),)),
    OpCase("fft.ifft", lambda t, x: t.fft.ifft(_cx(t, x)), ((5, 2),)),
    OpCase("fft.ifft_real", lambda t, x: _resolved(t.fft.ifft(x, norm="ortho")), ((4,),)),
    OpCase("fft.rfft", lambda t, x: t.fft.rfft(x, dim=0), ((5, 3),)),
    OpCase("fft.rfft_n", lambda t, x: t.fft.rfft(x, n=8, norm="forward"), ((6,),)),
    OpCase("fft.irfft", lambda t, x: t.fft.irfft(_cx(t, x)), ((2, 4, 2),)),
    OpCase("fft.irfft_odd", lambda t, x: t.fft.irfft(_cx(t, x), n=7, norm="ortho"), ((4, 2),)),
    OpCase("fft.hfft", lambda t, x: t.fft.hfft(_cx(t, x), norm="forward"), ((4, 2),)),
    OpCase("fft.ihfft", lambda t, x: _resolved(t.fft.ihfft(x)), ((6,),)),
    OpCase("fft.fft2", lambda t, x: t.fft.fft2(x), ((3, 4),)),
    OpCase("fft.ifft2_s", lambda t, x: t.fft.ifft2(_cx(t, x), s=(2, 5)), ((3, 3, 2),)),
    OpCase("fft.fftn_dims", lambda t, x: t.fft.fftn(x, dim=(2, 0), norm="ortho"), ((2, 3, 4),)),
    OpCase("fft.rfft2", lambda t, x: t.fft.rfft2(x), ((3, 4),)),
    OpCase("fft.rfftn_s", lambda t, x: t.fft.rfftn(x, s=(4, 5)), ((3, 4),)),
    OpCase("fft.irfft2", lambda t, x: t.fft.irfft2(_cx(t, x)), ((3, 3, 2),)),
    OpCase(
        "fft.irfftn_s", lambda t, x: t.fft.irfftn(_cx(t, x), s=(3, 5), norm="forward"), ((2, 3, 2),)
    ),
    OpCase("fft.hfft2", lambda t, x: t.fft.hfft2(_cx(t, x)), ((2, 3, 2),)),
    OpCase("fft.ihfft2", lambda t, x: t.fft.ihfft2(x, norm="ortho"), ((3, 4),)),
    OpCase("fft.ihfftn", lambda t, x: _resolved(t.fft.ihfftn(x, dim=(0,))), ((4, 2),)),
    OpCase("fft.fftshift", lambda t, x: t.fft.fftshift(x), ((3, 4),)),
    OpCase("fft.ifftshift", lambda t, x: t.fft.ifftshift(x, dim=-1), ((3, 5),)),
    OpCase(
        "stft",
        lambda t, x: t.stft(
            x, 8, hop_length=3, window=t.hann_window(8, dtype=x.dtype), return_complex=True
        ),
        ((20,),),
    ),
    OpCase(
        "stft_batch_win_length",
        lambda t, x: t.stft(
            x,
            6,
            win_length=4,
            window=t.hann_window(4, dtype=x.dtype),
            normalized=True,
            return_complex=False,
        ),
        ((2, 12),),
    ),
    OpCase(
        "istft",
        lambda t, x: t.istft(
            _cx(t, x), 6, hop_length=2, window=t.hann_window(6, dtype=x.dtype), length=11
        ),
        ((4, 5, 2),),
    ),
]
