// SPDX-License-Identifier: GPL-2.0
/* From two samples to L(t), R(t-1) and the interval (interval.h). */
#include <string.h>

#include "interval.h"

void interval_init(struct interval *iv)
{
	memset(iv, 0, sizeof(*iv));
}

void interval_miss(struct interval *iv)
{
	if (iv->missed < UINT32_MAX)
		iv->missed++;
}

uint64_t rate_bps(uint64_t bytes, uint64_t ns)
{
	unsigned __int128 r;

	if (!ns)
		return 0;
	r = (unsigned __int128)bytes * 8 * 1000000000ULL / ns;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* new - old went backwards: a delta of 2^63 or more */
static bool backwards(uint64_t delta)
{
	return delta >> 63;
}

/*
 * the qdisc's side of @e: what it sent over its own time, and how long
 * its cap held a backlog back; none if a count went backwards or the
 * time stood still (the loss rule then goes as the paper writes it)
 */
static void load_delta(const struct interval *iv, const struct sample *s,
		       struct iv_estimate *e)
{
	uint64_t dbs = s->bs - iv->base.bs, dts = s->ts - iv->base.ts;
	uint64_t dh = s->held - iv->base.held;

	if (!dts || backwards(dts) || backwards(dbs))
		return;
	e->has_load = true;
	e->sent_rate = rate_bps(dbs, dts);
	e->sent_dt_ns = dts;
	e->has_held = s->has_held && iv->base.has_held && !backwards(dh);
	e->held_ns = e->has_held ? dh : 0;
}

/*
 * B_r's delta credited to the path: never more than the qdisc sent, plus
 * IV_PAD_BYTES for each packet of it that arrived. Packets moved across
 * the cut are not credited either: in the interval they arrive in they
 * cannot be told from traffic the qdisc did not send, and one that gives
 * them back would let a spoofer past the bottleneck add its own bytes to
 * R up to the slack every interval. So that traffic raises R by no more
 * than what the path lost of the qdisc's own; without the qdisc's side of
 * the counts the bytes are taken as they are.
 */
static void credit_bytes(struct iv_estimate *e, uint64_t dbs)
{
	uint64_t pkts = e->received < e->sent ? e->received : e->sent;
	unsigned __int128 c = (unsigned __int128)dbs + (unsigned __int128)IV_PAD_BYTES * pkts;
	uint64_t cap = c > UINT64_MAX ? UINT64_MAX : (uint64_t)c;

	if (e->bytes > cap) {
		e->uncredited = e->bytes - cap;
		e->bytes = cap;
	}
}

/*
 * T_r moved by IV_CLOCK_NS more or less than the sending qdisc's own
 * clock did between the same two requests: the one-way delay cannot
 * change by that much, so the samples come from two responders' clocks
 * (a standby gateway took over, its meter's counts ahead). Only with the
 * qdisc's side of the counts (T_s went forward).
 */
static bool other_clock(const struct interval *iv, const struct sample *s, uint64_t dtr)
{
	uint64_t dts = s->ts - iv->base.ts;

	if (!s->ts || !iv->base.ts || !dts || backwards(dts))
		return false;
	return dtr > dts ? dtr - dts > IV_CLOCK_NS : dts - dtr > IV_CLOCK_NS;
}

static void rebase(struct interval *iv, const struct sample *s)
{
	iv->base = *s;
	iv->have_base = true;
	iv->missed = 0;
}

enum iv_result interval_feed(struct interval *iv, const struct sample *s,
			     struct iv_estimate *e, unsigned int *why)
{
	uint64_t dps, dpr, dbr, dtr, us;

	memset(e, 0, sizeof(*e));
	*why = 0;
	if (!iv->have_base) {
		rebase(iv, s);
		return IV_FIRST;
	}
	dps = s->ps - iv->base.ps;
	dpr = s->pr - iv->base.pr;
	dbr = s->br - iv->base.br;
	dtr = s->tr - iv->base.tr;

	if (backwards(dps))
		*why |= IV_BACK_PS;
	if (backwards(dpr))
		*why |= IV_BACK_PR;
	if (backwards(dbr))
		*why |= IV_BACK_BR;
	if (backwards(dtr))
		*why |= IV_BACK_TR;
	if (!*why && other_clock(iv, s, dtr))
		*why |= IV_CLOCK;
	if (*why) {
		rebase(iv, s);
		return IV_DISCONT;
	}
	if (!dtr)
		return IV_ZERO_DT;

	e->sent = dps;
	e->received = dpr;
	if (dpr > dps) {
		e->excess = dpr - dps;
		e->foreign = e->excess > IV_EXCESS_SLACK + (dps >> IV_EXCESS_SHIFT);
	} else {
		e->lost = dps - dpr;
	}
	e->bytes = dbr;
	e->dt_ns = dtr;
	us = dtr / 1000;
	e->interval_us = !us ? 1 : us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	e->missed = iv->missed;
	load_delta(iv, s, e);
	if (e->has_load)
		credit_bytes(e, s->bs - iv->base.bs);
	e->recv_rate = rate_bps(e->bytes, dtr);
	rebase(iv, s);
	return IV_ESTIMATE;
}
