"""KissFFT's fixed-point real FFT as TFLite Micro's SignalRfft runs it (kiss_fftr over a kiss_fft of half the
length, at the kissfft commit TFLite Micro pins), for power-of-two lengths: radix-4 stages, then one radix-2.

Fixed point with B = 16 or 32 bits (Q15 / Q31): every product is rounded as sround(x) = (x + 2^(B-2)) >> (B-1)
and every stored value wraps to B bits (KissFFT keeps them in int16_t / int32_t); each butterfly first divides
its inputs by its radix, as x * (SAMP_MAX / radix) rounded (C_FIXDIV), so a frame cannot overflow.
Twiddles are floor(0.5 + SAMP_MAX * cos(phase)) from double phases: the tables here are what KissFFT's alloc
computes, and the C kernel reads them (with the input permutation and stage list) from the compiler.

The recursion of kf_work is unrolled: the input is gathered in the order its leaves copy it (`permutation`),
then the stages run innermost first (`stages`), each butterfly on its own block, as the recursion computes them.
"""

from __future__ import annotations

import math

import numpy as np

PI_ALLOC = 3.141592653589793238462643383279502884197169399375105820974944  # the literals KissFFT's allocs use
PI_REAL = 3.14159265358979323846264338327


def factors(n: int) -> list[tuple[int, int]]:
    """kf_factor: (radix, remaining length) pairs, powers of 4 first, then 2, then odd primes."""
    pairs, p, root = [], 4, math.floor(math.sqrt(n))
    while True:
        while n % p:
            p = 2 if p == 4 else 3 if p == 2 else p + 2
            if p > root:
                p = n
        n //= p
        pairs.append((p, n))
        if n <= 1:
            return pairs


def permutation(n: int) -> list[int]:
    """The input index each position of the work buffer holds before the first butterfly (kf_work's leaves)."""
    pairs, out = factors(n), [0] * n

    def work(fout: int, f: int, fstride: int, level: int):
        p, m = pairs[level]
        for j in range(p):
            if m == 1:
                out[fout + j] = f + j * fstride
            else:
                work(fout + j * m, f + j * fstride, fstride * p, level + 1)

    work(0, 0, 1, 0)
    return out


def stages(n: int) -> list[tuple[int, int]]:
    """(radix, m) of each butterfly stage in the order they run: innermost first."""
    return list(reversed(factors(n)))


def _table(phases, bits: int) -> np.ndarray:
    top = (1 << (bits - 1)) - 1
    return np.array([[math.floor(0.5 + top * math.cos(ph)), math.floor(0.5 + top * math.sin(ph))] for ph in phases],
                    dtype=np.int64)


def _sign(inverse: bool) -> int:
    """An inverse alloc negates every phase (kiss_fft_alloc and kiss_fftr_alloc: `phase *= -1`)."""
    return -1 if inverse else 1


def twiddles(n: int, bits: int, inverse: bool = False) -> np.ndarray:
    """[n, 2] (cos, sin) of -2 pi i / n (+2 pi i / n for the inverse)."""
    return _table([_sign(inverse) * (-2 * PI_ALLOC * i / n) for i in range(n)], bits)


