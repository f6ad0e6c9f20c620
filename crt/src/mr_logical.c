/* The logical ops: any nonzero byte is true, every output is 0 or 1. */
#include "micro_relay/logical.h"

int mr_logical_and_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (uint8_t)(a[ia] && b[ib]));
    return MR_OK;
}

int mr_logical_or_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (uint8_t)(a[ia] || b[ib]));
    return MR_OK;
}

int mr_logical_not_bool(const mr_logical_not_params *p, const uint8_t *in, uint8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (uint8_t)!in[i];
    }
    return MR_OK;
}
