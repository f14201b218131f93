// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing the command line's values, and formatting values for people.
 *
 * Numbers are parsed by hand, in integers, so that "1.1mbit" is exactly
 * 1100000 and nothing passes through a double on its way to the kernel.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* a decimal number: ipart.frac, frac having fdigits digits */
struct decimal {
	uint64_t ipart;
	uint64_t frac;
	unsigned int fdigits;
};

/* the most fraction digits kept; those beyond cannot matter to a u64 */
#define FRAC_DIGITS_MAX 18

static const uint64_t pow10_tab[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
};

/*
 * DIGITS[.DIGITS] at the start of s; *end is where it stopped. No sign, no
 * exponent, no leading dot.
 */
static int parse_decimal(const char *s, struct decimal *d, const char **end,
			 const char **why)
{
	const char *p = s;

	memset(d, 0, sizeof(*d));
	if (!*p) {
		*why = "empty";
		return -1;
	}
	if (*p == '-') {
		*why = "negative";
		return -1;
	}
	if (!isdigit((unsigned char)*p)) {
		*why = "not a number";
		return -1;
	}
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int digit = *p - '0';

		if (d->ipart > (UINT64_MAX - digit) / 10) {
			*why = "too large";
			return -1;
		}
		d->ipart = d->ipart * 10 + digit;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p)) {
			*why = "not a number";
			return -1;
		}
		for (; isdigit((unsigned char)*p); p++) {
			if (d->fdigits == FRAC_DIGITS_MAX)
				continue;
			d->frac = d->frac * 10 + (*p - '0');
			d->fdigits++;
		}
	}
	*end = p;
	return 0;
}

