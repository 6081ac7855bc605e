/*
 * pbsim: run the compiled display firmware in simavr as if it were an Uno on a USB port.
 *
 *   pbsim FIRMWARE.elf [--link PATH] [--boot-ms N] [--speed X] [--no-reset-on-open] [--trace-rx]
 *
 * - UART0 is bridged to a pseudo-terminal; its slave name is printed (and symlinked to
 *   PATH) so the host opens it with pyserial like /dev/ttyACM0. Bytes from the host are
 *   fed at the real 115200-baud rate, and, like a real ATmega328P, at most 2 bytes are
 *   kept while the firmware has interrupts off: further bytes are dropped (overrun).
 * - Opening the pty resets the MCU after a silent bootloader pause of --boot-ms
 *   wall-clock milliseconds, as the DTR auto-reset of a real Uno does.
 * - The WS2812 data pin (PD6) is watched: edge times in CPU cycles are decoded into
 *   bits (high < 10 cycles = 0, else 1), and each latched frame (line low >= 50 us)
 *   is printed as a JSON line with its latch cycle and the RGB colours.
 * - Commands on stdin, one per line, each answered by {"ev":"ok",...}:
 *     press B [MS] | release B   (B = 0 north, 1 east, 2 south, 3 west, 4 end turn;
 *                             MS: release after MS simulated milliseconds)
 *     reset [HOLD_MS]         MCU reset now (brown-out, watchdog), optional silent hold
 *     unplug MS               USB unplug: the pty goes away, the MCU is unpowered; after MS
 *                             ms a new pty appears (printed; --link follows it)
 *     fault DROP CORRUPT DUP SEED   per-million byte fault rates on both directions
 *     peek ADDR N             N (<= 64) bytes of data memory at ADDR (debugging)
 *     cycle                   print the current cycle
 *     at CYCLE                {"ev":"reached","at":CYCLE,...} once the clock passes CYCLE
 *     quit
 * - --speed X throttles simulated time to X times wall time (default 1; 0 = flat out).
 * - --trace-rx prints {"ev":"rx","cycle":N} when host bytes start arriving after a pause.
 * All output goes to stdout as JSON lines (see firmware/sim/README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_time.h"

#define F_CPU 16000000UL
#define BYTE_CYCLES 1389      /* 10 bits at 115200 baud */
#define LATCH_CYCLES 800      /* 50 us low = WS2812 reset/latch */
#define MAX_LEDS 512
#define CONTROL_CYCLES 16000  /* poll stdin every simulated ms */

static avr_t *avr;
static int master = -1;
static int slave_open = 0;
static int reset_on_open = 1;
static int boot_ms = 300;
static double speed = 1.0;
static const int button_pins[5] = {2, 3, 4, 5, 7};
static int button_level[5] = {1, 1, 1, 1, 1};

/* Faults. */
static uint32_t drop_ppm, corrupt_ppm, dup_ppm;
static uint64_t rng = 88172645463325252ULL;
static unsigned long stat_overrun, stat_dropped, stat_corrupted, stat_duplicated, stat_rx;

/* Overrun model: bytes that arrived since interrupts were last seen enabled. The I flag
 * is sampled every 64..127 cycles (irregularly: a fixed period can lock onto the loop's
 * few-cycle cli() in millis() and see "off" every time); a byte arriving when it was
 * never seen on since the previous byte adds to a run, and the third of a run is lost. */
static int rx_pending_while_off;
static int irq_seen_on;
static uint32_t sample_lcg = 1;

/* WS2812 decoder. */
static int pin_level;
static avr_cycle_count_t rise_cycle, fall_cycle, frame_start;
static uint8_t led_bytes[MAX_LEDS * 3];
static unsigned nbits;
static unsigned bad_timing;
static unsigned long frames_out;

/* Wall-clock pacing and the reset-on-open hold. */
static struct timespec wall0;
static avr_cycle_count_t cycle0;
static double hold_until = 0;
static int reset_requested = 0;
static long unplug_ms = 0; /* requested by the control channel, done by the main loop */
static int trace_rx = 0;
static avr_cycle_count_t last_rx_cycle;

