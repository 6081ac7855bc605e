/*
 * piecebridge referee display: Arduino Uno (ATmega328P, 16 MHz).
 *
 * Hardware (see firmware/README.md):
 *   D6 (PD6)  WS2812B data: 64-LED 8x8 matrix (a1 first, row by row, south to north)
 *             followed by a 16-LED status strip = 80 LEDs.
 *   D2 fire north, D3 fire east, D4 fire south, D5 fire west, D7 end turn:
 *             push buttons to GND (internal pull-ups), debounced 20 ms.
 *   USB serial 115200 8N1: binary frames, see firmware/PROTOCOL.md.
 *
 * The loop never blocks: it parses bytes as they come, runs animations from
 * clock_ms(), scans buttons, and only sends to the LEDs (interrupts off) between
 * frames, right before acknowledging the command that changed the picture.
 */
#include <avr/io.h>

#include "pb_core.h"
#include "ws2812.h"

static const uint8_t BUTTON_PINS[PB_BUTTONS] = {2, 3, 4, 5, 7};
static const uint16_t DEBOUNCE_MS = 20;
static const uint16_t HELLO_EVERY_MS = 500;
static const uint16_t EVENT_RETRY_MS = 100;
static const uint16_t HEARTBEAT_MS = 1000;
static const uint16_t HOST_TIMEOUT_MS = 3000;

static pb_rx_t rx;
static pb_state_t st;
static uint8_t leds[PB_LED_COUNT * 3];
static uint8_t reset_cause;

/* Button events wait in a ring until the host acknowledges them, oldest first and one at
 * a time: the head goes out as BUTTON with its own event seq (1..255) and is re-sent every
 * EVENT_RETRY_MS until an EVENT_ACK names that seq; only then is the next one numbered and
 * sent. So the host sees each press in order and can drop re-sent copies by their seq. */
#define EV_RING 16 /* a power of two */
static uint8_t ev_ring[EV_RING], ev_head, ev_count, ev_seq = 0;
static uint8_t btn_stable[PB_BUTTONS], btn_count[PB_BUTTONS];

static uint16_t last_ms, hello_ms, event_ms, heartbeat_ms, host_ms;
static uint8_t event_sent;
static uint16_t rx_errors;

/* Stack high-water mark: RAM between the end of .bss and the stack is painted at boot;
 * bytes never overwritten are RAM that was never needed (reported in HEARTBEAT). */
extern uint8_t __heap_start;
static const uint8_t PAINT = 0xA5;

static void paint_ram(void) {
    uint8_t *p = &__heap_start;
    uint8_t *sp = (uint8_t *)SP;
    while (p < sp - 16) *p++ = PAINT;
}

static uint16_t never_used_ram(void) {
    const uint8_t *p = &__heap_start;
    while (p < (const uint8_t *)RAMEND && *p == PAINT) p++;
    return (uint16_t)(p - &__heap_start);
}

/* Time base: Timer1 free-running at clk/64 (4 us a tick), read as a counter. millis()
 * counts timer0 overflow interrupts and loses about 1 ms per LED send (2.5 ms with
 * interrupts off, only one overflow stays pending): with the host streaming pictures it
 * ran at 0.78 x (measured in simavr), so the 20 ms debounce took 26 ms of pressing and
 * animations and timeouts stretched too. The counter keeps counting with interrupts
 * off; the loop reads it far more often than its 262 ms wrap. */
static uint16_t clock_last;
static uint32_t clock_ticks; /* ticks not yet turned into ms */
static uint16_t clock_now_ms;
static uint32_t uptime_ms;

static void clock_init(void) {
    TCCR1A = 0; /* normal mode (the Arduino core set 8-bit PWM for pins 9/10, unused here) */
    TCCR1B = (1 << CS11) | (1 << CS10);
    clock_last = TCNT1;
}

static uint16_t clock_ms(void) {
    uint16_t t = TCNT1; /* no ISR touches Timer1's 16-bit registers: no cli needed */
    clock_ticks += (uint16_t)(t - clock_last);
    clock_last = t;
    while (clock_ticks >= 250) {
        clock_ticks -= 250;
        clock_now_ms++;
        uptime_ms++;
    }
    return clock_now_ms;
}

static void send(uint8_t type, uint8_t seq, const uint8_t *p, uint8_t n) {
    uint8_t out[PB_MAX_ENCODED + 1];
    uint16_t len = pb_build(type, seq, p, n, out);
    Serial.write(out, len);
}

static void send_hello(uint8_t flags, uint8_t echo) {
    uint8_t p[8] = {PB_PROTO_VERSION, PB_FW_MAJOR, PB_FW_MINOR,
                    (uint8_t)(PB_LED_COUNT & 0xFF), (uint8_t)(PB_LED_COUNT >> 8),
                    flags, echo, reset_cause};
    send(PB_HELLO, 0, p, sizeof p);
}

static void render(void) {
    pb_compose(&st, leds);
    ws2812_show(leds, sizeof leds);
    st.dirty = 0;
}

/* The host has the event `seq`: forget it. Only the head that was actually sent under that
 * seq: a late EVENT_ACK for the previous event must not drop the next, still unsent one. */
