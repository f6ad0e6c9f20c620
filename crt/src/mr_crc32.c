/* CRC-32 (crc32.h) four bits at a time: a 64-byte table in flash, two lookups per byte. A byte-wide table would
   take 1 KB for about twice the speed; verifying weights is not on the inference path. */
#include "micro_relay/crc32.h"

static const uint32_t mr_crc32_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t mr_crc32(uint32_t crc, const void *data, size_t bytes)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t i;
    crc = ~crc;
    for (i = 0; i < bytes; ++i) {
        crc ^= p[i];
        crc = (crc >> 4) ^ mr_crc32_nibble[crc & 0x0Fu];
        crc = (crc >> 4) ^ mr_crc32_nibble[crc & 0x0Fu];
    }
    return ~crc;
}

int mr_verify_spans(const mr_const_span *spans, size_t count, uint32_t expected)
{
    uint32_t crc = 0u;
    size_t k;
    for (k = 0; k < count; ++k) {
        crc = mr_crc32(crc, spans[k].data, spans[k].bytes);
    }
    return crc == expected ? MR_OK : MR_ERR_WEIGHTS;
}