static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void emit(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int chance(uint32_t ppm) { return ppm && (rnd() % 1000000u) < ppm; }

/* ---- WS2812 ---- */

static void flush_leds(void) {
    if (!nbits) return;
    unsigned n = nbits / 24;
    char *hex = malloc(n * 6 + 1);
    for (unsigned i = 0; i < n; i++) /* wire order G R B -> print R G B */
        sprintf(hex + 6 * i, "%02x%02x%02x", led_bytes[3 * i + 1], led_bytes[3 * i], led_bytes[3 * i + 2]);
    hex[n * 6] = 0;
    emit("{\"ev\":\"leds\",\"start\":%llu,\"cycle\":%llu,\"n\":%u,\"extra_bits\":%u,\"bad_timing\":%u,\"rgb\":\"%s\"}",
         (unsigned long long)frame_start, (unsigned long long)(fall_cycle + LATCH_CYCLES), n, nbits % 24,
         bad_timing, hex);
    free(hex);
    frames_out++;
    nbits = 0;
    bad_timing = 0;
}

static void ws_pin(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    value = value ? 1 : 0;
    if ((int)value == pin_level) return;
    pin_level = value;
    avr_cycle_count_t now = avr->cycle;
    if (value) {
        if (nbits && now - fall_cycle >= LATCH_CYCLES) flush_leds();
        if (!nbits) frame_start = now;
        rise_cycle = now;
    } else {
        unsigned high = (unsigned)(now - rise_cycle);
        int bit = high >= 10;
        /* WS2812B: T0H 400 +- 150 ns (4..8 cycles), T1H 800 +- 150 ns (11..15 cycles). */
        if (bit ? (high < 11 || high > 15) : (high < 4 || high > 8)) bad_timing++;
        if (nbits && now - fall_cycle > 60 && (rise_cycle - fall_cycle) > 40) bad_timing++; /* low > 2.5 us mid-frame */
        if (nbits < MAX_LEDS * 24) {
            uint8_t *b = &led_bytes[nbits / 8];
            if (nbits % 8 == 0) *b = 0;
            *b |= (uint8_t)(bit << (7 - nbits % 8));
            nbits++;
        }
        fall_cycle = now;
    }
}

/* ---- pty ---- */

/* A button is a contact to GND that beats the internal pull-up. simavr 1.6 re-asserts
 * the pull-up level (PORT bit = 1) on every input pin at each write to PORTD, which the
 * WS2812 driver does twice per bit: a level raised once on the pin IRQ was "released"
 * by the next LED send, so a press made while the host kept the display busy never
 * lasted the 20 ms debounce. Declaring the button pins' levels as the port's external
 * drive (SET_EXTERNAL) makes every PORTD write re-assert the button level instead. */
static void set_button_levels(void) {
    avr_ioport_external_t ext = {.name = 'D', .mask = 0, .value = 0};
    for (int b = 0; b < 5; b++) {
        ext.mask |= 1u << button_pins[b];
        if (button_level[b]) ext.value |= 1u << button_pins[b];
    }
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('D'), &ext);
}

static void set_button(int b, int level) {
    button_level[b] = level;
    set_button_levels();
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), button_pins[b]), level);
}

static void drive_buttons(void) {
    /* Pin IRQs are filtered (an unchanged value is not passed on) but avr_reset() clears
     * PIND, so toggle to make the port see the level again. The firmware's 20 ms
     * debounce never notices the zero-length glitch. */
    set_button_levels();
    for (int b = 0; b < 5; b++) {
        avr_irq_t *irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), button_pins[b]);
        avr_raise_irq(irq, !button_level[b]);
        avr_raise_irq(irq, button_level[b]);
    }
}

static avr_cycle_count_t io_timer(avr_t *a, avr_cycle_count_t when, void *param);
static avr_cycle_count_t control_timer(avr_t *a, avr_cycle_count_t when, void *param);

static avr_cycle_count_t irq_sampler(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)param;
    if (a->sreg[S_I]) irq_seen_on = 1;
    sample_lcg = sample_lcg * 1103515245u + 12345u;
    return when + 64 + ((sample_lcg >> 16) & 63);
}

/* avr_reset() also empties simavr's cycle-timer list and resets the UART: set them up again. */
static void arm(void) {
    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP); /* no console echo, no usleep */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_cycle_timer_cancel(avr, io_timer, NULL);
    avr_cycle_timer_cancel(avr, control_timer, NULL);
    avr_cycle_timer_cancel(avr, irq_sampler, NULL);
    avr_cycle_timer_register(avr, BYTE_CYCLES, io_timer, NULL);
    avr_cycle_timer_register(avr, 64, irq_sampler, NULL);
    avr_cycle_timer_register(avr, CONTROL_CYCLES, control_timer, NULL);
    drive_buttons();
}

