/* signal.rfft kernel: KissFFT's arithmetic once per width, the float build at the end. Q15 values are int16
 * computed in int32 (no sum or product of them overflows int32: the twiddles stay within +-32767); Q31 values
 * are int32 computed in int64. Every stored value wraps to its width as KissFFT's int16_t / int32_t stores do.
 * sround(x) = (x + 2^(B-2)) >> (B-1); C_FIXDIV multiplies by SAMP_MAX / radix first. The recursion of kf_work is
 * unrolled: gather by the permutation, then the stages innermost first, each butterfly on its own block. */
#include "micro_relay/signal_rfft.h"

/* -- Q15 ----------------------------------------------------------------------------------------------- */

/* int32_t is two's complement (C99 7.18.1.1): the low 16 bits, sign-extended */
static int32_t w16(int32_t x)
{
    return ((x & 0xFFFF) ^ 0x8000) - 0x8000;
}

static int32_t sround16(int32_t x)
{
    return w16((x + (1 << 14)) >> 15);
}

static void fixdiv16(int32_t *c, int32_t radix)
{
    const int32_t scale = 32767 / radix;
    c[0] = sround16(c[0] * scale);
    c[1] = sround16(c[1] * scale);
}

static void cmul16(int32_t *m, const int32_t *a, const int32_t *w)
{
    const int32_t r = sround16(a[0] * w[0] - a[1] * w[1]);
    m[1] = sround16(a[0] * w[1] + a[1] * w[0]);
    m[0] = r;
}

/* -- Q31 ----------------------------------------------------------------------------------------------- */

static int32_t w32(int64_t x)
{
    const uint32_t low = (uint32_t)((uint64_t)x & 0xFFFFFFFFu);
    return low >= 0x80000000u ? (int32_t)(low - 0x80000000u) - INT32_MAX - 1 : (int32_t)low;
}

static int32_t sround32(int64_t x)
{
    return w32((x + ((int64_t)1 << 30)) >> 31);
}

static void fixdiv32(int32_t *c, int32_t radix)
{
    const int64_t scale = INT32_MAX / radix;
    c[0] = sround32(c[0] * scale);
    c[1] = sround32(c[1] * scale);
}

static void cmul32(int32_t *m, const int32_t *a, const int32_t *w)
{
    const int32_t r = sround32((int64_t)a[0] * w[0] - (int64_t)a[1] * w[1]);
    m[1] = sround32((int64_t)a[0] * w[1] + (int64_t)a[1] * w[0]);
    m[0] = r;
}

/* -- both ---------------------------------------------------------------------------------------------- */

/* a + b and a - b of two values of the width, wrapped to it */
static int32_t add(int32_t a, int32_t b, int32_t q31)
{
    return q31 ? w32((int64_t)a + b) : w16(a + b);
}

static int32_t sub(int32_t a, int32_t b, int32_t q31)
{
    return q31 ? w32((int64_t)a - b) : w16(a - b);
}

static void fixdiv(int32_t *c, int32_t radix, int32_t q31)
{
    if (q31) {
        fixdiv32(c, radix);
    } else {
        fixdiv16(c, radix);
    }
}

static void cmul(int32_t *m, const int32_t *a, const int32_t *w, int32_t q31)
{
    if (q31) {
        cmul32(m, a, w);
    } else {
        cmul16(m, a, w);
    }
}

static void bfly2(int32_t *f0, int32_t *f1, const int32_t *w, int32_t q31)
{
    int32_t t[2];
    fixdiv(f0, 2, q31);
    fixdiv(f1, 2, q31);
    cmul(t, f1, w, q31);
    f1[0] = sub(f0[0], t[0], q31);
    f1[1] = sub(f0[1], t[1], q31);
    f0[0] = add(f0[0], t[0], q31);
    f0[1] = add(f0[1], t[1], q31);
}

/* the radix-4 butterfly of Fout[0], Fout[m], Fout[2m], Fout[3m] (f[0..3]), twiddles w[1..3]; the inverse one
 * rotates its m and 3m outputs the other way */
static void bfly4(int32_t *f[4], const int32_t *w[4], int32_t q31, int32_t inverse)
{
    int32_t s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];
    int32_t q;
    for (q = 0; q < 4; ++q) {
        fixdiv(f[q], 4, q31);
    }
    cmul(s0, f[1], w[1], q31);
    cmul(s1, f[2], w[2], q31);
    cmul(s2, f[3], w[3], q31);
    for (q = 0; q < 2; ++q) {
        s5[q] = sub(f[0][q], s1[q], q31);
        f[0][q] = add(f[0][q], s1[q], q31);
        s3[q] = add(s0[q], s2[q], q31);
        s4[q] = sub(s0[q], s2[q], q31);
        f[2][q] = sub(f[0][q], s3[q], q31);
        f[0][q] = add(f[0][q], s3[q], q31);
    }
    f[inverse ? 3 : 1][0] = add(s5[0], s4[1], q31);
    f[inverse ? 3 : 1][1] = sub(s5[1], s4[0], q31);
    f[inverse ? 1 : 3][0] = sub(s5[0], s4[1], q31);
    f[inverse ? 1 : 3][1] = add(s5[1], s4[0], q31);
}

