/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dense delay signal (probe-interval; Documentation/er2bc-estimator.rst,
 * "Delay probes"): small probes from the sender to the responder every
 * probe-interval, between the requests, each echoed with the time it
 * arrived. A probe's one-way delay is its arrival at the responder
 * (CLOCK_MONOTONIC there) less the time it left the sending gateway's
 * device (its transmit timestamp, after the qdisc: the wait in our own
 * classes is W's doing, not the path's), in the same clocks as a
 * request's, so that the two clocks' offset cancels as it does for the
 * requests (delay.h).
 *
 * At each estimate the delay rule reads, instead of the one request's
 * delay, the least delay of the probes sent in the last round trip (the
 * least RTT the probes saw, at least two probe intervals): a queue that
 * stood for a round trip, not one late probe; and seen one round trip
 * after it formed, not one estimate (cake-autorate samples its path at
 * about 20 Hz; CoDel reads its standing queue as the least delay over an
 * interval).
 *
 * This file keeps the probes in flight and the samples; no I/O, no clock:
 * every time is the caller's, mono ns.
 */
#ifndef _ABWD_DENSE_H
#define _ABWD_DENSE_H

#include <stdbool.h>
#include <stdint.h>

/* probes in flight remembered: 5 s at the shortest probe-interval */
#define DENSE_OUT	256
/* samples remembered: 10 s at the shortest probe-interval */
#define DENSE_SAMPLES	512

struct dense_out {
	uint32_t seq;
	bool used;
	bool echoed;
	uint64_t sent_ns;	/* handed to the socket */
	uint64_t tx_ns;		/* its transmit timestamp; 0: none (yet) */
};

struct dense_sample {
	uint64_t tx_ns;		/* when the probe left */
	int64_t owd_ns;		/* its one-way delay, the clocks' offset included */
	uint64_t rtt_ns;	/* its echo back */
};

struct dense {
	struct dense_out out[DENSE_OUT];	/* by seq % DENSE_OUT */
	struct dense_sample smp[DENSE_SAMPLES];	/* a ring, oldest overwritten */
	uint32_t nsmp;		/* samples in smp[] */
	uint32_t cur;		/* the newest's index */
	uint32_t first_key;	/* the probe seq of transmit timestamp key 0 */
	uint64_t rtt_min_ns;	/* the least RTT; 0: none */
	/* how long a probe took from the socket to the device: our own queue */
	uint64_t wait_last_ns, wait_max_ns;

	/* what the status file shows */
	uint64_t sent, echoes, unstamped, unknown, duplicate, stamps, mismatched;
	uint32_t unstamped_run;	/* echoes in a row without a stamp */
};

void dense_init(struct dense *d, uint32_t first_seq);

/*
 * the probes' socket was opened again (a send error may have put keys
 * and seqs out of step): its key 0 is @first_seq, the next probe's
 */
void dense_rekey(struct dense *d, uint32_t first_seq);

/* probe @seq handed to the socket at @now */
void dense_sent(struct dense *d, uint32_t seq, uint64_t now);

/*
 * a transmit timestamp: @key counts the probes the socket stamped, from 0
 * (SOF_TIMESTAMPING_OPT_ID), @tx_ns when it left. The caller keeps seq
 * and key in step: a probe the kernel did not take (an error before the
 * datagram was made) is sent again under its seq. A stamp earlier than
 * its probe was handed over is not its probe's (the two out of step):
 * counted in mismatched, and no use.
 */
void dense_stamp(struct dense *d, uint32_t key, uint64_t tx_ns, uint64_t now);

/*
 * the echo of probe @seq, which arrived at the responder at @rx_ns (its
 * clock), read here at @now: true if it made a sample
 */
bool dense_echo(struct dense *d, uint32_t seq, uint64_t rx_ns, uint64_t now);

/* the delay read at an estimate */
struct dense_read {
	bool any;		/* a sample at all: the rest holds */
	bool fresh;		/* a probe sent after @since echoed */
	int64_t owd_ns;		/* the least delay of the probes sent in the window */
	uint64_t rtt_ns;	/* the newest sample's RTT */
	uint32_t n;		/* samples in the window */
	uint32_t since;		/* samples of probes sent after @since */
	uint64_t newest_ns;	/* the newest sample's probe left then: the next @since */
};

/*
 * The delay read: the window ends at the newest sample's probe and spans
 * the least RTT, at least @min_window_ns (two probe intervals), at most
 * @max_window_ns (the interval between estimates). Read whether or not a
 * probe came since @since (fresh): the caller decides what a read that
 * is not fresh is worth.
 */
void dense_read(const struct dense *d, uint64_t since, uint64_t min_window_ns,
		uint64_t max_window_ns, struct dense_read *r);

#endif /* _ABWD_DENSE_H */