/* d * mul, the fraction of a unit dropped; -1 if it does not fit a u64 */
static int scale(const struct decimal *d, uint64_t mul, uint64_t *out)
{
	unsigned __int128 v;

	v = (unsigned __int128)d->ipart * mul;
	v += (unsigned __int128)d->frac * mul / pow10_tab[d->fdigits];
	if (v > UINT64_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

struct unit {
	const char *name;
	uint64_t mul;
};

#define KILO	1000ULL
#define KIBI	1024ULL

static const struct unit rate_units[] = {
	{ "",		1 },
	{ "bit",	1 },
	{ "kbit",	KILO },
	{ "mbit",	KILO * KILO },
	{ "gbit",	KILO * KILO * KILO },
	{ "tbit",	KILO * KILO * KILO * KILO },
	{ "kibit",	KIBI },
	{ "mibit",	KIBI * KIBI },
	{ "gibit",	KIBI * KIBI * KIBI },
	{ "tibit",	KIBI * KIBI * KIBI * KIBI },
	{ "bps",	8 },
	{ "kbps",	8 * KILO },
	{ "mbps",	8 * KILO * KILO },
	{ "gbps",	8 * KILO * KILO * KILO },
	{ "tbps",	8 * KILO * KILO * KILO * KILO },
	{ "kibps",	8 * KIBI },
	{ "mibps",	8 * KIBI * KIBI },
	{ "gibps",	8 * KIBI * KIBI * KIBI },
	{ "tibps",	8 * KIBI * KIBI * KIBI * KIBI },
	{ NULL,		0 }
};

static const struct unit time_units[] = {
	{ "s",		1000000 },
	{ "sec",	1000000 },
	{ "secs",	1000000 },
	{ "ms",		1000 },
	{ "msec",	1000 },
	{ "msecs",	1000 },
	{ "us",		1 },
	{ "usec",	1 },
	{ "usecs",	1 },
	{ NULL,		0 }
};

/* sizes as tc takes them: k, m, g are powers of 1024, with b or not */
static const struct unit size_units[] = {
	{ "",		1 },
	{ "b",		1 },
	{ "k",		KIBI },
	{ "kb",		KIBI },
	{ "kib",	KIBI },
	{ "m",		KIBI * KIBI },
	{ "mb",		KIBI * KIBI },
	{ "mib",	KIBI * KIBI },
	{ "g",		KIBI * KIBI * KIBI },
	{ "gb",		KIBI * KIBI * KIBI },
	{ "gib",	KIBI * KIBI * KIBI },
	{ NULL,		0 }
};

static const struct unit *find_unit(const struct unit *units, const char *name)
{
	for (; units->name; units++)
		if (!strcasecmp(units->name, name))
			return units;
	return NULL;
}

/* the unit's name in the error: static, as *why outlives the call */
static const char *bad_unit(const char *unit)
{
	static char buf[80];

	snprintf(buf, sizeof(buf), "unknown unit \"%.40s\"", unit);
	return buf;
}

static int parse_with_units(const char *s, const struct unit *units,
			    uint64_t bare, uint64_t *v, const char **why)
{
	const struct unit *u;
	struct decimal d;
	const char *end;
	uint64_t mul;

	if (parse_decimal(s, &d, &end, why))
		return -1;
	if (*end) {
		u = find_unit(units, end);
		if (!u) {
			*why = bad_unit(end);
			return -1;
		}
		mul = u->mul;
	} else {
		mul = bare;
	}
	if (scale(&d, mul, v)) {
		*why = "too large";
		return -1;
	}
	return 0;
}

int parse_rate(const char *s, uint64_t *bps, const char **why)
{
	return parse_with_units(s, rate_units, 1, bps, why);
}

int parse_time(const char *s, uint64_t unit_us, uint64_t *us, const char **why)
{
	return parse_with_units(s, time_units, unit_us, us, why);
}

int parse_size(const char *s, uint64_t *bytes, const char **why)
{
	const struct unit *u;
	struct decimal d;
	const char *end;

	if (parse_decimal(s, &d, &end, why))
		return -1;
	u = find_unit(size_units, end);
	if (!u) {
		*why = bad_unit(end);
		return -1;
	}
	/* frac * mul fits: frac < 10^18, mul <= 2^30 */
	if ((unsigned __int128)d.frac * u->mul % pow10_tab[d.fdigits]) {
		*why = "not a whole number of bytes";
		return -1;
	}
	if (scale(&d, u->mul, bytes)) {
		*why = "too large";
		return -1;
	}
	return 0;
}

int parse_u64(const char *s, uint64_t *v, const char **why)
{
	struct decimal d;
	const char *end;

	if (parse_decimal(s, &d, &end, why))
		return -1;
	if (*end || d.fdigits) {
		*why = "not a whole number";
		return -1;
	}
	*v = d.ipart;
	return 0;
}

int parse_u32(const char *s, uint32_t *v, const char **why)
{
	uint64_t v64;

	if (parse_u64(s, &v64, why))
		return -1;
	if (v64 > UINT32_MAX) {
		*why = "too large";
		return -1;
	}
	*v = (uint32_t)v64;
	return 0;
}

/* hex digits at *p, at most 8 of them that count; *p moves past them all */
static int parse_hex(const char **p, uint32_t *v, const char **why)
{
	unsigned int n = 0;

	*v = 0;
	for (; isxdigit((unsigned char)**p); (*p)++) {
		char c = tolower((unsigned char)**p);

		if (*v > 0x0fffffff) {
			*why = "too large";
			return -1;
		}
		*v = *v << 4 | (uint32_t)(isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
		n++;
	}
	return n ? 0 : -1;
}

int parse_u32_hex(const char *s, uint32_t *v, const char **why)
{
	const char *p = s + 2;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return parse_u32(s, v, why);
	if (parse_hex(&p, v, why)) {
		if (p == s + 2)
			*why = "not a number";
		return -1;
	}
	if (*p) {
		*why = "not a number";
		return -1;
	}
	return 0;
}

int parse_handle(const char *s, uint32_t *handle, const char **why)
{
	const char *p = s;
	uint32_t maj, min = 0, h;

	*why = "not a qdisc handle (e.g. 1:)";
	if (!*s) {
		*why = "empty";
		return -1;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		if (parse_hex(&p, &h, why) || *p)
			return -1;
	} else {
		if (parse_hex(&p, &maj, why) || *p != ':')
			return -1;
		p++;
		if (*p && (parse_hex(&p, &min, why) || *p))
			return -1;
		if (maj > 0xffff) {
			*why = "major above ffff";
			return -1;
		}
		if (min > 0xffff) {
			*why = "minor above ffff";
			return -1;
		}
		h = maj << 16 | min;
	}
	if (h & 0xffff) {
		*why = "minor must be 0 (a qdisc's handle is MAJ:)";
		return -1;
	}
	if (!h) {
		*why = "major must not be 0";
		return -1;
	}
	*handle = h;
	return 0;
}

/*
 * v / div with at most dec decimals, rounded, trailing zeros dropped, and
 * the unit. div is at most 2^40 and dec 3, so nothing below overflows.
 */
static char *fmt_fixed(char *buf, uint64_t v, uint64_t div, unsigned int dec,
		       const char *unit)
{
	uint64_t q = v / div, r = v % div, p = pow10_tab[dec], f;
	int n;

	f = (r * p + div / 2) / div;
	if (f == p) {
		q++;
		f = 0;
	}
	if (!f) {
		snprintf(buf, FMT_LEN, "%llu%s", (unsigned long long)q, unit);
		return buf;
	}
	while (f % 10 == 0) {
		f /= 10;
		dec--;
	}
	n = (int)dec;
	snprintf(buf, FMT_LEN, "%llu.%0*llu%s", (unsigned long long)q, n,
		 (unsigned long long)f, unit);
	return buf;
}

char *fmt_rate(char *buf, uint64_t bps)
{
	static const char *const units[] = { "bit", "Kbit", "Mbit", "Gbit", "Tbit" };
	unsigned int i = 0, dec;
	uint64_t div = 1, q;

	while (i < 4 && bps / div >= 1000) {
		div *= 1000;
		i++;
	}
	if (!i)
		return fmt_fixed(buf, bps, 1, 0, units[0]);
	q = bps / div;
	dec = q < 10 ? 3 : q < 100 ? 2 : q < 1000 ? 1 : 0;
	/* 999.96Kbit would round to 1000Kbit: 1Mbit, then */
	if (i < 4 && q == 999 &&
	    (bps % div) * pow10_tab[dec] + div / 2 >= div * pow10_tab[dec]) {
		div *= 1000;
		i++;
		dec = 3;
	}
	return fmt_fixed(buf, bps, div, dec, units[i]);
}

char *fmt_srate(char *buf, int64_t bps)
{
	uint64_t mag = bps < 0 ? -(uint64_t)bps : (uint64_t)bps;

	if (bps >= 0)
		return fmt_rate(buf, mag);
	buf[0] = '-';
	fmt_rate(buf + 1, mag);
	return buf;
}

char *fmt_time(char *buf, uint64_t us)
{
	if (us >= 1000000)
		return fmt_fixed(buf, us, 1000000, 3, "s");
	if (us >= 1000)
		return fmt_fixed(buf, us, 1000, 3, "ms");
	return fmt_fixed(buf, us, 1, 0, "us");
}

char *fmt_ns_us(char *buf, uint64_t ns)
{
	return fmt_fixed(buf, ns, 1000, 1, "us");
}

#define SIZE_UNITS 5

static const char *const size_names[SIZE_UNITS] = { "B", "KiB", "MiB", "GiB", "TiB" };

char *fmt_size(char *buf, uint64_t bytes)
{
	unsigned int i = 0, dec;
	uint64_t div = 1, q, r, p;

	while (i < SIZE_UNITS - 1 && bytes / div >= KIBI) {
		div *= KIBI;
		i++;
	}
	if (!i)
		return fmt_fixed(buf, bytes, 1, 0, size_names[0]);
	q = bytes / div;
	r = bytes % div;
	dec = q < 10 ? 2 : q < 100 ? 1 : 0;
	/* 1023.6KiB would round to 1024KiB: 1MiB, then */
	p = pow10_tab[dec];
	if (i < SIZE_UNITS - 1 && q == KIBI - 1 && r * p + div / 2 >= div * p) {
		div *= KIBI;
		i++;
		dec = 2;
	}
	return fmt_fixed(buf, bytes, div, dec, size_names[i]);
}

char *fmt_size_exact(char *buf, uint64_t bytes)
{
	uint64_t div = 1;
	unsigned int i = 0;

	while (i < SIZE_UNITS - 1 && bytes && !(bytes % (div * KIBI))) {
		div *= KIBI;
		i++;
	}
	snprintf(buf, FMT_LEN, "%llu%s", (unsigned long long)(bytes / div), size_names[i]);
	return buf;
}

char *fmt_us_ms(char *buf, uint64_t us)
{
	uint64_t tenths = us / 100 + (us % 100 >= 50);

	snprintf(buf, FMT_LEN, "%llu.%llums", (unsigned long long)(tenths / 10),
		 (unsigned long long)(tenths % 10));
	return buf;
}

char *fmt_ratio(char *buf, uint64_t millionths)
{
	uint64_t t = millionths / 1000 + (millionths % 1000 >= 500);

	snprintf(buf, FMT_LEN, "%llu.%03llu", (unsigned long long)(t / 1000),
		 (unsigned long long)(t % 1000));
	return buf;
}

char *fmt_handle(char *buf, uint32_t handle)
{
	uint32_t maj = handle >> 16, min = handle & 0xffff;

	if (!min)
		snprintf(buf, FMT_LEN, "%x:", maj);
	else if (!maj)
		snprintf(buf, FMT_LEN, ":%x", min);
	else
		snprintf(buf, FMT_LEN, "%x:%x", maj, min);
	return buf;
}
