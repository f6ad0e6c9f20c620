/* signal.rfft kernel: KissFFT's fixed-point arithmetic for both widths in int64, each stored value wrapped to
 * `bits` as KissFFT's int16_t / int32_t stores wrap. sround(x) = (x + 2^(bits-2)) >> (bits-1); C_FIXDIV
 * multiplies by SAMP_MAX / radix. The recursion of kf_work is unrolled: gather by the permutation, then the
 * stages innermost first, each butterfly on its own block. */
#include "micro_relay/signal_rfft.h"

static int32_t wrap(int64_t x, int32_t bits)
{
    const uint64_t size = (uint64_t)1 << bits;
    const uint64_t low = (uint64_t)x & (size - 1u);
    return (int32_t)(low >= (size >> 1) ? (int64_t)low - (int64_t)size : (int64_t)low);
}

static int32_t sround(int64_t x, int32_t bits)
{
    return wrap((x + ((int64_t)1 << (bits - 2))) >> (bits - 1), bits);
}

static void fixdiv(int32_t *c, int32_t radix, int32_t bits)
{
    const int64_t scale = (((int64_t)1 << (bits - 1)) - 1) / radix;
    c[0] = sround(c[0] * scale, bits);
    c[1] = sround(c[1] * scale, bits);
}

/* m = a * w */
static void cmul(int32_t *m, const int32_t *a, const int32_t *w, int32_t bits)
{
    const int32_t r = sround((int64_t)a[0] * w[0] - (int64_t)a[1] * w[1], bits);
    m[1] = sround((int64_t)a[0] * w[1] + (int64_t)a[1] * w[0], bits);
    m[0] = r;
}

static void bfly2(int32_t *f0, int32_t *f1, const int32_t *w, int32_t bits)
{
    int32_t t[2];
    fixdiv(f0, 2, bits);
    fixdiv(f1, 2, bits);
    cmul(t, f1, w, bits);
    f1[0] = wrap((int64_t)f0[0] - t[0], bits);
    f1[1] = wrap((int64_t)f0[1] - t[1], bits);
    f0[0] = wrap((int64_t)f0[0] + t[0], bits);
    f0[1] = wrap((int64_t)f0[1] + t[1], bits);
}

/* the forward radix-4 butterfly of Fout[0], Fout[m], Fout[2m], Fout[3m] (f[0..3]), twiddles w[1..3] */
static void bfly4(int32_t *f[4], const int32_t *w[4], int32_t bits)
{
    int32_t s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];
    int32_t q;
    for (q = 0; q < 4; ++q) {
        fixdiv(f[q], 4, bits);
    }
    cmul(s0, f[1], w[1], bits);
    cmul(s1, f[2], w[2], bits);
    cmul(s2, f[3], w[3], bits);
    for (q = 0; q < 2; ++q) {
        s5[q] = wrap((int64_t)f[0][q] - s1[q], bits);
        f[0][q] = wrap((int64_t)f[0][q] + s1[q], bits);
        s3[q] = wrap((int64_t)s0[q] + s2[q], bits);
        s4[q] = wrap((int64_t)s0[q] - s2[q], bits);
        f[2][q] = wrap((int64_t)f[0][q] - s3[q], bits);
        f[0][q] = wrap((int64_t)f[0][q] + s3[q], bits);
    }
    f[1][0] = wrap((int64_t)s5[0] + s4[1], bits);
    f[1][1] = wrap((int64_t)s5[1] - s4[0], bits);
    f[3][0] = wrap((int64_t)s5[0] - s4[1], bits);
    f[3][1] = wrap((int64_t)s5[1] + s4[0], bits);
}

static void stages(const mr_signal_rfft_params *p, int32_t *buf)
{
    int32_t s, base, u, q;
    for (s = 0; s < p->stages; ++s) {
        const int32_t radix = p->radix[s], m = p->m[s];
        const int32_t span = radix * m, fstride = p->n / span;
        for (base = 0; base < p->n; base += span) {
            for (u = 0; u < m; ++u) {
                int32_t *f[4];
                const int32_t *w[4];
                for (q = 0; q < radix; ++q) {
                    f[q] = buf + 2 * (base + u + q * m);
                    w[q] = p->twiddles + 2 * (q * u * fstride);
                }
                if (radix == 2) {
                    bfly2(f[0], f[1], w[1], p->bits);
                } else {
                    bfly4(f, w, p->bits);
                }
            }
        }
    }
}