def super_twiddles(n: int, bits: int, inverse: bool = False) -> np.ndarray:
    """[n / 2, 2]: kiss_fftr's twiddles that split the half-length FFT into the real FFT's bins (or, inverse,
    merge the bins into one half-length FFT)."""
    return _table([_sign(inverse) * (-PI_REAL * ((i + 1) / n + 0.5)) for i in range(n // 2)], bits)


def float_table(phases) -> np.ndarray:
    return np.array([[math.cos(ph), math.sin(ph)] for ph in phases], dtype=np.float64).astype(np.float32)


def float_twiddles(n: int, inverse: bool = False) -> np.ndarray:
    """The float build's tables: (float) cos(phase) of the same double phases."""
    return float_table([_sign(inverse) * (-2 * PI_ALLOC * i / n) for i in range(n)])


def float_super_twiddles(n: int, inverse: bool = False) -> np.ndarray:
    return float_table([_sign(inverse) * (-PI_REAL * ((i + 1) / n + 0.5)) for i in range(n // 2)])


class _Float:
    """KissFFT's float build: no scaling (C_FIXDIV is a no-op), float32 products and sums, HALF_OF = x * 0.5f."""

    @staticmethod
    def wrap(x):
        return np.float32(x) if np.ndim(x) == 0 else x.astype(np.float32)

    def half(self, x):
        return self.wrap(x) * np.float32(0.5)

    @staticmethod
    def fixdiv(c, k):
        return c

    def mul(self, a, b):
        return a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]

    def add(self, a, b):
        return a[0] + b[0], a[1] + b[1]

    def sub(self, a, b):
        return a[0] - b[0], a[1] - b[1]


class _Fixed:
    def __init__(self, bits: int):
        self.bits, self.round_bit = bits, 1 << (bits - 2)
        self.top = (1 << (bits - 1)) - 1

    def wrap(self, x):
        m = 1 << self.bits
        return ((x + (m >> 1)) % m) - (m >> 1)

    def half(self, x):
        """HALF_OF of a sum: in int for int16 values (no overflow), in int32 (wrapping) for int32 ones."""
        return self.wrap((self.wrap(x) if self.bits == 32 else x) >> 1)

    def sround(self, x):
        return self.wrap((x + self.round_bit) >> (self.bits - 1))

    def fixdiv(self, c, k):
        r, i = c
        return self.sround(r * (self.top // k)), self.sround(i * (self.top // k))

    def mul(self, a, b):
        return (self.sround(a[0] * b[0] - a[1] * b[1]), self.sround(a[0] * b[1] + a[1] * b[0]))

    def add(self, a, b):
        return self.wrap(a[0] + b[0]), self.wrap(a[1] + b[1])

    def sub(self, a, b):
        return self.wrap(a[0] - b[0]), self.wrap(a[1] - b[1])


def _butterflies(fx, re, im, n: int, tw: np.ndarray, inverse: bool = False):
    """The stages over frames [frames, n] (int64: even Q31 products and their sums fit). The inverse radix-4
    butterfly swaps its m and 3m outputs' rotation (kf_bfly4's `st->inverse` branch)."""
    for p, m in stages(n):
        fstride = n // (p * m)
        shape = (re.shape[0], fstride, p, m)
        r, i = re.reshape(shape).copy(), im.reshape(shape).copy()
        u = np.arange(m)
        legs = [fx.fixdiv((r[:, :, q, :], i[:, :, q, :]), p) for q in range(p)]
        w = [(tw[(q * u * fstride) % n, 0], tw[(q * u * fstride) % n, 1]) for q in range(p)]
        if p == 2:
            t = fx.mul(legs[1], w[1])
            out = [fx.add(legs[0], t), fx.sub(legs[0], t)]
        else:  # p == 4
            s0, s1, s2 = fx.mul(legs[1], w[1]), fx.mul(legs[2], w[2]), fx.mul(legs[3], w[3])
            s5 = fx.sub(legs[0], s1)
            f0 = fx.add(legs[0], s1)
            s3, s4 = fx.add(s0, s2), fx.sub(s0, s2)
            f2 = fx.sub(f0, s3)
            f0 = fx.add(f0, s3)
            f1 = (fx.wrap(s5[0] + s4[1]), fx.wrap(s5[1] - s4[0]))
            f3 = (fx.wrap(s5[0] - s4[1]), fx.wrap(s5[1] + s4[0]))
            out = [f0, f3, f2, f1] if inverse else [f0, f1, f2, f3]
        for q in range(p):
            r[:, :, q, :], i[:, :, q, :] = out[q]
        re, im = r.reshape(-1, n), i.reshape(-1, n)
    return re, im


def rfft_kiss(frames: np.ndarray, fft_length: int, bits: int) -> np.ndarray:
    """kiss_fftr of each zero-padded row of `frames` ([count, input_length]): [count, fft_length + 2]
    interleaved (real, imag) bins 0..fft_length / 2, as int64 values of the B-bit results (bits 16 or 32), or
    float32 for bits 0 (the float build)."""
    fx, n = (_Float() if bits == 0 else _Fixed(bits)), fft_length // 2
    dtype = np.float32 if bits == 0 else np.int64
    padded = np.zeros((frames.shape[0], fft_length), dtype=dtype)
    padded[:, :frames.shape[1]] = frames
    order = np.array(permutation(n))
    re, im = padded[:, 0::2][:, order], padded[:, 1::2][:, order]
    re, im = _butterflies(fx, re, im, n, float_twiddles(n) if bits == 0 else twiddles(n, bits))
    out = np.zeros((frames.shape[0], n + 1, 2), dtype=dtype)
    tdc = fx.fixdiv((re[:, 0], im[:, 0]), 2)
    out[:, 0, 0], out[:, n, 0] = fx.wrap(tdc[0] + tdc[1]), fx.wrap(tdc[0] - tdc[1])
    k = np.arange(1, n // 2 + 1)
    if k.size:
        fpk = fx.fixdiv((re[:, k], im[:, k]), 2)
        fpnk = fx.fixdiv((re[:, n - k], fx.wrap(-im[:, n - k])), 2)
        f1k, f2k = fx.add(fpk, fpnk), fx.sub(fpk, fpnk)
        sup = float_super_twiddles(n) if bits == 0 else super_twiddles(n, bits)
        tw = fx.mul(f2k, (sup[k - 1, 0], sup[k - 1, 1]))
        out[:, k, 0], out[:, k, 1] = fx.half(f1k[0] + tw[0]), fx.half(f1k[1] + tw[1])
        out[:, n - k, 0], out[:, n - k, 1] = fx.half(f1k[0] - tw[0]), fx.half(tw[1] - f1k[1])
    return out.reshape(frames.shape[0], -1)


def irfft_kiss(bins: np.ndarray, fft_length: int, bits: int) -> np.ndarray:
    """kiss_fftri of each row of `bins` ([count, fft_length + 2] interleaved (real, imag) bins 0..n): [count,
    fft_length] samples. The bins are merged into one half-length spectrum (each halved first, C_FIXDIV), its
    inverse FFT is the interleaved (even, odd) samples. Integers as int64 values of the B-bit results, or
    float32 for bits 0."""
    fx, n = (_Float() if bits == 0 else _Fixed(bits)), fft_length // 2
    dtype = np.float32 if bits == 0 else np.int64
    f = bins.astype(dtype).reshape(bins.shape[0], n + 1, 2)
    re, im = np.zeros((bins.shape[0], n), dtype), np.zeros((bins.shape[0], n), dtype)
    t0 = fx.fixdiv((fx.wrap(f[:, 0, 0] + f[:, n, 0]), fx.wrap(f[:, 0, 0] - f[:, n, 0])), 2)
    re[:, 0], im[:, 0] = t0
    k = np.arange(1, n // 2 + 1)
    if k.size:
        fk = fx.fixdiv((f[:, k, 0], f[:, k, 1]), 2)
        fnkc = fx.fixdiv((f[:, n - k, 0], fx.wrap(-f[:, n - k, 1])), 2)
        fek, tmp = fx.add(fk, fnkc), fx.sub(fk, fnkc)
        sup = float_super_twiddles(n, True) if bits == 0 else super_twiddles(n, bits, True)
        fok = fx.mul(tmp, (sup[k - 1, 0], sup[k - 1, 1]))
        re[:, k], im[:, k] = fx.add(fek, fok)
        low = fx.sub(fek, fok)
        re[:, n - k], im[:, n - k] = low[0], fx.wrap(-low[1])
    order = np.array(permutation(n))
    re, im = re[:, order], im[:, order]
    re, im = _butterflies(fx, re, im, n, float_twiddles(n, True) if bits == 0 else twiddles(n, bits, True), True)
    return np.stack([re, im], axis=-1).reshape(bins.shape[0], fft_length)


def kernel_tables(n: int, bits: int, inverse: bool = False) -> dict:
    """What the C kernel reads for a real FFT of fft_length n (forward or inverse): the half-length FFT's
    stages (radix, m), its input permutation and the twiddles in the build's type (bits 0: float)."""
    half = n // 2
    steps = stages(half)
    return {"radix": [p for p, _ in steps], "m": [m for _, m in steps], "perm": permutation(half),
            "twiddles": (float_twiddles(half, inverse) if bits == 0 else twiddles(half, bits, inverse)).ravel().tolist(),
            "super_twiddles": (float_super_twiddles(half, inverse) if bits == 0 else
                               super_twiddles(half, bits, inverse)).ravel().tolist()}
