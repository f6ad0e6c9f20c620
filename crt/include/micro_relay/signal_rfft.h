/* signal.rfft and signal.irfft: TFLite Micro's SignalRfft and SignalIrfft, KissFFT's real FFT and its inverse in
 * Q15 (int16), Q31 (int32) or float. */
#ifndef MICRO_RELAY_SIGNAL_RFFT_H
#define MICRO_RELAY_SIGNAL_RFFT_H

#include "crt.h"

#define MR_SIGNAL_RFFT_MAX_STAGES 16

/* The compiler computes KissFFT's tables for n = fft_length / 2: the input permutation its recursion gathers
 * (perm[n]), the stages innermost first (radix 2 or 4, m), the twiddles (n (cos, sin) pairs) and kiss_fftr's
 * super twiddles (n / 2 pairs), all in the Q format of `bits`. */
typedef struct {
    int32_t frames;       /* rows of input_length samples */
    int32_t input_length; /* <= 2n; the rest of each row is zero */
    int32_t n;            /* the complex FFT's length: fft_length / 2 */
    int32_t bits;         /* 16 or 32 */
    int32_t stages;
    int32_t radix[MR_SIGNAL_RFFT_MAX_STAGES];
    int32_t m[MR_SIGNAL_RFFT_MAX_STAGES];
    const int32_t *perm;
    const int32_t *twiddles;       /* the integer builds' tables (NULL for float) */
    const int32_t *super_twiddles;
    const float *twiddles_f;       /* the float build's (NULL otherwise) */
    const float *super_twiddles_f;
} mr_signal_rfft_params;

/* out: frames rows of n + 1 (real, imag) bins; scratch: 2n int32 */
int mr_signal_rfft_s16(const mr_signal_rfft_params *p, const int16_t *in, int16_t *out, int32_t *scratch);
int mr_signal_rfft_s32(const mr_signal_rfft_params *p, const int32_t *in, int32_t *out, int32_t *scratch);
int mr_signal_rfft_f32(const mr_signal_rfft_params *p, const float *in, float *out, float *scratch);

/* signal.irfft (TFLite Micro's SignalIrfft, kiss_fftri) with the inverse tables (the phases negated); input_length
 * is unused. in: frames rows of n + 1 (real, imag) bins; out: frames rows of 2n samples; scratch: 4n values. */
int mr_signal_irfft_s16(const mr_signal_rfft_params *p, const int16_t *in, int16_t *out, int32_t *scratch);
int mr_signal_irfft_s32(const mr_signal_rfft_params *p, const int32_t *in, int32_t *out, int32_t *scratch);
int mr_signal_irfft_f32(const mr_signal_rfft_params *p, const float *in, float *out, float *scratch);

#endif
