/*
 * fuzz_parser: the firmware's frame parser and command handler (pb_core.c), compiled for
 * the host with AddressSanitizer + UBSan, fed random frames.
 *
 *   fuzz_parser FRAMES [SEED]     prints one JSON line with counts; exit 0 = no finding
 *
 * Each round builds one input, picked at random among:
 *   random   - random bytes (random length 0..300, a few zeros sprinkled in)
 *   valid    - a well-formed frame of a random type with a random payload
 *   mutated  - a well-formed frame with 1-4 random bit flips, byte drops, duplications
 *              or truncation (what a noisy serial line does)
 *   long     - more than the receive buffer without a delimiter, then a valid frame
 * and feeds it byte by byte into pb_rx_feed(); complete frames go through pb_handle(),
 * then pb_tick() and pb_compose() run. Checked after every frame: the state invariants
 * (laser cells < 64, counts within bounds), that a well-formed frame always decodes to
 * exactly what was sent, and that a decode takes < 1 s of CPU time (no hang; the slowest is
 * reported as "max_decode_us"). A crash is caught by
 * the sanitizers. "accepted_mutated" counts corrupted frames that passed the CRC as
 * something other than what was sent: a 16-bit CRC lets about 1 in 65536 multi-byte
 * corruptions through (single-bit errors never); "survived_intact" counts damage that
 * missed the frame (e.g. an extra delimiter) so the original arrived unchanged.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_core.h"

static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static pb_rx_t rx;
static pb_state_t st;
static uint8_t leds[PB_LED_COUNT * 3];
static unsigned long accepted, rejected, accepted_mutated, survived, mutated_frames, handled_ok, nacked;
static long long max_ns;

static const uint8_t types[] = {PB_SYNC,  PB_PING,   PB_EVENT_ACK, PB_PALETTE,   PB_BOARD,
                                PB_LASER, PB_BLINK,  PB_STATUS,    PB_BRIGHTNESS, PB_CLEAR,
                                0x00,     0x7F,      PB_HELLO,     PB_ACK,       0xFF};

static void fail(const char *why) {
    printf("{\"ok\":false,\"error\":\"%s\"}\n", why);
    exit(1);
}

static void check_state(void) {
    if (st.laser_len > PB_MAX_LASER || st.laser_visible > st.laser_len) fail("laser counts");
    for (int i = 0; i < st.laser_len; i++)
        if (st.laser[i] >= PB_MATRIX_LEDS) fail("laser cell off the board");
    if (st.laser_colour >= PB_PALETTE_SIZE || st.blink_colour >= PB_PALETTE_SIZE) fail("colour index");
    if (st.tile_points > 4 || st.die > 5) fail("status range");
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: immune to a busy machine */
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int same_as(const uint8_t *raw, size_t len) {
    return (size_t)rx.plen + 4 == len && rx.type == raw[0] && rx.seq == raw[1] &&
           memcmp(rx.payload, raw + 2, rx.plen) == 0;
}

/* Feed bytes; returns the number of frames that passed the CRC. With `original` set
 * (a corrupted copy of that frame is fed), count accepted frames that differ from it. */
static const uint8_t *original;
static size_t original_len;

static int feed(const uint8_t *data, size_t n, const uint8_t *expect_raw, size_t expect_len) {
    int frames = 0;
    long long t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        int r = pb_rx_feed(&rx, data[i]);
        if (r == PB_RX_FRAME) {
            frames++;
            accepted++;
            if (expect_raw && !same_as(expect_raw, expect_len)) fail("valid frame decoded differently");
            if (original) {
                /* An extra delimiter or a damaged byte outside the frame leaves it intact. */
                if (same_as(original, original_len))
                    survived++;
                else
                    accepted_mutated++;
            }
            pb_reply_t rep = pb_handle(&st, rx.type, rx.seq, rx.payload, rx.plen);
            if (rep.type == PB_ACK) handled_ok++;
            if (rep.type == PB_NACK) nacked++;
            pb_tick(&st, (uint16_t)(rnd() % 300));
            pb_compose(&st, leds);
            check_state();
        } else if (r == PB_RX_ERROR) {
            rejected++;
        }
    }
    long long dt = now_ns() - t0;
    if (dt > max_ns) max_ns = dt;
    /* A hang, not a slow moment: a decode is microseconds, but a sanitizer build on a
     * shared VM has shown one of 50,000 over 50 ms of thread CPU time (CI, load 3-4). */
    if (dt > 1000000000LL) fail("decode took more than 1 s of CPU time");
    return frames;
}

