// SPDX-License-Identifier: GPL-2.0
/* The dense delay signal's bookkeeping (dense.h). */
#include <string.h>

#include "dense.h"

void dense_init(struct dense *d, uint32_t first_seq)
{
	memset(d, 0, sizeof(*d));
	d->first_key = first_seq;
}

void dense_rekey(struct dense *d, uint32_t first_seq)
{
	d->first_key = first_seq;
}

void dense_sent(struct dense *d, uint32_t seq, uint64_t now)
{
	d->out[seq % DENSE_OUT] = (struct dense_out){
		.seq = seq,
		.used = true,
		.sent_ns = now,
	};
	d->sent++;
}

void dense_stamp(struct dense *d, uint32_t key, uint64_t tx_ns, uint64_t now)
{
	uint32_t seq = d->first_key + key;
	struct dense_out *o = &d->out[seq % DENSE_OUT];

	/*
	 * a stamp for a probe not sent (or long gone from the ring), or out
	 * of its probe's time (the clocks' conversion, real to mono, may err
	 * by a few us), is not its probe's
	 */
	if (!o->used || o->seq != seq || !tx_ns || tx_ns + 1000000 < o->sent_ns ||
	    tx_ns > now + 1000000) {
		d->mismatched++;
		return;
	}
	o->tx_ns = tx_ns;
	d->stamps++;
	d->wait_last_ns = tx_ns > o->sent_ns ? tx_ns - o->sent_ns : 0;
	if (d->wait_last_ns > d->wait_max_ns)
		d->wait_max_ns = d->wait_last_ns;
}

bool dense_echo(struct dense *d, uint32_t seq, uint64_t rx_ns, uint64_t now)
{
	struct dense_out *o = &d->out[seq % DENSE_OUT];
	struct dense_sample *s;

	if (!o->used || o->seq != seq) {
		d->unknown++;		/* older than the ring, or never sent */
		return false;
	}
	if (o->echoed) {
		d->duplicate++;
		return false;
	}
	o->echoed = true;
	d->echoes++;
	if (!o->tx_ns) {
		/* the device gave no transmit timestamp: its wait in the qdisc unknown */
		d->unstamped++;
		d->unstamped_run++;
		return false;
	}
	d->unstamped_run = 0;
	d->cur = (d->cur + 1) % DENSE_SAMPLES;
	s = &d->smp[d->cur];
	s->tx_ns = o->tx_ns;
	s->owd_ns = (int64_t)(rx_ns - o->tx_ns);
	s->rtt_ns = now > o->tx_ns ? now - o->tx_ns : 0;
	if (d->nsmp < DENSE_SAMPLES)
		d->nsmp++;
	if (s->rtt_ns && (!d->rtt_min_ns || s->rtt_ns < d->rtt_min_ns))
		d->rtt_min_ns = s->rtt_ns;
	return true;
}

void dense_read(const struct dense *d, uint64_t since, uint64_t min_window_ns,
		uint64_t max_window_ns, struct dense_read *r)
{
	uint64_t newest = 0, window, from;
	const struct dense_sample *s;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	/* echoes come back in any order: the newest is the latest sent */
	for (i = 0; i < d->nsmp; i++) {
		s = &d->smp[(d->cur + DENSE_SAMPLES - i) % DENSE_SAMPLES];
		if (s->tx_ns > newest) {
			newest = s->tx_ns;
			r->rtt_ns = s->rtt_ns;
		}
	}
	r->newest_ns = newest;
	if (!d->nsmp)
		return;
	r->any = true;
	r->fresh = newest > since;
	window = d->rtt_min_ns;
	if (window < min_window_ns)
		window = min_window_ns;
	if (window > max_window_ns)
		window = max_window_ns;
	from = newest > window ? newest - window : 0;
	for (i = 0; i < d->nsmp; i++) {
		s = &d->smp[(d->cur + DENSE_SAMPLES - i) % DENSE_SAMPLES];
		if (s->tx_ns > since)
			r->since++;
		if (s->tx_ns < from)
			continue;
		if (!r->n || s->owd_ns < r->owd_ns)
			r->owd_ns = s->owd_ns;
		r->n++;
	}
}