static void stages(const mr_signal_rfft_params *p, int32_t *buf, int32_t q31, int32_t inverse)
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
                    bfly2(f[0], f[1], w[1], q31);
                } else {
                    bfly4(f, w, q31, inverse);
                }
            }
        }
    }
}

/* HALF_OF(a + b) and HALF_OF(a - b): the sum in int for Q15 values (it fits), in wrapping int32 for Q31 ones */
static int32_t half_sum(int32_t a, int32_t b, int32_t q31)
{
    return q31 ? w32((int64_t)a + b) >> 1 : w16((a + b) >> 1);
}

static int32_t half_diff(int32_t a, int32_t b, int32_t q31)
{
    return q31 ? w32((int64_t)a - b) >> 1 : w16((a - b) >> 1);
}

static void put(int16_t *o16, int32_t *o32, int32_t at, int32_t v)
{
    if (o16 != NULL) {
        o16[at] = (int16_t)v; /* v is already a Q15 value */
    } else {
        o32[at] = v;
    }
}

/* kiss_fftr's split of the half-length FFT (buf) into bins 0..n of one row, in order k, then n - k (at
 * k = n / 2 the second write stays) */
static void split(const mr_signal_rfft_params *p, const int32_t *buf, int16_t *o16, int32_t *o32, int32_t q31)
{
    const int32_t n = p->n;
    int32_t k, q;
    int32_t dc[2];
    dc[0] = buf[0];
    dc[1] = buf[1];
    fixdiv(dc, 2, q31);
    put(o16, o32, 0, add(dc[0], dc[1], q31));
    put(o16, o32, 1, 0);
    put(o16, o32, 2 * n, sub(dc[0], dc[1], q31));
    put(o16, o32, 2 * n + 1, 0);
    for (k = 1; k <= n / 2; ++k) {
        int32_t fpk[2], fpnk[2], f1k[2], f2k[2], tw[2];
        fpk[0] = buf[2 * k];
        fpk[1] = buf[2 * k + 1];
        fpnk[0] = buf[2 * (n - k)];
        fpnk[1] = sub(0, buf[2 * (n - k) + 1], q31);
        fixdiv(fpk, 2, q31);
        fixdiv(fpnk, 2, q31);
        for (q = 0; q < 2; ++q) {
            f1k[q] = add(fpk[q], fpnk[q], q31);
            f2k[q] = sub(fpk[q], fpnk[q], q31);
        }
        cmul(tw, f2k, p->super_twiddles + 2 * (k - 1), q31);
        put(o16, o32, 2 * k, half_sum(f1k[0], tw[0], q31));
        put(o16, o32, 2 * k + 1, half_sum(f1k[1], tw[1], q31));
        put(o16, o32, 2 * (n - k), half_diff(f1k[0], tw[0], q31));
        put(o16, o32, 2 * (n - k) + 1, half_diff(tw[1], f1k[1], q31));
    }
}

/* -- float: KissFFT's float build (no scaling, HALF_OF = x * 0.5f). Each product is its own statement, so
 * no compiler contracts it with the following sum into a fused multiply-add (TFLite Micro's build rounds both). */

static void cmulf(float *m, const float *a, const float *w)
{
    const float rr = a[0] * w[0], ii = a[1] * w[1], ri = a[0] * w[1], ir = a[1] * w[0];
    m[0] = rr - ii;
    m[1] = ri + ir;
}

static void bfly2f(float *f0, float *f1, const float *w)
{
    float t[2];
    cmulf(t, f1, w);
    f1[0] = f0[0] - t[0];
    f1[1] = f0[1] - t[1];
    f0[0] += t[0];
    f0[1] += t[1];
}

static void bfly4f(float *f[4], const float *w[4], int32_t inverse)
{
    float s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];
    int32_t q;
    cmulf(s0, f[1], w[1]);
    cmulf(s1, f[2], w[2]);
    cmulf(s2, f[3], w[3]);
    for (q = 0; q < 2; ++q) {
        s5[q] = f[0][q] - s1[q];
        f[0][q] += s1[q];
        s3[q] = s0[q] + s2[q];
        s4[q] = s0[q] - s2[q];
        f[2][q] = f[0][q] - s3[q];
        f[0][q] += s3[q];
    }
    f[inverse ? 3 : 1][0] = s5[0] + s4[1];
    f[inverse ? 3 : 1][1] = s5[1] - s4[0];
    f[inverse ? 1 : 3][0] = s5[0] - s4[1];
    f[inverse ? 1 : 3][1] = s5[1] + s4[0];
}

