/* WS2812B driver: see ws2812.h for pin and timing. */
#include "ws2812.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay.h>

#if F_CPU != 16000000UL
#error "ws2812.c is cycle-counted for 16 MHz"
#endif

void ws2812_init(void) {
    WS2812_DDR |= (1 << WS2812_BIT);
    WS2812_PORT &= (uint8_t) ~(1 << WS2812_BIT);
}

void ws2812_show(const uint8_t *grb, uint16_t n) {
    if (n == 0) return;
    uint8_t sreg = SREG;
    cli();
    uint8_t hi = WS2812_PORT | (1 << WS2812_BIT);
    uint8_t lo = WS2812_PORT & (uint8_t) ~(1 << WS2812_BIT);
    uint8_t byte = *grb++;
    uint8_t bits = 8;
    /* Cycle numbers: c0 is the `out hi` that starts a bit; an `out` takes effect at
     * the end of its cycle, so high time = (cycle of out lo) - (cycle of out hi). */
    asm volatile(
        "1:                      \n\t"
        "out  %[port], %[hi]     \n\t" /* c0      line high                         */
        "nop                     \n\t" /* c1                                        */
        "nop                     \n\t" /* c2                                        */
        "nop                     \n\t" /* c3                                        */
        "nop                     \n\t" /* c4                                        */
        "sbrs %[byte], 7         \n\t" /* c5      bit set: skip (2 cycles)          */
        "out  %[port], %[lo]     \n\t" /* c6      0 bit: low after 6 cycles         */
        "lsl  %[byte]            \n\t" /* c7                                        */
        "dec  %[bits]            \n\t" /* c8      Z = byte done                     */
        "nop                     \n\t" /* c9                                        */
        "nop                     \n\t" /* c10                                       */
        "nop                     \n\t" /* c11                                       */
        "nop                     \n\t" /* c12                                       */
        "out  %[port], %[lo]     \n\t" /* c13     1 bit: low after 13 cycles        */
        "breq 2f                 \n\t" /* c14     (2 cycles when taken)             */
        "nop                     \n\t" /* c15                                       */
        "nop                     \n\t" /* c16                                       */
        "nop                     \n\t" /* c17                                       */
        "rjmp 1b                 \n\t" /* c18-19  next bit at c20                   */
        "2:                      \n\t"
        "ld   %[byte], %a[ptr]+  \n\t" /* c16-17  (a read past the end is harmless) */
        "ldi  %[bits], 8         \n\t" /* c18                                       */
        "sbiw %[count], 1        \n\t" /* c19-20                                    */
        "brne 1b                 \n\t" /* c21-22  next byte at c23                  */
        : [byte] "+r"(byte), [bits] "+d"(bits), [count] "+w"(n), [ptr] "+e"(grb)
        : [port] "I"(_SFR_IO_ADDR(WS2812_PORT)), [hi] "r"(hi), [lo] "r"(lo));
    SREG = sreg;
    _delay_us(60); /* latch */
}