static size_t random_payload(uint8_t type, uint8_t *p) {
    /* Mostly plausible lengths for the type, so the handler's checks are reached. */
    size_t n;
    switch (rnd() % 4 ? type : 0) {
        case PB_BOARD: n = 32; break;
        case PB_LASER: n = 3 + (p[2] = (uint8_t)(rnd() % 130)); n = n > PB_MAX_PAYLOAD ? PB_MAX_PAYLOAD : n; break;
        case PB_BLINK: n = 11; break;
        case PB_STATUS: n = 3; break;
        case PB_BRIGHTNESS: n = 1; break;
        case PB_PALETTE: n = 2 + 3 * (rnd() % 17); break;
        case PB_CLEAR: case PB_PING: case PB_SYNC: n = 0; break;
        default: n = rnd() % (PB_MAX_PAYLOAD + 1);
    }
    for (size_t i = 0; i < n; i++)
        if (!(type == PB_LASER && i == 2)) p[i] = (uint8_t)(rnd() % 3 ? rnd() % 70 : rnd());
    if (type == PB_PALETTE && n >= 2) {
        p[0] = (uint8_t)(rnd() % 18);
        p[1] = (uint8_t)((n - 2) / 3);
    }
    return n;
}

int main(int argc, char **argv) {
    unsigned long frames = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    rng_state = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1) * 0x9E3779B97F4A7C15ULL | 1;
    pb_rx_init(&rx);
    pb_state_init(&st);
    uint8_t raw[PB_MAX_RAW + 8], wire[2 * PB_MAX_ENCODED + 64], buf[1024];
    unsigned long long bytes = 0;
    long long t0 = now_ns();
    for (unsigned long f = 0; f < frames; f++) {
        uint32_t mode = rnd() % 10;
        if (mode < 3) { /* random bytes */
            size_t n = rnd() % 300;
            for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(rnd() % 8 ? rnd() : 0);
            buf[n++] = 0;
            feed(buf, n, NULL, 0);
            bytes += n;
            continue;
        }
        uint8_t type = types[rnd() % sizeof types];
        uint8_t seq = (uint8_t)rnd();
        uint8_t payload[PB_MAX_PAYLOAD + 4];
        size_t plen = random_payload(type, payload);
        size_t wn = pb_build(type, seq, payload, (uint8_t)plen, wire);
        raw[0] = type;
        raw[1] = seq;
        memcpy(raw + 2, payload, plen);
        if (mode < 6) { /* valid */
            if (feed(wire, wn, raw, plen + 4) != 1) fail("valid frame not accepted");
            bytes += wn;
        } else if (mode < 9) { /* mutated */
            size_t n = wn;
            memcpy(buf, wire, n);
            int edits = 1 + (int)(rnd() % 4);
            for (int e = 0; e < edits && n > 1; e++) {
                size_t at = rnd() % (n - 1); /* keep the final delimiter */
                switch (rnd() % 4) {
                    case 0: buf[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
                    case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;
                    case 2: memmove(buf + at + 1, buf + at, n - at); n++; break;
                    default: buf[at] = (uint8_t)rnd(); break;
                }
            }
            if (n == wn && memcmp(buf, wire, n) == 0) { /* edits cancelled out */
                feed(buf, n, raw, plen + 4);
            } else {
                mutated_frames++;
                unsigned long before = accepted_mutated;
                original = raw;
                original_len = plen + 4;
                feed(buf, n, NULL, 0);
                original = NULL;
                if (accepted_mutated != before && getenv("FUZZ_VERBOSE")) {
                    fprintf(stderr, "accepted mutated: type %02x seq %02x plen %zu; sent", type, seq, plen);
                    for (size_t i = 0; i < wn; i++) fprintf(stderr, " %02x", wire[i]);
                    fprintf(stderr, "\n  got ");
                    for (size_t i = 0; i < n; i++) fprintf(stderr, " %02x", buf[i]);
                    fprintf(stderr, "\n  decoded type %02x seq %02x plen %u\n", rx.type, rx.seq, rx.plen);
                }
            }
            bytes += n;
        } else { /* overlong garbage, then a valid frame must still get through */
            size_t n = PB_MAX_ENCODED + 1 + rnd() % 200;
            for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(1 + rnd() % 255);
            feed(buf, n, NULL, 0);
            uint8_t z = 0;
            feed(&z, 1, NULL, 0);
            if (feed(wire, wn, raw, plen + 4) != 1) fail("valid frame lost after overflow");
            bytes += n + 1 + wn;
        }
    }
    double secs = (double)(now_ns() - t0) / 1e9;
    printf("{\"ok\":true,\"frames\":%lu,\"bytes\":%llu,\"accepted\":%lu,\"rejected\":%lu,"
           "\"mutated_frames\":%lu,\"accepted_mutated\":%lu,\"survived_intact\":%lu,\"acked\":%lu,"
           "\"nacked\":%lu,\"max_decode_us\":%.1f,\"seconds\":%.2f}\n",
           frames, bytes, accepted, rejected, mutated_frames, accepted_mutated, survived, handled_ok, nacked,
           max_ns / 1000.0, secs);
    return 0;
}
