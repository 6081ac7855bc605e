/* pb_core: see pb_core.h and firmware/PROTOCOL.md. */
#include "pb_core.h"

#include <string.h>

#ifndef PB_SERPENTINE
/* 0: every matrix row runs west -> east (a1..h1, a2..h2, ...).
 * 1: rows alternate direction, as on most ready-made 8x8 WS2812B panels. */
#define PB_SERPENTINE 0
#endif

/* Default palette; the host normally sends its own with PB_PALETTE. */
static const uint8_t default_palette[PB_PALETTE_SIZE][3] = {
    {0, 0, 0},       {255, 0, 0},   {0, 255, 0},   {0, 0, 255},   {255, 255, 255}, {255, 160, 0},
    {255, 60, 0},    {160, 0, 255}, {0, 255, 255}, {255, 0, 255}, {255, 80, 120},  {40, 40, 40},
    {120, 120, 120}, {255, 255, 0}, {0, 120, 40},  {20, 0, 60}};

uint16_t pb_crc16(const uint8_t *data, uint16_t n) {
    /* CRC-16/GENIBUS: poly 0x1021, init 0xFFFF, final xor 0xFFFF, no reflection. The final
     * xor matters: without it a frame whose CRC ends in 0x00 stays valid with extra zero
     * bytes appended (found by the fuzzer). Bitwise: no 512-byte table in RAM/flash. */
    uint16_t crc = 0xFFFF;
    while (n--) {
        crc ^= (uint16_t)(*data++) << 8;
        for (uint8_t i = 0; i < 8; i++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc ^ 0xFFFF;
}

uint16_t pb_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out) {
    uint16_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (uint16_t i = 0; i < n; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    out[o++] = 0;
    return o;
}

uint16_t pb_build(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t plen, uint8_t *out) {
    uint8_t raw[PB_MAX_RAW];
    if (plen > PB_MAX_PAYLOAD) plen = PB_MAX_PAYLOAD;
    raw[0] = type;
    raw[1] = seq;
    if (plen) memcpy(raw + 2, payload, plen);
    uint16_t crc = pb_crc16(raw, (uint16_t)(2 + plen));
    raw[2 + plen] = (uint8_t)(crc >> 8);
    raw[3 + plen] = (uint8_t)crc;
    return pb_cobs_encode(raw, (uint16_t)(4 + plen), out);
}

void pb_rx_init(pb_rx_t *rx) {
    rx->len = 0;
    rx->overflow = 0;
    rx->plen = 0;
    rx->payload = rx->buf;
}

/* Decode COBS in place; returns decoded length or -1. */
static int cobs_decode_inplace(uint8_t *buf, uint8_t n) {
    uint8_t i = 0, o = 0;
    while (i < n) {
        uint8_t code = buf[i++];
        if (code == 0) return -1;
        for (uint8_t k = 1; k < code; k++) {
            if (i >= n) return -1;
            uint8_t b = buf[i++];
            if (b == 0) return -1;
            buf[o++] = b;
        }
        /* A code < 0xFF stands for a zero, except after the last group. */
        if (code != 0xFF && i < n) buf[o++] = 0;
    }
    return o;
}

int pb_rx_feed(pb_rx_t *rx, uint8_t byte) {
    if (byte != 0) {
        if (rx->len < sizeof rx->buf)
            rx->buf[rx->len++] = byte;
        else
            rx->overflow = 1;
        return PB_RX_NONE;
    }
    /* Delimiter: a frame (or garbage) ends here. */
    uint8_t n = rx->len, overflow = rx->overflow;
    rx->len = 0;
    rx->overflow = 0;
    if (n == 0) return PB_RX_NONE; /* idle line / back-to-back delimiters */
    if (overflow) return PB_RX_ERROR;
    int d = cobs_decode_inplace(rx->buf, n);
    if (d < 4) return PB_RX_ERROR;
    uint16_t crc = pb_crc16(rx->buf, (uint16_t)(d - 2));
    if (rx->buf[d - 2] != (uint8_t)(crc >> 8) || rx->buf[d - 1] != (uint8_t)crc) return PB_RX_ERROR;
    rx->type = rx->buf[0];
    rx->seq = rx->buf[1];
    rx->plen = (uint8_t)(d - 4);
    rx->payload = rx->buf + 2;
    return PB_RX_FRAME;
}

void pb_state_init(pb_state_t *s) {
    memset(s, 0, sizeof *s);
    memcpy(s->palette, default_palette, sizeof s->palette);
    s->brightness = 64;
    s->dirty = 1;
}

static pb_reply_t reply(uint8_t type, uint8_t seq, uint8_t reason) {
    pb_reply_t r;
    memset(&r, 0, sizeof r);
    r.type = type;
    r.seq = seq;
    r.reason = reason;
    return r;
}

/* Validate and apply a sequenced display command; returns 0 or a NACK reason. */
static uint8_t apply(pb_state_t *s, uint8_t type, const uint8_t *p, uint8_t n) {
    switch (type) {
        case PB_PING:
            return n == 0 ? 0 : PB_NACK_PAYLOAD;
        case PB_EVENT_ACK: /* the event queue is the sketch's: see pb_handle's reply */
            return n == 1 ? 0 : PB_NACK_PAYLOAD;
        case PB_PALETTE: {
            if (n < 2 || n != 2 + 3 * p[1] || p[0] + p[1] > PB_PALETTE_SIZE) return PB_NACK_PAYLOAD;
            memcpy(s->palette[p[0]], p + 2, 3u * p[1]);
            break;
        }
        case PB_BOARD:
            if (n != 32) return PB_NACK_PAYLOAD;
            memcpy(s->cells, p, 32);
            break;
        case PB_LASER: {
            if (n < 3 || p[0] >= PB_PALETTE_SIZE || p[2] > PB_MAX_LASER || n != 3 + p[2]) return PB_NACK_PAYLOAD;
            for (uint8_t i = 0; i < p[2]; i++)
                if (p[3 + i] >= PB_MATRIX_LEDS) return PB_NACK_PAYLOAD;
            s->laser_colour = p[0];
            s->laser_step = p[1];
            s->laser_len = p[2];
            memcpy(s->laser, p + 3, p[2]);
            /* Animated: the first cell shows now, one more every step. */
            s->laser_visible = (p[1] == 0 || p[2] == 0) ? p[2] : 1;
            s->laser_timer = 0;
            break;
        }
        case PB_BLINK:
            if (n != 11 || p[0] >= PB_PALETTE_SIZE || p[1] == 0) return PB_NACK_PAYLOAD;
            s->blink_colour = p[0];
            s->blink_half = p[1];
            s->blink_cycles = p[2];
            memcpy(s->blink_mask, p + 3, 8);
            s->blink_on = 1;
            s->blink_timer = 0;
            break;
        case PB_STATUS:
            if (n != 3 || p[0] >= PB_PALETTE_SIZE || p[1] > 4 || p[2] > 5) return PB_NACK_PAYLOAD;
            s->status_colour = p[0];
            s->tile_points = p[1];
            s->die = p[2];
            break;
        case PB_BRIGHTNESS:
            if (n != 1) return PB_NACK_PAYLOAD;
            s->brightness = p[0];
            break;
        case PB_CLEAR:
            if (n != 0) return PB_NACK_PAYLOAD;
            memset(s->cells, 0, sizeof s->cells);
            s->laser_len = s->laser_visible = 0;
            memset(s->blink_mask, 0, sizeof s->blink_mask);
            s->status_colour = s->tile_points = s->die = 0;
            break;
        default:
            return PB_NACK_TYPE;
    }
    s->dirty = 1;
    return 0;
}

pb_reply_t pb_handle(pb_state_t *s, uint8_t type, uint8_t seq, const uint8_t *p, uint8_t plen) {
    if (type == PB_SYNC) {
        s->synced = 1;
        s->last_seq = seq; /* the next command carries a new seq */
        s->link_ok = 1;
        s->dirty = 1;
        pb_reply_t r = reply(PB_HELLO, seq, 0);
        r.is_sync = 1;
        r.sync_event = plen >= 1 ? p[0] : 0;
        return r;
    }
    if (!s->synced) return reply(PB_NACK, seq, PB_NACK_NOT_SYNCED);
    /* The host re-sends a frame whose ACK it lost: acknowledge, do not apply twice. */
    if (seq != 0 && seq == s->last_seq) return reply(PB_ACK, seq, 0);
    uint8_t err = apply(s, type, p, plen);
    if (err) return reply(PB_NACK, seq, err);
    s->last_seq = seq;
    pb_reply_t r = reply(PB_ACK, seq, 0);
    if (type == PB_EVENT_ACK) {
        r.has_event_ack = 1;
        r.event_acked = p[0];
    }
    return r;
}

void pb_tick(pb_state_t *s, uint16_t ms) {
    if (s->laser_visible < s->laser_len && s->laser_step) {
        s->laser_timer += ms;
        uint16_t step_ms = (uint16_t)s->laser_step * 4u;
        while (s->laser_timer >= step_ms && s->laser_visible < s->laser_len) {
            s->laser_timer -= step_ms;
            s->laser_visible++;
            s->dirty = 1;
        }
    }
    uint8_t any = 0;
    for (uint8_t i = 0; i < 8; i++) any |= s->blink_mask[i];
    if (any) {
        s->blink_timer += ms;
        uint16_t half_ms = (uint16_t)s->blink_half * 10u;
        while (s->blink_timer >= half_ms) {
            s->blink_timer -= half_ms;
            s->blink_on ^= 1;
            s->dirty = 1;
            /* A cycle ends when the blink colour goes off; count those. */
            if (!s->blink_on && s->blink_cycles && --s->blink_cycles == 0) {
                memset(s->blink_mask, 0, sizeof s->blink_mask);
                break;
            }
        }
    }
}

uint8_t pb_cell_led(uint8_t cell) {
    uint8_t row = cell >> 3, col = cell & 7;
    if (PB_SERPENTINE && (row & 1)) col = 7 - col;
    return (uint8_t)(row * 8 + col);
}

static void put(const pb_state_t *s, uint8_t *out, uint8_t led, uint8_t colour) {
    const uint8_t *rgb = s->palette[colour & 15];
    uint16_t scale = (uint16_t)s->brightness + 1;
    uint8_t *o = out + 3u * led;
    o[0] = (uint8_t)((rgb[1] * scale) >> 8); /* WS2812 wants G, R, B */
    o[1] = (uint8_t)((rgb[0] * scale) >> 8);
    o[2] = (uint8_t)((rgb[2] * scale) >> 8);
}

void pb_compose(const pb_state_t *s, uint8_t *out) {
    uint8_t colour[PB_MATRIX_LEDS];
    for (uint8_t c = 0; c < PB_MATRIX_LEDS; c++) colour[c] = (s->cells[c >> 1] >> ((c & 1) ? 0 : 4)) & 15;
    for (uint8_t i = 0; i < s->laser_visible; i++) colour[s->laser[i]] = s->laser_colour;
    if (s->blink_on)
        for (uint8_t c = 0; c < PB_MATRIX_LEDS; c++)
            if (s->blink_mask[c >> 3] & (1 << (c & 7))) colour[c] = s->blink_colour;
    for (uint8_t c = 0; c < PB_MATRIX_LEDS; c++) put(s, out, pb_cell_led(c), colour[c]);
    /* Status strip: 4 x player, 4 x tile points, 5 x die, 2 spare, 1 x link. */
    uint8_t *st = out + 3u * PB_MATRIX_LEDS;
    memset(st, 0, 3u * PB_STATUS_LEDS);
    static const uint8_t amber = 5, white = 4, green = 2, red = 1;
    for (uint8_t i = 0; i < 4; i++) {
        if (s->status_colour) put(s, out, PB_MATRIX_LEDS + i, s->status_colour);
        if (i < s->tile_points) put(s, out, PB_MATRIX_LEDS + 4 + i, amber);
    }
    for (uint8_t i = 0; i < 5; i++)
        if (i < s->die) put(s, out, PB_MATRIX_LEDS + 8 + i, white);
    put(s, out, PB_LED_COUNT - 1, s->link_ok ? green : red);
}