static void stagesf(const mr_signal_rfft_params *p, float *buf, int32_t inverse)
{
    int32_t s, base, u, q;
    for (s = 0; s < p->stages; ++s) {
        const int32_t radix = p->radix[s], m = p->m[s];
        const int32_t span = radix * m, fstride = p->n / span;
        for (base = 0; base < p->n; base += span) {
            for (u = 0; u < m; ++u) {
                float *f[4];
                const float *w[4];
                for (q = 0; q < radix; ++q) {
                    f[q] = buf + 2 * (base + u + q * m);
                    w[q] = p->twiddles_f + 2 * (q * u * fstride);
                }
                if (radix == 2) {
                    bfly2f(f[0], f[1], w[1]);
                } else {
                    bfly4f(f, w, inverse);
                }
            }
        }
    }
}

static void splitf(const mr_signal_rfft_params *p, const float *buf, float *out)
{
    const int32_t n = p->n;
    int32_t k;
    out[0] = buf[0] + buf[1];
    out[1] = 0.0f;
    out[2 * n] = buf[0] - buf[1];
    out[2 * n + 1] = 0.0f;
    for (k = 1; k <= n / 2; ++k) {
        float f1k[2], f2k[2], tw[2];
        const float fpk[2] = {buf[2 * k], buf[2 * k + 1]};
        const float fpnk[2] = {buf[2 * (n - k)], -buf[2 * (n - k) + 1]};
        f1k[0] = fpk[0] + fpnk[0];
        f1k[1] = fpk[1] + fpnk[1];
        f2k[0] = fpk[0] - fpnk[0];
        f2k[1] = fpk[1] - fpnk[1];
        cmulf(tw, f2k, p->super_twiddles_f + 2 * (k - 1));
        out[2 * k] = (f1k[0] + tw[0]) * 0.5f;
        out[2 * k + 1] = (f1k[1] + tw[1]) * 0.5f;
        out[2 * (n - k)] = (f1k[0] - tw[0]) * 0.5f;
        out[2 * (n - k) + 1] = (tw[1] - f1k[1]) * 0.5f;
    }
}

int mr_signal_rfft_f32(const mr_signal_rfft_params *p, const float *in, float *out, float *scratch)
{
    int32_t frame, pos;
    for (frame = 0; frame < p->frames; ++frame) {
        const float *x = in + frame * p->input_length;
        float *y = out + frame * 2 * (p->n + 1);
        for (pos = 0; pos < p->n; ++pos) {
            const int32_t j = 2 * p->perm[pos];
            scratch[2 * pos] = j < p->input_length ? x[j] : 0.0f;
            scratch[2 * pos + 1] = j + 1 < p->input_length ? x[j + 1] : 0.0f;
        }
        stagesf(p, scratch, 0);
        splitf(p, scratch, y);
    }
    return MR_OK;
}

static int32_t sample(const int16_t *i16, const int32_t *i32, int32_t j)
{
    return i16 != NULL ? (int32_t)i16[j] : i32[j];
}

