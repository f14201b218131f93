/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing the command line's values, and formatting values for people.
 * No I/O: every parser returns 0, or -1 with *why saying what is wrong.
 */
#ifndef _ER2BC_LIB_PARSE_H
#define _ER2BC_LIB_PARSE_H

#include <stdint.h>
#include <stddef.h>

/*
 * A rate, in bits/s: a decimal number (fractions allowed) and a unit, tc's:
 * bit, kbit, mbit, gbit, tbit (powers of 1000), kibit .. tibit (of 1024),
 * the same with bps for bytes/s; no unit is bit. Units ignore case. Bits
 * below 1 are dropped (1.5bit is 1).
 */
int parse_rate(const char *s, uint64_t *bps, const char **why);

/*
 * A time, in microseconds: a decimal number and s, ms or us (or sec, secs,
 * msec, msecs, usec, usecs); bare numbers are in units of @unit_us.
 */
int parse_time(const char *s, uint64_t unit_us, uint64_t *us, const char **why);

/*
 * A qdisc handle, major:0 (minor 0, major not 0): tc's "1:", "1:0",
 * "ffff:" (hex), or the raw value with 0x, "0x10000".
 */
int parse_handle(const char *s, uint32_t *handle, const char **why);

/*
 * A size, in bytes: a decimal number and a unit: b, k, kb, kib, m, mb, mib,
 * g, gb, gib (k, m and g are powers of 1024, as tc takes sizes; units
 * ignore case); no unit is bytes. Fractions of a byte are refused
 * (1.5k is 1536, 0.5 is not a size).
 */
int parse_size(const char *s, uint64_t *bytes, const char **why);

/* plain decimal numbers, no sign */
int parse_u64(const char *s, uint64_t *v, const char **why);
int parse_u32(const char *s, uint32_t *v, const char **why);
/* the same, or hex with 0x: 16, 0x10 */
int parse_u32_hex(const char *s, uint32_t *v, const char **why);

/* long enough for anything the fmt_* functions write */
#define FMT_LEN 32

/* tc's way: 0bit, 999bit, 400Kbit, 1.2Mbit, 1.235Gbit (at most 4 digits) */
char *fmt_rate(char *buf, uint64_t bps);
/* the same with a sign: -200Kbit */
char *fmt_srate(char *buf, int64_t bps);
/* microseconds: 250us, 1.5ms, 100ms, 2s */
char *fmt_time(char *buf, uint64_t us);
/* nanoseconds in microseconds, one decimal at most: 12.3us */
char *fmt_ns_us(char *buf, uint64_t ns);
/* millionths as a decimal with three digits: 0.982, 1.000 */
char *fmt_ratio(char *buf, uint64_t millionths);
/* bytes, for people, 3 digits at most: 0B, 1023B, 1.5KiB, 64KiB, 1.18MiB */
char *fmt_size(char *buf, uint64_t bytes);
/* bytes exactly, so that they parse back: 64KiB, 1MiB, 65535B */
char *fmt_size_exact(char *buf, uint64_t bytes);
/* microseconds in milliseconds, always one decimal: 0.0ms, 23.5ms */
char *fmt_us_ms(char *buf, uint64_t us);
/* as tc writes handles: 1:, 1:10, :10 */
char *fmt_handle(char *buf, uint32_t handle);

#endif /* _ER2BC_LIB_PARSE_H */
