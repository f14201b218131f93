/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of tc's plugin interface that the er2bc plugin uses.
 *
 * tc (iproute2) dlopens q_<kind>.so and looks up <kind>_qdisc_util; the
 * plugin may call the helpers tc exports. iproute2 installs no headers for
 * this, so the declarations the plugin relies on are stated here. They
 * are the same in iproute2 6.1 (Debian 12) through 6.18, read from each
 * release's tc/tc_util.h, include/json_print.h, include/color.h,
 * include/utils.h and include/libnetlink.h (6.15 is Debian 13's and
 * bookworm-backports'): struct qdisc_util gained only const on its
 * function pointers' first argument, COLOR_NONE is still the last colour,
 * and no helper below changed. print_color_size(), which the plugin does
 * not call, takes a __u64 from 6.18 on. debian/control bounds iproute2 to
 * the releases checked; a new one is read the same way before the bound
 * moves.
 */
#ifndef _ER2BC_TC_ABI_H
#define _ER2BC_TC_ABI_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f, struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* lib/json_print.h */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

/* include/color.h: the last entry */
#define TC_COLOR_NONE 6

int print_color_u64(enum output_type t, int color, const char *key,
		    const char *fmt, __u64 value);
int print_color_uint(enum output_type t, int color, const char *key,
		     const char *fmt, unsigned int value);
int print_color_string(enum output_type t, int color, const char *key,
		       const char *fmt, const char *value);
int print_color_bool(enum output_type t, int color, const char *key,
		     const char *fmt, bool value);
int print_color_rate(bool use_iec, enum output_type t, int color,
		     const char *key, const char *fmt, unsigned long long rate);
int print_color_int(enum output_type t, int color, const char *key,
		    const char *fmt, int value);
int print_color_0xhex(enum output_type t, int color, const char *key,
		      const char *fmt, unsigned long long hex);
void print_nl(void);
void open_json_array(enum output_type t, const char *name);
void close_json_array(enum output_type t, const char *delim);

/* lib/utils.c, tc/tc_util.c */
int get_u32(__u32 *val, const char *arg, int base);
int get_size(unsigned int *size, const char *str);

/* lib/libnetlink.c */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen);
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);

#endif /* _ER2BC_TC_ABI_H */
