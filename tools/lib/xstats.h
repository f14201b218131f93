/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bc's statistics as nested attributes (TCA_STATS_APP, TCA_ER2BC_STATS_*
 * in linux/er2bc.h), told from the struct a module before them sends: for
 * tc's plugin and er2bcctl alike, header only, as the plugin links nothing
 * of the project's.
 */
#ifndef _ER2BC_XSTATS_H
#define _ER2BC_XSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/er2bc.h>

/* the payload's size of each attribute these tools read; 0: not read */
static const uint8_t er2bc_stats_size[TCA_ER2BC_STATS_MAX + 1] = {
	[TCA_ER2BC_STATS_CAP] = 8, [TCA_ER2BC_STATS_GUARANTEED] = 8,
	[TCA_ER2BC_STATS_CLASSES] = 4, [TCA_ER2BC_STATS_ACTIVE] = 4,
	[TCA_ER2BC_STATS_UNCLASSIFIED] = 8, [TCA_ER2BC_STATS_THROTTLED] = 8,
	[TCA_ER2BC_STATS_WAITS] = 8, [TCA_ER2BC_STATS_YIELDED] = 8,
	[TCA_ER2BC_STATS_HELD_NS] = 8, [TCA_ER2BC_STATS_LEND_TURNS] = 8,
	[TCA_ER2BC_STATS_LEND_ROUNDS] = 8, [TCA_ER2BC_STATS_UPDATES] = 8,
	[TCA_ER2BC_STATS_SEQ] = 4, [TCA_ER2BC_STATS_STALE] = 1,
	[TCA_ER2BC_STATS_ESTIMATE_AGE_NS] = 8,
	[TCA_ER2BC_STATS_PROBE_PACKETS] = 8, [TCA_ER2BC_STATS_PROBE_BYTES] = 8,
	[TCA_ER2BC_STATS_PROBES] = 8, [TCA_ER2BC_STATS_PROBE_IGNORED] = 8,
	[TCA_ER2BC_STATS_GUARANTEE] = 8, [TCA_ER2BC_STATS_BYTES_GUARANTEED] = 8,
	[TCA_ER2BC_STATS_BYTES_BORROWED] = 8, [TCA_ER2BC_STATS_CREDIT] = 4,
	[TCA_ER2BC_STATS_STATE] = 4, [TCA_ER2BC_STATS_SHORTAGE_NS] = 8,
	[TCA_ER2BC_STATS_SERVICE_RATE] = 8, [TCA_ER2BC_STATS_BACKLOG_LIMIT] = 4,
	[TCA_ER2BC_STATS_LATENCY_DROPS] = 8,
};

/*
 * Whether the @len bytes at @payload are nested attributes rather than an
 * older module's struct: the whole of it a chain of attributes, each
 * padded as the kernel pads them, those these tools read of their size
 * (the pad, and a newer module's others, skipped); their places by type
 * in @tb. The caller asks for the qdisc's cap or the class's guarantee
 * among them: a struct does not read so, its first field, a rate, would
 * have to read as a header that the rest of it follows.
 */
static inline bool er2bc_stats_nested(const void *payload, int len,
				      const struct nlattr *tb[TCA_ER2BC_STATS_MAX + 1])
{
	const char *p = payload;

	memset(tb, 0, sizeof(*tb) * (TCA_ER2BC_STATS_MAX + 1));
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		int step = NLA_ALIGN(a->nla_len);

		if (a->nla_len < NLA_HDRLEN || step > len || !type)
			return false;
		if (type <= TCA_ER2BC_STATS_MAX && er2bc_stats_size[type]) {
			if (a->nla_len - NLA_HDRLEN != er2bc_stats_size[type])
				return false;
			tb[type] = a;
		}
		p += step;
		len -= step;
	}
	return !len;
}

/* a nested statistic, 0 if absent (er2bc_stats_nested() checked its size) */
static inline uint64_t er2bc_stat_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (a)
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline uint32_t er2bc_stat_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a)
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline uint8_t er2bc_stat_u8(const struct nlattr *a)
{
	return a ? *((const uint8_t *)a + NLA_HDRLEN) : 0;
}

#endif /* _ER2BC_XSTATS_H */
