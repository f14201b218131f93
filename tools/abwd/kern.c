// SPDX-License-Identifier: GPL-2.0
/* The daemon's requests to the kernel (kern.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "conf.h"
#include "kern.h"

int kern_open(struct nl *nl, struct nl_err *err)
{
	int ret;

	memset(err, 0, sizeof(*err));
	ret = nl_open(nl);
	if (ret)
		return ret;
	ret = nl_resolve(nl, ER2BC_FAMILY_NAME, NULL, err);
	if (ret)
		nl_close(nl);
	return ret;
}

char *kern_strerror(char *buf, size_t len, const struct nl_err *err, int ret)
{
	int error = err->error ? err->error : -ret;

	if (err->msg[0])
		snprintf(buf, len, "%s: %s", err->msg, strerror(error));
	else if (err->has_miss)
		snprintf(buf, len, "missing attribute %u: %s", err->miss_type,
			 strerror(error));
	else
		snprintf(buf, len, "%s", strerror(error));
	return buf;
}

static int probe_attr(const struct nlattr *a, void *data)
{
	struct probe_state *st = data;

	switch (mnl_attr_get_type(a)) {
	case ER2BC_A_PROBE_PACKETS:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		st->packets = mnl_attr_get_u64(a);
		st->has_packets = true;
		break;
	case ER2BC_A_PROBE_BYTES:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		st->bytes = mnl_attr_get_u64(a);
		st->has_bytes = true;
		break;
	case ER2BC_A_PROBE_TIME:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		st->time = mnl_attr_get_u64(a);
		st->has_time = true;
		break;
	case ER2BC_A_PROBE_HELD:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		st->held = mnl_attr_get_u64(a);
		st->has_held = true;
		break;
	case ER2BC_A_PROBE_PORT:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		st->port = mnl_attr_get_u16(a);
		break;
	case ER2BC_A_PROBE_PEER:
		st->npeers++;
		break;
	case ER2BC_A_PROBE_AUTH:
		st->auth = true;
		break;
	case ER2BC_A_PROBE_UNAUTH:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		st->unauth = mnl_attr_get_u64(a);
		break;
	case ER2BC_A_PROBE_REPLAYED:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		st->replayed = mnl_attr_get_u64(a);
		break;
	case ER2BC_A_PROBE_MARK:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		st->mark = mnl_attr_get_u32(a);
		break;
	}
	return MNL_CB_OK;
}

int kern_parse_probe(const struct nlmsghdr *nlh, struct probe_state *st)
{
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return -1;
	memset(st, 0, sizeof(*st));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), probe_attr, st) != MNL_CB_OK)
		return -1;
	return 0;
}

/* a reply to a *-get: parsed into the caller's state */
struct get {
	struct probe_state *st;
	bool got;
	bool bad;
};

static int get_msg(const struct nlmsghdr *nlh, void *data)
{
	struct get *g = data;

	if (kern_parse_probe(nlh, g->st)) {
		g->bad = true;
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	g->got = true;
	return MNL_CB_OK;
}

/* a *-get's talk; a snapshot must have all three counts */
static int get_talk(struct nl *nl, struct nlmsghdr *nlh, bool snapshot,
		    struct probe_state *st, struct nl_err *err)
{
	struct get g = { .st = st };
	int ret;

	memset(st, 0, sizeof(*st));
	ret = nl_talk(nl, nlh, get_msg, &g, err);
	if (ret)
		return ret;
	if (!g.got || (snapshot && (!st->has_packets || !st->has_bytes || !st->has_time))) {
		snprintf(err->msg, sizeof(err->msg), "incomplete reply");
		err->error = EPROTO;
		return -EPROTO;
	}
	return 0;
}

int kern_probe_get(struct nl *nl, uint32_t ifindex, uint32_t handle,
		   const void *key, size_t key_len, struct probe_state *st,
		   struct nl_err *err)
{
	struct nlmsghdr *nlh;

	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_PROBE_GET, ER2BC_FAMILY_VERSION,
			  NLM_F_ACK);
	mnl_attr_put_u32(nlh, ER2BC_A_PROBE_IFINDEX, ifindex);
	mnl_attr_put_u32(nlh, ER2BC_A_PROBE_HANDLE, handle);
	if (key)
		mnl_attr_put(nlh, ER2BC_A_PROBE_KEY, key_len, key);
	return get_talk(nl, nlh, key, st, err);
}

