/*
 * pb_core: the display's protocol parser, command handler and frame composer.
 *
 * Plain C99 with no Arduino or AVR dependency, so the very same code runs in
 * the sketch, in the host-compiled fuzz target (firmware/sim/fuzz_parser.c)
 * and is mirrored by piecebridge/display/protocol.py. The wire format is
 * documented in firmware/PROTOCOL.md.
 */
#ifndef PB_CORE_H
#define PB_CORE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_PROTO_VERSION 2
#define PB_FW_MAJOR 1
#define PB_FW_MINOR 1

#define PB_MATRIX_LEDS 64
#define PB_STATUS_LEDS 16
#define PB_LED_COUNT (PB_MATRIX_LEDS + PB_STATUS_LEDS)
#define PB_PALETTE_SIZE 16

#define PB_MAX_PAYLOAD 120                   /* bytes after type+seq */
#define PB_MAX_RAW (2 + PB_MAX_PAYLOAD + 2)  /* type, seq, payload, crc16 */
#define PB_MAX_ENCODED (PB_MAX_RAW + 2)      /* COBS overhead for < 254 bytes */
#define PB_MAX_LASER (PB_MAX_PAYLOAD - 3)

/* Host -> display frame types. */
enum {
    PB_SYNC = 0x01,       /* [last event seq the host got]: start a session; answered by HELLO */
    PB_PING = 0x02,       /* heartbeat; answered by ACK */
    PB_EVENT_ACK = 0x03,  /* [event seq]: the host got that BUTTON; a command (seq, ACK) */
    PB_PALETTE = 0x10,    /* [first, n, (r,g,b) * n] */
    PB_BOARD = 0x11,      /* 32 bytes: 64 cells, 4-bit palette index, a1 first, high nibble first */
    PB_LASER = 0x12,      /* [colour, step (4 ms units, 0 = instant), n, cell * n] */
    PB_BLINK = 0x13,      /* [colour, half period (10 ms units), cycles (0 = forever), mask * 8] */
    PB_STATUS = 0x14,     /* [player colour, tile points 0-4, die 0-5] */
    PB_BRIGHTNESS = 0x15, /* [level 0-255] */
    PB_CLEAR = 0x16       /* [] everything off, animations stopped */
};

/* Display -> host frame types. */
enum {
    PB_HELLO = 0x80,     /* [proto, fw major, fw minor, leds lo, leds hi, flags, echo seq, reset cause] */
    PB_ACK = 0x81,       /* [seq] */
    PB_NACK = 0x82,      /* [seq, reason] */
    PB_BUTTON = 0x83,    /* [button] ; header seq = event seq, repeated until PB_EVENT_ACK */
    PB_HEARTBEAT = 0x84  /* [uptime s lo, hi, rx errors lo, hi, never-used RAM lo, hi] */
};

enum { PB_HELLO_REPLY = 0x01 }; /* HELLO flags bit: answers a SYNC (else: just booted) */

enum {
    PB_NACK_FRAME = 1,      /* bad COBS / CRC / too long: seq unknown (0) */
    PB_NACK_TYPE = 2,       /* unknown frame type */
    PB_NACK_PAYLOAD = 3,    /* payload length or value out of range */
    PB_NACK_NOT_SYNCED = 4  /* command before SYNC */
};

enum { PB_BTN_NORTH = 0, PB_BTN_EAST, PB_BTN_SOUTH, PB_BTN_WEST, PB_BTN_END_TURN, PB_BUTTONS };

/* Result of feeding one byte. */
enum { PB_RX_NONE = 0, PB_RX_FRAME = 1, PB_RX_ERROR = -1 };

typedef struct {
    uint8_t buf[PB_MAX_ENCODED];
    uint8_t len;
    uint8_t overflow;
    /* Filled when PB_RX_FRAME is returned. */
    uint8_t type, seq, plen;
    const uint8_t *payload;
} pb_rx_t;

typedef struct {
    uint8_t palette[PB_PALETTE_SIZE][3];
    uint8_t cells[32];
    uint8_t brightness;
    uint8_t laser_colour, laser_step, laser_len, laser_visible;
    uint8_t laser[PB_MAX_LASER];
    uint8_t blink_colour, blink_half, blink_cycles, blink_on;
    uint8_t blink_mask[8];
    uint8_t status_colour, tile_points, die;
    uint8_t link_ok;
    uint8_t synced;
    uint8_t last_seq;
    uint16_t laser_timer, blink_timer; /* ms since the last animation step */
    uint8_t dirty;
} pb_state_t;

uint16_t pb_crc16(const uint8_t *data, uint16_t n);
/* COBS-encode `n` bytes of `in` into `out` (room for n + n/254 + 2), add the 0 delimiter. */
uint16_t pb_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out);
/* Build a complete wire frame (COBS + delimiter) into out[PB_MAX_ENCODED + 1]; returns length. */
uint16_t pb_build(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t plen, uint8_t *out);

void pb_rx_init(pb_rx_t *rx);
int pb_rx_feed(pb_rx_t *rx, uint8_t byte);

void pb_state_init(pb_state_t *s);

/* What the firmware must answer after a frame was handled. */
typedef struct {
    uint8_t type; /* 0 = nothing, PB_ACK, PB_NACK or PB_HELLO */
    uint8_t seq;
    uint8_t reason;
    uint8_t event_acked;  /* PB_EVENT_ACK applied: the event seq it acknowledges */
    uint8_t has_event_ack;
    uint8_t is_sync;      /* PB_SYNC: sync_event = the last event seq the host got (0: none) */
    uint8_t sync_event;
} pb_reply_t;

/* Apply one valid frame to the state; never trusts the payload. */
pb_reply_t pb_handle(pb_state_t *s, uint8_t type, uint8_t seq, const uint8_t *p, uint8_t plen);
/* Advance animations by `ms` milliseconds; sets s->dirty when the picture changes. */
void pb_tick(pb_state_t *s, uint16_t ms);
/* Compose the LED chain into out[PB_LED_COUNT * 3] in WS2812 order (G, R, B). */
void pb_compose(const pb_state_t *s, uint8_t *out);
/* Chain position of matrix cell index (row * 8 + col, a1 = 0, h8 = 63). */
uint8_t pb_cell_led(uint8_t cell);

#ifdef __cplusplus
}
#endif
#endif
