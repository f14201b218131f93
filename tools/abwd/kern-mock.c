// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for kern.c in the test build er2bc-abwd-mock (never in
 * er2bc-abwd): the daemon's loops run on the host without sch_er2bc, with
 * counts made up so that both sides agree: the snapshot of request seq N
 * (N counted on past 65535) is 100 N packets and 12500 N bytes for the
 * sending qdisc, (100 - LOSS) N packets and 12500 N bytes for the meter,
 * at the time it is asked for. What the daemon asks of the kernel is
 * appended to a log file.
 *
 *   ABWD_MOCK_LOG	the log: "abw-set SEQ ABW RECV SENT LOST INTERVAL HOLD",
 *			"meter-set IFINDEX PORT NPEERS", "meter-del IFINDEX"
 *   ABWD_MOCK_LOSS	packets the meter misses per request (default 0)
 *   ABWD_MOCK_PORT	the probe port the qdisc reports (default 4950)
 *   ABWD_MOCK_HELD	the share of its time, in percent, that the qdisc's cap
 *			held a backlog back (default 100: every estimate is
 *			cap-bound); "none": no held count, as from a module
 *			before it
 *
 * A request for an ifindex that no device has fails with ENODEV, as the
 * kernel's does: a device deleted, or recreated with another ifindex.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abwd.h"
#include "conf.h"
#include "kern.h"

/* the request's seq, counted on past 65535 (each process on its own) */
static uint64_t unwrap(const void *key)
{
	static uint64_t ext;
	static uint16_t last;
	static bool have;
	const uint8_t *k = key;
	uint16_t seq = (uint16_t)(k[2] << 8 | k[3]), ahead;

	if (!have) {
		have = true;
		ext = seq + 65536;
	} else {
		ahead = (uint16_t)(seq - last);
		if (ahead < 32768)
			ext += ahead;
		else
			ext -= (uint16_t)(last - seq);
	}
	last = seq;
	return ext;
}

static unsigned long long env_num(const char *name, unsigned long long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 10) : def;
}

static void mock_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void mock_log(const char *fmt, ...)
{
	const char *path = getenv("ABWD_MOCK_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* as the kernel answers for an ifindex no device has (any more) */
static int no_dev(uint32_t ifindex, struct nl_err *err)
{
	char name[IF_NAMESIZE];

	memset(err, 0, sizeof(*err));
	if (ifindex && if_indextoname(ifindex, name))
		return 0;
	err->error = ENODEV;
	snprintf(err->msg, sizeof(err->msg), "er2bc: no such device");
	return -ENODEV;
}

int kern_open(struct nl *nl, struct nl_err *err)
{
	memset(nl, 0, sizeof(*nl));
	memset(err, 0, sizeof(*err));
	return 0;
}

char *kern_strerror(char *buf, size_t len, const struct nl_err *err, int ret)
{
	snprintf(buf, len, "%s%s%s", err->msg, err->msg[0] ? ": " : "",
		 strerror(err->error ? err->error : -ret));
	return buf;
}

int kern_probe_get(struct nl *nl, uint32_t ifindex, uint32_t handle,
		   const void *key, size_t key_len, struct probe_state *st,
		   struct nl_err *err)
{
	uint64_t n;

	(void)nl;
	(void)handle;
	(void)key_len;
	memset(st, 0, sizeof(*st));
	if (no_dev(ifindex, err))
		return -ENODEV;
	st->port = (uint16_t)env_num("ABWD_MOCK_PORT", 4950);
	if (key) {
		n = unwrap(key);
		const char *held = getenv("ABWD_MOCK_HELD");

		st->packets = n * 100;
		st->bytes = n * 12500;
		st->time = mono_ns();
		st->has_packets = st->has_bytes = st->has_time = true;
		if (!held || strcmp(held, "none")) {
			st->held = st->time / 100 * env_num("ABWD_MOCK_HELD", 100);
			st->has_held = true;
		}
	}
	return 0;
}

int kern_meter_set(struct nl *nl, uint32_t ifindex, uint16_t port,
		   const struct prefix *peers, unsigned int npeers,
		   const void *auth_key, size_t auth_len, struct nl_err *err)
{
	(void)nl;
	(void)peers;
	(void)auth_key;
	(void)auth_len;
	if (no_dev(ifindex, err))
		return -ENODEV;
	mock_log("meter-set %u %u %u", ifindex, port, npeers);
	return 0;
}

/* a qdisc with no cap and no rate: the daemon keeps its own w-ini */
int kern_ctrl_get(struct nl *nl, uint32_t ifindex, uint32_t handle,
		  struct qdisc_cap *cap, struct nl_err *err)
{
	(void)nl;
	(void)ifindex;
	(void)handle;
	memset(cap, 0, sizeof(*cap));
	memset(err, 0, sizeof(*err));
	return 0;
}

int kern_meter_del(struct nl *nl, uint32_t ifindex, struct nl_err *err)
{
	(void)nl;
	memset(err, 0, sizeof(*err));
	mock_log("meter-del %u", ifindex);
	return 0;
}

int kern_meter_get(struct nl *nl, uint32_t ifindex, const void *key,
		   size_t key_len, struct probe_state *st, struct nl_err *err)
{
	uint64_t n;

	(void)nl;
	(void)key_len;
	memset(st, 0, sizeof(*st));
	if (no_dev(ifindex, err))
		return -ENODEV;
	/* the totals now (the status file's refusals): none refused here */
	if (!key)
		return 0;
	n = unwrap(key);
	st->packets = n * (100 - env_num("ABWD_MOCK_LOSS", 0));
	st->bytes = n * 12500;
	st->time = mono_ns();
	st->has_packets = st->has_bytes = st->has_time = true;
	return 0;
}

int kern_abw_set(struct nl *nl, uint32_t ifindex, uint32_t handle,
		 const struct abw_estimate *e, struct nl_err *err)
{
	(void)nl;
	(void)handle;
	if (no_dev(ifindex, err))
		return -ENODEV;
	mock_log("abw-set %u %llu %llu %llu %llu %u %u", e->seq, (unsigned long long)e->abw,
		 (unsigned long long)e->recv_rate, (unsigned long long)e->sent,
		 (unsigned long long)e->lost, e->interval_us, e->scavenger_hold_us);
	return 0;
}