int kern_meter_get(struct nl *nl, uint32_t ifindex, const void *key,
		   size_t key_len, struct probe_state *st, struct nl_err *err)
{
	struct nlmsghdr *nlh;

	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_METER_GET, ER2BC_FAMILY_VERSION,
			  NLM_F_ACK);
	mnl_attr_put_u32(nlh, ER2BC_A_PROBE_IFINDEX, ifindex);
	if (key)
		mnl_attr_put(nlh, ER2BC_A_PROBE_KEY, key_len, key);
	return get_talk(nl, nlh, key, st, err);
}

int kern_meter_set(struct nl *nl, uint32_t ifindex, uint16_t port,
		   const struct prefix *peers, unsigned int npeers,
		   const void *auth_key, size_t auth_len, struct nl_err *err)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int i;
	int ret;

	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_METER_SET, ER2BC_FAMILY_VERSION,
			  NLM_F_ACK);
	mnl_attr_put_u32(nlh, ER2BC_A_PROBE_IFINDEX, ifindex);
	mnl_attr_put_u16(nlh, ER2BC_A_PROBE_PORT, port);
	for (i = 0; i < npeers; i++) {
		nest = mnl_attr_nest_start(nlh, ER2BC_A_PROBE_PEER);
		mnl_attr_put(nlh, ER2BC_A_PREFIX_ADDR,
			     peers[i].family == AF_INET ? 4 : 16, peers[i].addr);
		mnl_attr_put_u8(nlh, ER2BC_A_PREFIX_PLEN, peers[i].plen);
		mnl_attr_nest_end(nlh, nest);
	}
	if (auth_len)
		mnl_attr_put(nlh, ER2BC_A_PROBE_AUTH_KEY, auth_len, auth_key);
	ret = nl_talk(nl, nlh, NULL, NULL, err);
	explicit_bzero(nl->buf, NL_BUF_LEN);
	return ret;
}

int kern_meter_del(struct nl *nl, uint32_t ifindex, struct nl_err *err)
{
	struct nlmsghdr *nlh;

	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_METER_DEL, ER2BC_FAMILY_VERSION,
			  NLM_F_ACK);
	mnl_attr_put_u32(nlh, ER2BC_A_PROBE_IFINDEX, ifindex);
	return nl_talk(nl, nlh, NULL, NULL, err);
}

/* one class of a ctrl-get dump */
struct cap_class {
	uint64_t rate;		/* R_f */
	uint64_t demand;	/* S_d at the last estimate */
	uint32_t margin;	/* percent */
	uint8_t prio;
	uint8_t type;
	bool bad;		/* an attribute of another size: the class is left out */
};

