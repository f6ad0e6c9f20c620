/* Debug guards: the canaries a --debug-guards build places after each arena buffer (guard.h). */
#include <string.h>

#include "micro_relay/guard.h"

int mr_guard_begin(uint8_t *base, const mr_canary *canaries, uint32_t count, uint32_t slot, int32_t step)
{
    uint32_t k, i;
    memcpy(base + slot, &step, sizeof step);
    for (k = 0; k < count; ++k) {
        if (canaries[k].first == step) {
            for (i = 0; i < canaries[k].length; ++i) {
                base[canaries[k].offset + i] = MR_GUARD_BYTE(i);
            }
        }
    }
    return MR_OK;
}

int mr_guard_check(const uint8_t *base, const mr_canary *canaries, uint32_t count, int32_t step)
{
    uint32_t k, i;
    for (k = 0; k < count; ++k) {
        if (canaries[k].first <= step && step <= canaries[k].last) {
            for (i = 0; i < canaries[k].length; ++i) {
                if (base[canaries[k].offset + i] != MR_GUARD_BYTE(i)) {
                    return MR_ERR_GUARD;
                }
            }
        }
    }
    return MR_OK;
}
