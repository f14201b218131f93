// SPDX-License-Identifier: GPL-2.0
/* The er2bc family's messages, decoded (decode.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "decode.h"

static const char *const qdisc_names[ER2BC_A_QDISC_MAX + 1] = {
	[ER2BC_A_QDISC_PAD]		= "pad",
	[ER2BC_A_QDISC_IFINDEX]		= "ifindex",
	[ER2BC_A_QDISC_HANDLE]		= "handle",
	[ER2BC_A_QDISC_ABW]		= "abw",
	[ER2BC_A_QDISC_RECV_RATE]	= "recv-rate",
	[ER2BC_A_QDISC_SENT]		= "sent",
	[ER2BC_A_QDISC_LOST]		= "lost",
	[ER2BC_A_QDISC_SEQ]		= "seq",
	[ER2BC_A_QDISC_INTERVAL]	= "interval",
	[ER2BC_A_QDISC_MODE]		= "mode",
	[ER2BC_A_QDISC_RATIO]		= "ratio",
	[ER2BC_A_QDISC_RATIO_MIN]	= "ratio-min",
	[ER2BC_A_QDISC_RATIO_HIST]	= "ratio-hist",
	[ER2BC_A_QDISC_UPDATES]		= "updates",
	[ER2BC_A_QDISC_LAST_UPDATE]	= "last-update",
	[ER2BC_A_QDISC_STALE]		= "stale",
	[ER2BC_A_QDISC_PARAM_C]		= "param-c",
	[ER2BC_A_QDISC_PARAM_M]		= "param-m",
	[ER2BC_A_QDISC_PARAM_BLIM]	= "param-blim",
	[ER2BC_A_QDISC_PARAM_FLOOR]	= "param-floor",
	[ER2BC_A_QDISC_PARAM_STALE]	= "param-stale",
	[ER2BC_A_QDISC_PARAM_CONVERGE]	= "param-converge",
	[ER2BC_A_QDISC_GUARANTEED]	= "guaranteed",
	[ER2BC_A_QDISC_CLASSES]		= "classes",
	[ER2BC_A_QDISC_COST]		= "cost",
	[ER2BC_A_QDISC_CLASS]		= "class",
	[ER2BC_A_QDISC_CEIL]		= "ceil",
	[ER2BC_A_QDISC_SCAVENGER_HOLD]	= "scavenger-hold",
};

const char *qdisc_attr_name(unsigned int type)
{
	return type <= ER2BC_A_QDISC_MAX ? qdisc_names[type] : NULL;
}

bool attr_get_int(const struct nlattr *a, bool is_signed, uint64_t *v)
{
	const void *p = mnl_attr_get_payload(a);
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;

	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		memcpy(&u8, p, 1);
		*v = is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
		return true;
	case 2:
		memcpy(&u16, p, 2);
		*v = is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
		return true;
	case 4:
		memcpy(&u32, p, 4);
		*v = is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
		return true;
	case 8:
		memcpy(v, p, 8);
		return true;
	}
	return false;
}

void *array_grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	return realloc(arr, (n ? 2 * n : 1) * size);
}

static int add_class(struct qdisc_info *q, const struct nlattr *nest)
{
	struct class_info *c, *cls;
	const struct nlattr *a;
	unsigned int type;
	bool is_signed;
	uint64_t v;

	cls = array_grow(q->cls, q->ncls, sizeof(*cls));
	if (!cls)
		return -1;
	q->cls = cls;
	c = &q->cls[q->ncls++];
	memset(c, 0, sizeof(*c));
	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		if (type == ER2BC_A_CLASS_PAD || type > ER2BC_A_CLASS_MAX)
			continue;
		is_signed = type == ER2BC_A_CLASS_DELTA || type == ER2BC_A_CLASS_DELTA_SUM;
		if (!attr_get_int(a, is_signed, &v))
			continue;
		c->v[type] = v;
		c->has[type] = true;
	}
	return 0;
}

static int add_hist(struct qdisc_info *q, uint64_t v)
{
	uint32_t *hist = array_grow(q->hist, q->nhist, sizeof(*hist));

	if (!hist)
		return -1;
	q->hist = hist;
	q->hist[q->nhist++] = (uint32_t)v;
	return 0;
}

/* whether the message is about another device or qdisc than asked */
static bool other_qdisc(const struct nlmsghdr *nlh, uint32_t ifindex, uint32_t handle)
{
	const struct nlattr *a;
	uint64_t v;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case ER2BC_A_QDISC_IFINDEX:
			if (ifindex && attr_get_int(a, false, &v) && v != ifindex)
				return true;
			break;
		case ER2BC_A_QDISC_HANDLE:
			if (handle && attr_get_int(a, false, &v) && v != handle)
				return true;
			break;
		}
	}
	return false;
}

int qdisc_merge(struct qdisc_info *q, const struct nlmsghdr *nlh,
		uint32_t ifindex, uint32_t handle)
{
	const struct nlattr *a;
	unsigned int type;
	uint64_t v;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return 0;
	if (other_qdisc(nlh, ifindex, handle))
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		type = mnl_attr_get_type(a);
		if (type == ER2BC_A_QDISC_PAD || type > ER2BC_A_QDISC_MAX)
			continue;
		if (type == ER2BC_A_QDISC_CLASS) {
			if (add_class(q, a))
				goto nomem;
			continue;
		}
		if (!attr_get_int(a, false, &v))
			continue;
		if (type == ER2BC_A_QDISC_RATIO_HIST) {
			if (add_hist(q, v))
				goto nomem;
			continue;
		}
		q->v[type] = v;
		q->has[type] = true;
	}
	q->msgs++;
	return 1;
nomem:
	errno = ENOMEM;
	return -1;
}

void qdisc_free(struct qdisc_info *q)
{
	free(q->hist);
	free(q->cls);
	memset(q, 0, sizeof(*q));
}