static void do_reset(void) {
    avr_reset(avr);
    for (int b = 0; b < 5; b++) button_level[b] = 1; /* pending release timers are gone */
    arm();
    rx_pending_while_off = irq_seen_on = 0;
    emit("{\"ev\":\"reset\",\"cycle\":%llu}", (unsigned long long)avr->cycle);
}

/* A new pseudo-terminal (the board "plugged in"); returns the slave name or NULL. */
static const char *link_path;
static const char *open_pty(void) {
    master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (master < 0 || grantpt(master) || unlockpt(master)) {
        perror("pbsim: pty");
        return NULL;
    }
    struct termios tio;
    tcgetattr(master, &tio);
    cfmakeraw(&tio);
    tcsetattr(master, TCSANOW, &tio);
    const char *slave = ptsname(master);
    /* Until a slave has been opened once the master never reports a hang-up, so open and
     * close it here: from now on POLLHUP means "no host has the port open". */
    int s = open(slave, O_RDWR | O_NOCTTY);
    if (s >= 0) close(s);
    if (link_path) {
        unlink(link_path);
        if (symlink(slave, link_path) != 0) perror("pbsim: symlink");
    }
    slave_open = 0;
    return slave;
}

static int pty_is_open(void) {
    if (master < 0) return 0;
    struct pollfd p = {.fd = master, .events = POLLIN};
    poll(&p, 1, 0);
    return !(p.revents & POLLHUP);
}

static void check_open(void) {
    int now_open = pty_is_open();
    if (now_open == slave_open) return;
    slave_open = now_open;
    emit("{\"ev\":\"%s\",\"cycle\":%llu}", now_open ? "open" : "close", (unsigned long long)avr->cycle);
    if (now_open && reset_on_open) hold_until = wall_now() + boot_ms / 1000.0;
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    if (!slave_open || hold_until || master < 0) return; /* nobody listening: the byte is gone */
    uint8_t b = (uint8_t)value;
    if (chance(drop_ppm)) { stat_dropped++; return; }
    if (chance(corrupt_ppm)) { b ^= (uint8_t)(1u << (rnd() % 8)); stat_corrupted++; }
    int n = chance(dup_ppm) ? 2 : 1;
    if (n == 2) stat_duplicated++;
    for (int i = 0; i < n; i++)
        if (write(master, &b, 1) < 0 && errno != EAGAIN) break;
}

static int dup_pending = -1;

static avr_cycle_count_t io_timer(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)param;
    check_open();
    /* WS2812 latch: the line has been low long enough. */
    if (nbits && !pin_level && a->cycle - fall_cycle >= LATCH_CYCLES) flush_leds();
    if (slave_open && !hold_until) {
        int have = -1;
        uint8_t b;
        if (dup_pending >= 0) {
            have = dup_pending;
            dup_pending = -1;
        } else if (read(master, &b, 1) == 1) {
            have = b;
            if (chance(dup_ppm)) { dup_pending = b; stat_duplicated++; }
        }
        if (have >= 0) {
            b = (uint8_t)have;
            stat_rx++;
            int interrupts_on = a->sreg[S_I];
            if (interrupts_on || irq_seen_on) rx_pending_while_off = 0;
            irq_seen_on = 0;
            if (chance(drop_ppm)) {
                stat_dropped++;
            } else if (!interrupts_on && ++rx_pending_while_off > 2) {
                stat_overrun++; /* UDR + 1 FIFO byte full: the shift register is overwritten */
            } else {
                if (chance(corrupt_ppm)) { b ^= (uint8_t)(1u << (rnd() % 8)); stat_corrupted++; }
                /* --trace-rx: the cycle at which a burst of host bytes starts (latency origin). */
                if (trace_rx && a->cycle - last_rx_cycle > 3 * BYTE_CYCLES)
                    emit("{\"ev\":\"rx\",\"cycle\":%llu}", (unsigned long long)a->cycle);
                last_rx_cycle = a->cycle;
                avr_raise_irq(avr_io_getirq(a, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT), b);
            }
        }
    }
    /* Keep simulated time at `speed` x wall time. */
    if (speed > 0) {
        double sim_s = (double)(a->cycle - cycle0) / F_CPU;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double wall_s = (t.tv_sec - wall0.tv_sec) + (t.tv_nsec - wall0.tv_nsec) * 1e-9;
        double ahead = sim_s / speed - wall_s;
        if (ahead > 0.002) {
            struct timespec d = {0, (long)(ahead * 1e9)};
            nanosleep(&d, NULL);
        } else if (ahead < -0.2) {
            /* We fell behind (busy machine): do not try to catch up in a burst. */
            wall0 = t;
            cycle0 = a->cycle;
        }
    }
    return when + BYTE_CYCLES;
}

