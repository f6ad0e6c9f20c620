/*
 * Micro Relay model server: the protocol of docs/device-protocol.md.
 *
 * A frame, both ways: sync (0xA5 to the device, 0x5A back), command, sequence, status, payload length (16-bit
 * little-endian, at most MRS_MAX_PAYLOAD), payload, CRC-32 (IEEE, as zlib's crc32) of everything before it.
 * The device answers every frame it reads whole: a bad CRC or an unknown command gets a reply with that status
 * and no payload, and the host sends the request again. Every request may be repeated safely: writes and
 * reads name their bytes, and an INVOKE right after an INVOKE with the same sequence number replays its reply
 * instead of running the model again (its inputs are gone by then).
 */
#include <string.h>

#include "mrs_model.h"
#include "mrs_server.h"

#define MRS_MAX_PAYLOAD 1024u
#define MRS_SYNC_REQUEST 0xA5u
#define MRS_SYNC_REPLY 0x5Au
#define MRS_HEADER 6u

enum { CMD_HELLO = 1, CMD_WRITE_INPUT = 2, CMD_INVOKE = 3, CMD_READ_OUTPUT = 4, CMD_READ_TIMINGS = 5,
       CMD_READ_TENSOR = 6 };
enum { ST_OK = 0, ST_BAD_CRC = 1, ST_BAD_COMMAND = 2, ST_BAD_ARGUMENT = 3, ST_NOT_DEBUG = 4, ST_TOO_LONG = 5 };

#ifndef MRS_MAX_LAYERS
#define MRS_MAX_LAYERS 512
#endif

static uint8_t frame[MRS_HEADER + MRS_MAX_PAYLOAD + 4u];
static uint64_t mark_at[MRS_MAX_LAYERS + 1];
static int32_t marked;          /* marks of the last run: layers + 1 (the end) when it ran to the end */
static uint8_t invoke_reply[20];
static int invoked_sequence = -1;
static uint64_t empty_count; /* what mrs_port_measure counts for a call that does nothing */

void mrb_profile_mark(int step)
{
    const int32_t slot = step < 0 ? marked : step;
    if (slot >= 0 && slot <= MRS_MAX_LAYERS) {
        mark_at[slot] = mrs_port_now();
        marked = slot + 1;
    }
}