static int class_attr(const struct nlattr *a, void *data)
{
	struct cap_class *c = data;
	uint16_t type = mnl_attr_get_type(a);

	switch (type) {
	case ER2BC_A_CLASS_RATE:
	case ER2BC_A_CLASS_DEMAND:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			c->bad = true;
		else
			*(type == ER2BC_A_CLASS_RATE ? &c->rate : &c->demand) = mnl_attr_get_u64(a);
		break;
	case ER2BC_A_CLASS_MARGIN:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			c->bad = true;
		else
			c->margin = mnl_attr_get_u32(a);
		break;
	case ER2BC_A_CLASS_PRIO:
	case ER2BC_A_CLASS_TYPE:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			c->bad = true;
		else
			*(type == ER2BC_A_CLASS_PRIO ? &c->prio : &c->type) = mnl_attr_get_u8(a);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/* @v plus @m percent of it, saturated */
static uint64_t with_margin(uint64_t v, uint64_t m)
{
	uint64_t more = v / 100 * m + v % 100 * m / 100;

	return v + more < v ? UINT64_MAX : v + more;
}

/* @v + @r, saturated */
static uint64_t sum_sat(uint64_t v, uint64_t r)
{
	return v + r < r ? UINT64_MAX : v + r;
}

/*
 * A class's rate, with its margin, into its priority's level, which W's
 * floors keep (compete.h); and what it asks for: the more of its rate and
 * its demand S_d (above R_f for UDP under loss, eq. 6-7), with its margin,
 * as the kernel guarantees it (guarantee.c). Not the demand for the
 * floors: beside CUBIC the losses are the competition's, S_d read 5 to 70
 * times R_f, and no priority fitted under what the path carried. A
 * scavenger asks for nothing; a class the dump says oddly is left out.
 */
static int cap_class(const struct nlattr *a, struct qdisc_cap *cap)
{
	struct cap_class c = { .type = ER2BC_TYPE_SCAVENGER };
	uint64_t m;

	if (mnl_attr_parse_nested(a, class_attr, &c) < 0 || c.bad)
		return MNL_CB_OK;
	if (c.type == ER2BC_TYPE_SCAVENGER || !c.prio || c.prio > ER2BC_PRIO_MAX)
		return MNL_CB_OK;
	m = c.margin > 100 ? 100 : c.margin;
	cap->level[c.prio] = sum_sat(cap->level[c.prio], with_margin(c.rate, m));
	cap->asked[c.prio] = sum_sat(cap->asked[c.prio],
				     with_margin(c.demand > c.rate ? c.demand : c.rate, m));
	return MNL_CB_OK;
}

static int cap_attr(const struct nlattr *a, void *data)
{
	struct qdisc_cap *cap = data;
	uint64_t *v = NULL;

	switch (mnl_attr_get_type(a)) {
	case ER2BC_A_QDISC_CLASS:
		return cap_class(a, cap);
	case ER2BC_A_QDISC_ABW:
		v = &cap->w;
		break;
	case ER2BC_A_QDISC_CEIL:
		v = &cap->ceil;
		break;
	case ER2BC_A_QDISC_UPDATES:
		v = &cap->updates;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return MNL_CB_ERROR;
	*v = mnl_attr_get_u64(a);
	return MNL_CB_OK;
}

static int cap_msg(const struct nlmsghdr *nlh, void *data)
{
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr) ||
	    mnl_attr_parse(nlh, sizeof(struct genlmsghdr), cap_attr, data) != MNL_CB_OK) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int kern_ctrl_get(struct nl *nl, uint32_t ifindex, uint32_t handle,
		  struct qdisc_cap *cap, struct nl_err *err)
{
	struct nlmsghdr *nlh;

	memset(cap, 0, sizeof(*cap));
	/* a dump of the one qdisc: its state first, then its classes */
	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_CTRL_GET, ER2BC_FAMILY_VERSION,
			  NLM_F_DUMP);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_IFINDEX, ifindex);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_HANDLE, handle);
	return nl_talk(nl, nlh, cap_msg, cap, err);
}

int kern_abw_set(struct nl *nl, uint32_t ifindex, uint32_t handle,
		 const struct abw_estimate *e, struct nl_err *err)
{
	struct nlmsghdr *nlh;

	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_ABW_SET, ER2BC_FAMILY_VERSION,
			  NLM_F_ACK);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_IFINDEX, ifindex);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_HANDLE, handle);
	mnl_attr_put_u64(nlh, ER2BC_A_QDISC_ABW, e->abw);
	mnl_attr_put_u64(nlh, ER2BC_A_QDISC_RECV_RATE, e->recv_rate);
	mnl_attr_put_u64(nlh, ER2BC_A_QDISC_SENT, e->sent);
	mnl_attr_put_u64(nlh, ER2BC_A_QDISC_LOST, e->lost);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_SEQ, e->seq);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_INTERVAL, e->interval_us);
	/* (only when it holds: a module without scavengers knows no such attribute) */
	if (e->scavenger_hold_us)
		mnl_attr_put_u32(nlh, ER2BC_A_QDISC_SCAVENGER_HOLD, e->scavenger_hold_us);
	return nl_talk(nl, nlh, NULL, NULL, err);
}