/* ---- control channel ---- */

static avr_cycle_count_t release_timer(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)when;
    int b = (int)(intptr_t)param;
    set_button(b, 1);
    emit("{\"ev\":\"released\",\"button\":%d,\"cycle\":%llu}", b, (unsigned long long)a->cycle);
    return 0;
}

/* "at CYCLE" waits: the host sleeps on one event instead of asking the clock every few ms.
 * Checked after every instruction (a compare while none is pending); a reset keeps them,
 * the clock runs on through it. */
#define MAX_WAITS 16
static unsigned long long waits[MAX_WAITS];
static int n_waits;

static void check_waits(void) {
    unsigned long long now = (unsigned long long)avr->cycle;
    for (int i = 0; i < n_waits;) {
        if (waits[i] <= now) {
            emit("{\"ev\":\"reached\",\"at\":%llu,\"cycle\":%llu}", waits[i], now);
            waits[i] = waits[--n_waits];
        } else {
            i++;
        }
    }
}

static char ctl_buf[256];
static size_t ctl_len;

static void control_line(char *line) {
    char cmd[32] = {0};
    long a1 = -1, a2 = 0, a3 = 0, a4 = 0;
    int n = sscanf(line, "%31s %ld %ld %ld %ld", cmd, &a1, &a2, &a3, &a4);
    if (n < 1) return;
    unsigned long long cyc = (unsigned long long)avr->cycle;
    if ((!strcmp(cmd, "press") || !strcmp(cmd, "release")) && a1 >= 0 && a1 < 5) {
        set_button((int)a1, !strcmp(cmd, "release"));
        /* press B MS: release after MS simulated milliseconds (independent of wall speed). */
        if (!button_level[a1] && n >= 3 && a2 > 0)
            avr_cycle_timer_register(avr, (avr_cycle_count_t)a2 * (F_CPU / 1000), release_timer, (void *)(intptr_t)a1);
    } else if (!strcmp(cmd, "reset")) {
        /* Not from inside a cycle timer: the main loop resets between avr_run() calls. */
        reset_requested = 1;
        if (a1 > 0) hold_until = wall_now() + a1 / 1000.0;
    } else if (!strcmp(cmd, "unplug") && a1 > 0) {
        unplug_ms = a1;
    } else if (!strcmp(cmd, "fault") && n >= 4) {
        drop_ppm = (uint32_t)a1;
        corrupt_ppm = (uint32_t)a2;
        dup_ppm = (uint32_t)a3;
        if (n >= 5) rng = (uint64_t)a4 * 2654435761ULL + 1;
    } else if (!strcmp(cmd, "peek") && a1 >= 0 && a1 < 0x900 && a2 > 0 && a1 + a2 <= 0x900) {
        /* peek ADDR N: N bytes of data memory (SRAM addresses as avr-nm shows them, minus
         * 0x800000), e.g. to watch the firmware's event ring from a test or a debugger. */
        char hex[2 * 64 + 1] = {0};
        for (long i = 0; i < a2 && i < 64; i++) sprintf(hex + 2 * i, "%02x", avr->data[a1 + i]);
        emit("{\"ev\":\"peek\",\"addr\":%ld,\"cycle\":%llu,\"hex\":\"%s\"}", a1, cyc, hex);
    } else if (!strcmp(cmd, "stats")) {
        emit("{\"ev\":\"stats\",\"cycle\":%llu,\"rx\":%lu,\"overrun\":%lu,\"dropped\":%lu,"
             "\"corrupted\":%lu,\"duplicated\":%lu,\"frames\":%lu}",
             cyc, stat_rx, stat_overrun, stat_dropped, stat_corrupted, stat_duplicated, frames_out);
    } else if (!strcmp(cmd, "at") && n >= 2 && a1 >= 0 && n_waits < MAX_WAITS) {
        waits[n_waits++] = (unsigned long long)a1; /* reported by check_waits, maybe at once */
    } else if (!strcmp(cmd, "quit")) {
        emit("{\"ev\":\"quit\",\"cycle\":%llu}", cyc);
        _exit(0); /* simavr teardown can hang; nothing to flush */
    } else if (strcmp(cmd, "cycle") != 0) {
        emit("{\"ev\":\"error\",\"line\":\"%s\"}", cmd);
        return;
    }
    emit("{\"ev\":\"ok\",\"cmd\":\"%s\",\"cycle\":%llu}", cmd, cyc);
}