static void event_acked(uint8_t seq) {
    if (ev_count && event_sent && seq == ev_seq) {
        ev_head = (ev_head + 1) & (EV_RING - 1);
        ev_count--;
        event_sent = 0;
    }
}

/* SYNC carries the last event seq the host delivered. If that is our unacknowledged head,
 * only its EVENT_ACK was lost. With nothing in flight, number on from the host's count
 * (after a reboot ev_seq would restart at 1 and could equal it: the press would look
 * like a re-sent copy). An event in flight under another seq keeps it: a copy may still
 * be on its way to the host, which must recognise the re-sends as the same press. */
static void events_on_sync(uint8_t host_last) {
    event_acked(host_last);
    if (!event_sent) ev_seq = host_last;
}

static void on_frame(void) {
    host_ms = clock_ms();
    if (!st.link_ok) {
        st.link_ok = 1;
        st.dirty = 1;
    }
    pb_reply_t r = pb_handle(&st, rx.type, rx.seq, rx.payload, rx.plen);
    if (r.has_event_ack) event_acked(r.event_acked);
    if (r.is_sync) events_on_sync(r.sync_event);
    /* Latch the new picture before the ACK so an ACK means "it is on the LEDs". */
    if (st.dirty) render();
    if (r.type == PB_HELLO) {
        send_hello(PB_HELLO_REPLY, r.seq);
    } else if (r.type == PB_ACK) {
        send(PB_ACK, 0, &r.seq, 1);
    } else if (r.type == PB_NACK) {
        uint8_t p[2] = {r.seq, r.reason};
        send(PB_NACK, 0, p, 2);
    }
}

static void poll_serial(void) {
    while (Serial.available()) {
        int res = pb_rx_feed(&rx, (uint8_t)Serial.read());
        if (res == PB_RX_FRAME) {
            on_frame();
        } else if (res == PB_RX_ERROR) {
            rx_errors++;
            uint8_t p[2] = {0, PB_NACK_FRAME};
            send(PB_NACK, 0, p, 2);
        }
    }
}

static void scan_buttons(void) {
    for (uint8_t b = 0; b < PB_BUTTONS; b++) {
        uint8_t pressed = digitalRead(BUTTON_PINS[b]) == LOW;
        if (pressed == btn_stable[b]) {
            btn_count[b] = 0;
        } else if (++btn_count[b] >= DEBOUNCE_MS) {
            btn_stable[b] = pressed;
            btn_count[b] = 0;
            if (pressed && ev_count < EV_RING) ev_ring[(ev_head + ev_count++) & (EV_RING - 1)] = b;
        }
    }
}

static void service_events(uint16_t now) {
    if (!ev_count || !st.synced) return;
    if (!event_sent) {
        ev_seq = ev_seq == 255 ? 1 : ev_seq + 1; /* 0 means "no event" */
        event_sent = 1;
        event_ms = now - EVENT_RETRY_MS;
    }
    if ((uint16_t)(now - event_ms) >= EVENT_RETRY_MS) {
        event_ms = now;
        send(PB_BUTTON, ev_seq, &ev_ring[ev_head], 1);
    }
}

void setup() {
    paint_ram();
    reset_cause = MCUSR;
    MCUSR = 0;
    Serial.begin(115200);
    for (uint8_t b = 0; b < PB_BUTTONS; b++) pinMode(BUTTON_PINS[b], INPUT_PULLUP);
    ws2812_init();
    pb_rx_init(&rx);
    pb_state_init(&st);
    render();
    clock_init();
    last_ms = hello_ms = heartbeat_ms = host_ms = clock_ms();
    send_hello(0, 0);
}

void loop() {
    poll_serial();
    uint16_t now = clock_ms();
    uint16_t dt = now - last_ms;
    if (dt) {
        last_ms = now;
        for (uint16_t i = 0; i < dt && i < DEBOUNCE_MS; i++) scan_buttons();
        pb_tick(&st, dt);
    }
    if (!st.synced && (uint16_t)(now - hello_ms) >= HELLO_EVERY_MS) {
        hello_ms = now;
        send_hello(0, 0);
    }
    if (st.synced && (uint16_t)(now - heartbeat_ms) >= HEARTBEAT_MS) {
        heartbeat_ms = now;
        uint16_t up = (uint16_t)(uptime_ms / 1000);
        uint16_t spare = never_used_ram();
        uint8_t p[6] = {(uint8_t)up,        (uint8_t)(up >> 8),    (uint8_t)rx_errors,
                        (uint8_t)(rx_errors >> 8), (uint8_t)spare, (uint8_t)(spare >> 8)};
        send(PB_HEARTBEAT, 0, p, 6);
    }
    if (st.link_ok && (uint16_t)(now - host_ms) >= HOST_TIMEOUT_MS) {
        st.link_ok = 0;
        st.dirty = 1;
    }
    service_events(now);
    /* Animation frames only between frames, so the 2.5 ms with interrupts off cannot
     * overrun the 2-byte UART buffer in the middle of a host frame. */
    if (st.dirty && rx.len == 0 && !Serial.available()) render();
}
