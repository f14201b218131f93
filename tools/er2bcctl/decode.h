/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The er2bc family's messages, decoded: the qdisc-level attributes, the
 * history of s, and the classes, gathered from however many messages the
 * kernel splits them into. Every attribute may be missing; has[] says.
 */
#ifndef _ER2BCCTL_DECODE_H
#define _ER2BCCTL_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/er2bc_genl.h>

struct class_info {
	uint64_t v[ER2BC_A_CLASS_MAX + 1];	/* delta, delta-sum: s64 */
	bool has[ER2BC_A_CLASS_MAX + 1];
};

struct qdisc_info {
	uint64_t v[ER2BC_A_QDISC_MAX + 1];
	bool has[ER2BC_A_QDISC_MAX + 1];
	uint32_t *hist;				/* ratio-hist, newest first */
	size_t nhist;
	struct class_info *cls;			/* in the order they came */
	size_t ncls;
	unsigned int msgs;			/* messages merged */
};

/*
 * Merges the attributes of one er2bc message into @q, unless the message
 * names another device or qdisc than @ifindex and @handle (0: any). Scalars
 * a later message repeats replace the earlier; ratio-hist values and
 * classes are appended. Returns 1 if merged, 0 if the message was about
 * another qdisc, -1 with errno set if memory ran out.
 */
int qdisc_merge(struct qdisc_info *q, const struct nlmsghdr *nlh,
		uint32_t ifindex, uint32_t handle);
void qdisc_free(struct qdisc_info *q);

/*
 * An integer attribute, whatever its width (1, 2, 4 or 8 bytes): the spec
 * fixes the widths, but reading them all alike costs nothing and survives
 * a kernel that sends a u32 as a u64. Signed ones are sign-extended. False
 * if the attribute has none of those widths.
 */
bool attr_get_int(const struct nlattr *a, bool is_signed, uint64_t *v);

/*
 * @arr, an array of @n elements of @size bytes grown as they are appended,
 * with room for one more: doubled at powers of two. NULL if memory ran out
 * (@arr is still valid then).
 */
void *array_grow(void *arr, size_t n, size_t size);

/* the spec's name of a qdisc attribute ("recv-rate"), or NULL */
const char *qdisc_attr_name(unsigned int type);

#endif /* _ER2BCCTL_DECODE_H */