static void poll_control(void) {
    for (;;) {
        ssize_t r = read(0, ctl_buf + ctl_len, sizeof ctl_buf - 1 - ctl_len);
        if (r == 0) _exit(0); /* the test went away */
        if (r < 0) return;
        ctl_len += (size_t)r;
        char *nl;
        while ((nl = memchr(ctl_buf, '\n', ctl_len))) {
            *nl = 0;
            control_line(ctl_buf);
            size_t used = (size_t)(nl - ctl_buf) + 1;
            memmove(ctl_buf, nl + 1, ctl_len - used);
            ctl_len -= used;
        }
        if (ctl_len >= sizeof ctl_buf - 1) ctl_len = 0;
    }
}

static avr_cycle_count_t control_timer(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a;
    (void)param;
    poll_control();
    return when + CONTROL_CYCLES;
}

int main(int argc, char **argv) {
    const char *elf = NULL, *link = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc) link = argv[++i];
        else if (!strcmp(argv[i], "--boot-ms") && i + 1 < argc) boot_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--speed") && i + 1 < argc) speed = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-reset-on-open")) reset_on_open = 0;
        else if (!strcmp(argv[i], "--trace-rx")) trace_rx = 1;
        else elf = argv[i];
    }
    if (!elf) {
        fprintf(stderr, "usage: pbsim FIRMWARE.elf [--link PATH] [--boot-ms N] [--speed X] [--no-reset-on-open] [--trace-rx]\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    /* simavr logs "Loaded ..." to stdout, which carries only JSON lines: mute it. */
    fflush(stdout);
    int saved_stdout = dup(1), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    int bad_elf = elf_read_firmware(elf, &fw) != 0;
    if (!bad_elf) {
        avr = avr_make_mcu_by_name("atmega328p");
        if (avr) {
            avr_init(avr);
            fw.frequency = F_CPU;
            avr_load_firmware(avr, &fw);
        }
    }
    fflush(stdout);
    dup2(saved_stdout, 1);
    close(devnull);
    close(saved_stdout);
    if (bad_elf || !avr) {
        fprintf(stderr, "pbsim: cannot read %s\n", elf);
        return 1;
    }

    link_path = link;
    const char *slave = open_pty();
    if (!slave) return 1;
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);

    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 6), ws_pin, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
    arm();

    slave_open = pty_is_open();
    emit("{\"ev\":\"ready\",\"pty\":\"%s\",\"f_cpu\":%lu,\"pid\":%d}", slave, F_CPU, (int)getpid());
    clock_gettime(CLOCK_MONOTONIC, &wall0);
    cycle0 = avr->cycle;
    for (;;) {
        if (hold_until) {
            /* The bootloader pause: the MCU is silent, host bytes vanish. */
            char junk[64];
            while (read(master, junk, sizeof junk) > 0) {}
            poll_control();
            if (wall_now() < hold_until) {
                usleep(1000);
                check_open();
                continue;
            }
            hold_until = 0;
            do_reset();
            clock_gettime(CLOCK_MONOTONIC, &wall0);
            cycle0 = avr->cycle;
        }
        if (reset_requested) {
            reset_requested = 0;
            do_reset();
        }
        if (unplug_ms) {
            /* USB unplugged: the port vanishes (the host's open file gets a hang-up), the
             * MCU loses power; after unplug_ms a new port appears (new name, same --link). */
            double until = wall_now() + unplug_ms / 1000.0;
            unplug_ms = 0;
            close(master);
            master = -1;
            if (link_path) unlink(link_path);
            slave_open = 0;
            hold_until = 0;
            emit("{\"ev\":\"unplug\",\"cycle\":%llu}", (unsigned long long)avr->cycle);
            while (wall_now() < until) {
                poll_control();
                usleep(1000);
            }
            const char *slave = open_pty();
            if (!slave) _exit(1);
            do_reset(); /* power-on */
            clock_gettime(CLOCK_MONOTONIC, &wall0);
            cycle0 = avr->cycle;
            emit("{\"ev\":\"replug\",\"pty\":\"%s\",\"cycle\":%llu}", slave, (unsigned long long)avr->cycle);
        }
        int state = avr_run(avr);
        if (n_waits) check_waits();
        if (state == cpu_Done || state == cpu_Crashed) {
            emit("{\"ev\":\"halt\",\"state\":%d,\"cycle\":%llu}", state, (unsigned long long)avr->cycle);
            _exit(3);
        }
    }
}
