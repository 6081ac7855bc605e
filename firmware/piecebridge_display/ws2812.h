/*
 * A minimal WS2812B driver for a 16 MHz ATmega328P, data on PD6 (Arduino pin D6).
 *
 * Bit timing, counted in CPU cycles at 16 MHz (62.5 ns):
 *   0 bit: high 6 cycles (375 ns), low 14 (875 ns)      datasheet: T0H 400 +- 150 ns
 *   1 bit: high 13 cycles (812 ns), low 7 (438 ns)      datasheet: T1H 800 +- 150 ns
 *   bit period 20 cycles (1.25 us); the last bit of each byte is 3 cycles longer
 *   (byte fetch), well inside the +-600 ns period tolerance.
 * Interrupts are off while sending (80 LEDs: ~2.5 ms), so the caller must only
 * send while the serial line is idle (the protocol is ACK-paced for that reason).
 * The chain latches after the line stays low for > 50 us (ws2812_show waits 60 us).
 */
#ifndef WS2812_H
#define WS2812_H

#include <stdint.h>

#define WS2812_PORT PORTD
#define WS2812_DDR DDRD
#define WS2812_BIT 6 /* PD6 = Arduino D6 */

#ifdef __cplusplus
extern "C" {
#endif
void ws2812_init(void);
/* Send `n` bytes (G, R, B per LED) and wait for the latch. */
void ws2812_show(const uint8_t *grb, uint16_t n);
#ifdef __cplusplus
}
#endif
#endif