static void run(const mr_signal_rfft_params *p, const int16_t *i16, const int32_t *i32, int16_t *o16, int32_t *o32,
                int32_t *buf)
{
    const int32_t q31 = p->bits == 32;
    int32_t frame, pos;
    for (frame = 0; frame < p->frames; ++frame) {
        const int32_t in_at = frame * p->input_length, out_at = frame * 2 * (p->n + 1);
        for (pos = 0; pos < p->n; ++pos) {
            const int32_t j = 2 * p->perm[pos];
            buf[2 * pos] = j < p->input_length ? sample(i16, i32, in_at + j) : 0;
            buf[2 * pos + 1] = j + 1 < p->input_length ? sample(i16, i32, in_at + j + 1) : 0;
        }
        stages(p, buf, q31, 0);
        split(p, buf, o16 != NULL ? o16 + out_at : NULL, o32 != NULL ? o32 + out_at : NULL, q31);
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

/* -- inverse: kiss_fftri. The bins of a row are merged into one half-length spectrum (tmp: the first 2n values
 * of the scratch), gathered by the permutation into the work buffer (the next 2n), inverse-transformed there;
 * the work buffer's (real, imag) pairs are the row's (even, odd) samples. */

static void merge(const mr_signal_rfft_params *p, const int16_t *i16, const int32_t *i32, int32_t *tmp, int32_t q31)
{
    const int32_t n = p->n;
    int32_t k, q;
    int32_t dc[2];
    dc[0] = add(sample(i16, i32, 0), sample(i16, i32, 2 * n), q31);
    dc[1] = sub(sample(i16, i32, 0), sample(i16, i32, 2 * n), q31);
    fixdiv(dc, 2, q31);
    tmp[0] = dc[0];
    tmp[1] = dc[1];
    for (k = 1; k <= n / 2; ++k) {
        int32_t fk[2], fnkc[2], fek[2], diff[2], fok[2];
        fk[0] = sample(i16, i32, 2 * k);
        fk[1] = sample(i16, i32, 2 * k + 1);
        fnkc[0] = sample(i16, i32, 2 * (n - k));
        fnkc[1] = sub(0, sample(i16, i32, 2 * (n - k) + 1), q31);
        fixdiv(fk, 2, q31);
        fixdiv(fnkc, 2, q31);
        for (q = 0; q < 2; ++q) {
            fek[q] = add(fk[q], fnkc[q], q31);
            diff[q] = sub(fk[q], fnkc[q], q31);
        }
        cmul(fok, diff, p->super_twiddles + 2 * (k - 1), q31);
        tmp[2 * k] = add(fek[0], fok[0], q31);
        tmp[2 * k + 1] = add(fek[1], fok[1], q31);
        tmp[2 * (n - k)] = sub(fek[0], fok[0], q31);
        tmp[2 * (n - k) + 1] = sub(0, sub(fek[1], fok[1], q31), q31);
    }
}

static void run_inverse(const mr_signal_rfft_params *p, const int16_t *i16, const int32_t *i32, int16_t *o16,
                        int32_t *o32, int32_t *scratch)
{
    const int32_t q31 = p->bits == 32, n = p->n;
    int32_t *tmp = scratch, *work = scratch + 2 * n;
    int32_t frame, pos, j;
    for (frame = 0; frame < p->frames; ++frame) {
        const int32_t in_at = frame * 2 * (n + 1), out_at = frame * 2 * n;
        merge(p, i16 != NULL ? i16 + in_at : NULL, i32 != NULL ? i32 + in_at : NULL, tmp, q31);
        for (pos = 0; pos < n; ++pos) {
            work[2 * pos] = tmp[2 * p->perm[pos]];
            work[2 * pos + 1] = tmp[2 * p->perm[pos] + 1];
        }
        stages(p, work, q31, 1);
        for (j = 0; j < 2 * n; ++j) {
            put(o16 != NULL ? o16 + out_at : NULL, o32 != NULL ? o32 + out_at : NULL, j, work[j]);
        }
    }
}

int mr_signal_irfft_s16(const mr_signal_rfft_params *p, const int16_t *in, int16_t *out, int32_t *scratch)
{
    run_inverse(p, in, NULL, out, NULL, scratch);
    return MR_OK;
}

int mr_signal_irfft_s32(const mr_signal_rfft_params *p, const int32_t *in, int32_t *out, int32_t *scratch)
{
    run_inverse(p, NULL, in, NULL, out, scratch);
    return MR_OK;
}

int mr_signal_irfft_f32(const mr_signal_rfft_params *p, const float *in, float *out, float *scratch)
{
    const int32_t n = p->n;
    float *tmp = scratch, *work = scratch + 2 * n;
    int32_t frame, pos, k;
    for (frame = 0; frame < p->frames; ++frame) {
        const float *x = in + frame * 2 * (n + 1);
        float *y = out + frame * 2 * n;
        tmp[0] = x[0] + x[2 * n];
        tmp[1] = x[0] - x[2 * n];
        for (k = 1; k <= n / 2; ++k) {
            float fek[2], diff[2], fok[2];
            const float fk[2] = {x[2 * k], x[2 * k + 1]};
            const float fnkc[2] = {x[2 * (n - k)], -x[2 * (n - k) + 1]};
            fek[0] = fk[0] + fnkc[0];
            fek[1] = fk[1] + fnkc[1];
            diff[0] = fk[0] - fnkc[0];
            diff[1] = fk[1] - fnkc[1];
            cmulf(fok, diff, p->super_twiddles_f + 2 * (k - 1));
            tmp[2 * k] = fek[0] + fok[0];
            tmp[2 * k + 1] = fek[1] + fok[1];
            tmp[2 * (n - k)] = fek[0] - fok[0];
            tmp[2 * (n - k) + 1] = -(fek[1] - fok[1]);
        }
        for (pos = 0; pos < n; ++pos) {
            work[2 * pos] = tmp[2 * p->perm[pos]];
            work[2 * pos + 1] = tmp[2 * p->perm[pos] + 1];
        }
        stagesf(p, work, 1);
        for (k = 0; k < 2 * n; ++k) {
            y[k] = work[k] / (float)(2 * n); /* TFLite Micro's float kernel divides by fft_length */
        }
    }
    return MR_OK;
}