/* kiss_fftr's split of the half-length FFT (buf) into bins 0..n of one row; o16 or o32 is the row's output */
static void split(const mr_signal_rfft_params *p, const int32_t *buf, int16_t *o16, int32_t *o32)
{
    const int32_t n = p->n, bits = p->bits;
    int32_t k, q;
    int32_t dc[2], v[4 * 2];
    int32_t idx[4];
    dc[0] = buf[0];
    dc[1] = buf[1];
    fixdiv(dc, 2, bits);
    v[0] = wrap((int64_t)dc[0] + dc[1], bits);
    v[1] = 0;
    v[2] = wrap((int64_t)dc[0] - dc[1], bits);
    v[3] = 0;
    idx[0] = 0;
    idx[1] = 1;
    idx[2] = 2 * n;
    idx[3] = 2 * n + 1;
    for (k = 0; k <= n / 2; ++k) {
        if (k > 0) {
            int32_t fpk[2], fpnk[2], f1k[2], f2k[2], tw[2];
            fpk[0] = buf[2 * k];
            fpk[1] = buf[2 * k + 1];
            fpnk[0] = buf[2 * (n - k)];
            fpnk[1] = wrap(-(int64_t)buf[2 * (n - k) + 1], bits);
            fixdiv(fpk, 2, bits);
            fixdiv(fpnk, 2, bits);
            for (q = 0; q < 2; ++q) {
                f1k[q] = wrap((int64_t)fpk[q] + fpnk[q], bits);
                f2k[q] = wrap((int64_t)fpk[q] - fpnk[q], bits);
            }
            cmul(tw, f2k, p->super_twiddles + 2 * (k - 1), bits);
            /* HALF_OF: the sum in int for int16 values, in (wrapping) int32 for int32 ones */
            v[0] = wrap((bits == 32 ? wrap((int64_t)f1k[0] + tw[0], 32) : (int64_t)f1k[0] + tw[0]) >> 1, bits);
            v[1] = wrap((bits == 32 ? wrap((int64_t)f1k[1] + tw[1], 32) : (int64_t)f1k[1] + tw[1]) >> 1, bits);
            v[2] = wrap((bits == 32 ? wrap((int64_t)f1k[0] - tw[0], 32) : (int64_t)f1k[0] - tw[0]) >> 1, bits);
            v[3] = wrap((bits == 32 ? wrap((int64_t)tw[1] - f1k[1], 32) : (int64_t)tw[1] - f1k[1]) >> 1, bits);
            idx[0] = 2 * k;
            idx[1] = 2 * k + 1;
            idx[2] = 2 * (n - k);
            idx[3] = 2 * (n - k) + 1;
        }
        for (q = 0; q < 4; ++q) { /* bin k first, then bin n - k: at k = n / 2 the second write stays */
            if (o16 != NULL) {
                o16[idx[q]] = (int16_t)v[q];
            } else {
                o32[idx[q]] = v[q];
            }
        }
    }
}

static int32_t sample(const int16_t *i16, const int32_t *i32, int32_t j)
{
    return i16 != NULL ? (int32_t)i16[j] : i32[j];
}

static void run(const mr_signal_rfft_params *p, const int16_t *i16, const int32_t *i32, int16_t *o16, int32_t *o32,
                int32_t *buf)
{
    int32_t frame, pos;
    for (frame = 0; frame < p->frames; ++frame) {
        const int32_t in_at = frame * p->input_length, out_at = frame * 2 * (p->n + 1);
        for (pos = 0; pos < p->n; ++pos) {
            const int32_t j = 2 * p->perm[pos];
            buf[2 * pos] = j < p->input_length ? sample(i16, i32, in_at + j) : 0;
            buf[2 * pos + 1] = j + 1 < p->input_length ? sample(i16, i32, in_at + j + 1) : 0;
        }
        stages(p, buf);
        split(p, buf, o16 != NULL ? o16 + out_at : NULL, o32 != NULL ? o32 + out_at : NULL);
    }
}

int mr_signal_rfft_s16(const mr_signal_rfft_params *p, const int16_t *in, int16_t *out, int32_t *scratch)
{
    run(p, in, NULL, out, NULL, scratch);
    return MR_OK;
}

int mr_signal_rfft_s32(const mr_signal_rfft_params *p, const int32_t *in, int32_t *out, int32_t *scratch)
{
    run(p, NULL, in, NULL, out, scratch);
    return MR_OK;
}