static uint32_t crc32(const uint8_t *data, size_t size)
{
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    int bit;
    for (i = 0; i < size; ++i) {
        crc ^= data[i];
        for (bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* Send frame[] as a reply: its command and sequence are the request's. */
static void reply(uint8_t status, const uint8_t *payload, size_t size)
{
    frame[0] = MRS_SYNC_REPLY;
    frame[3] = status;
    frame[4] = (uint8_t)size;
    frame[5] = (uint8_t)(size >> 8);
    if (payload != NULL && payload != frame + MRS_HEADER) {
        memcpy(frame + MRS_HEADER, payload, size);
    }
    put32(frame + MRS_HEADER + size, crc32(frame, MRS_HEADER + size));
    mrs_port_write(frame, MRS_HEADER + size + 4u);
}

/* A range of a buffer of `size` bytes named by (offset u32, length u16) at p; NULL when outside. */
static const uint8_t *span(const void *base, size_t size, const uint8_t *p, uint16_t *length)
{
    const uint32_t offset = get32(p);
    *length = get16(p + 4);
    if (base == NULL || offset > size || *length > size - offset || *length > MRS_MAX_PAYLOAD) {
        return NULL;
    }
    return (const uint8_t *)base + offset;
}

static void invoke(uint8_t sequence)
{
    int status = 0;
    uint64_t count;
    int32_t layer = -2; /* -2: the build does not say */
    if ((int)sequence == invoked_sequence) {
        reply(ST_OK, invoke_reply, sizeof invoke_reply);
        return;
    }
    marked = 0;
    count = mrs_port_measure(mrs_invoke, &status);
    count = count > empty_count ? count - empty_count : 0u;
#ifdef MRS_DEBUG
    layer = mrs_failed_layer();
#endif
    put32(invoke_reply, (uint32_t)status);
    put32(invoke_reply + 4, (uint32_t)layer);
    put64(invoke_reply + 8, count);
    put32(invoke_reply + 16, (uint32_t)(marked > 0 ? marked - 1 : 0));
    invoked_sequence = sequence;
    reply(ST_OK, invoke_reply, sizeof invoke_reply);
}

static void read_timings(const uint8_t *p, uint16_t size)
{
    uint16_t first, count, k;
    uint8_t *out = frame + MRS_HEADER;
    if (size != 4u) {
        reply(ST_BAD_ARGUMENT, NULL, 0);
        return;
    }
    first = get16(p);
    count = get16(p + 2);
    if (marked < 1 || (uint32_t)first + count > (uint32_t)(marked - 1) || count * 8u > MRS_MAX_PAYLOAD) {
        reply(ST_BAD_ARGUMENT, NULL, 0);
        return;
    }
    for (k = 0; k < count; ++k) {
        put64(out + 8u * k, mark_at[first + k + 1] - mark_at[first + k]);
    }
    reply(ST_OK, out, 8u * count);
}

static void handle(uint8_t command, uint8_t sequence, const uint8_t *p, uint16_t size)
{
    uint16_t length;
    const uint8_t *data;
    if (command != CMD_INVOKE) {
        invoked_sequence = -1; /* only an INVOKE right after an INVOKE can be its repetition */
    }
    switch (command) {
    case CMD_HELLO: {
        uint8_t unit = MRS_COUNT_UNIT;
        memcpy(frame + MRS_HEADER, mrs_hello, sizeof mrs_hello);
        frame[MRS_HEADER + sizeof mrs_hello] = unit;
        reply(ST_OK, frame + MRS_HEADER, sizeof mrs_hello + 1u);
        return;
    }
    case CMD_WRITE_INPUT: {
        uint32_t offset;
        uint8_t *input;
        if (size < 5u || p[0] >= MRS_NUM_INPUTS) {
            reply(ST_BAD_ARGUMENT, NULL, 0);
            return;
        }
        offset = get32(p + 1);
        input = (uint8_t *)mrs_input(p[0]);
        if (offset > mrs_input_size(p[0]) || size - 5u > mrs_input_size(p[0]) - offset) {
            reply(ST_BAD_ARGUMENT, NULL, 0);
            return;
        }
        memcpy(input + offset, p + 5, size - 5u);
        reply(ST_OK, NULL, 0);
        return;
    }
    case CMD_INVOKE:
        invoke(sequence);
        return;
    case CMD_READ_OUTPUT:
        if (size != 7u || p[0] >= MRS_NUM_OUTPUTS
            || (data = span(mrs_output(p[0]), mrs_output_size(p[0]), p + 1, &length)) == NULL) {
            reply(ST_BAD_ARGUMENT, NULL, 0);
            return;
        }
        reply(ST_OK, data, length);
        return;
    case CMD_READ_TIMINGS:
        read_timings(p, size);
        return;
    case CMD_READ_TENSOR:
#ifdef MRS_DEBUG
        if (size != 8u || get16(p) >= MRS_NUM_TENSORS
            || (data = span(mrs_tensor(get16(p)), mrs_tensor_size(get16(p)), p + 2, &length)) == NULL) {
            reply(ST_BAD_ARGUMENT, NULL, 0);
            return;
        }
        reply(ST_OK, data, length);
#else
        reply(ST_NOT_DEBUG, NULL, 0);
#endif
        return;
    default:
        reply(ST_BAD_COMMAND, NULL, 0);
        return;
    }
}

static int empty(void)
{
    return 0;
}

void mrs_serve(void)
{
    int status;
    empty_count = mrs_port_measure(empty, &status);
    for (;;) {
        size_t i, size;
        while ((frame[0] = mrs_port_read_byte()) != MRS_SYNC_REQUEST) {
        }
        for (i = 1; i < MRS_HEADER; ++i) {
            frame[i] = mrs_port_read_byte();
        }
        size = get16(frame + 4);
        if (size > MRS_MAX_PAYLOAD) {
            reply(ST_TOO_LONG, NULL, 0);
            continue;
        }
        for (i = 0; i < size + 4u; ++i) {
            frame[MRS_HEADER + i] = mrs_port_read_byte();
        }
        if (crc32(frame, MRS_HEADER + size) != get32(frame + MRS_HEADER + size)) {
            reply(ST_BAD_CRC, NULL, 0);
            continue;
        }
        /* the payload moves to the front of a copy, since the reply is built in frame[] */
        {
            static uint8_t request[MRS_MAX_PAYLOAD];
            memcpy(request, frame + MRS_HEADER, size);
            handle(frame[1], frame[2], request, (uint16_t)size);
        }
    }
}
