// SPDX-License-Identifier: GPL-2.0
/* Generic netlink plumbing over libmnl (nl.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"

int nl_open(struct nl *nl)
{
	return nl_open_proto(nl, NETLINK_GENERIC);
}

int nl_open_proto(struct nl *nl, int proto)
{
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->buf = malloc(NL_BUF_LEN);
	if (!nl->buf)
		return -ENOMEM;
	nl->sock = mnl_socket_open(proto);
	if (!nl->sock)
		goto fail;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (uint32_t)time(NULL);
	/*
	 * The kernel's messages for refusals, and ACKs without a copy of the
	 * request; kernels that know neither still answer, without them.
	 */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
fail:
	err = -errno;
	nl_close(nl);
	return err;
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->buf);
	memset(nl, 0, sizeof(*nl));
}

struct nlmsghdr *nl_msg(struct nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	/* padding the attributes leave is sent too: no old replies in it */
	memset(nl->buf, 0, NL_BUF_LEN);
	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

struct nlmsghdr *nl_genl_msg(struct nl *nl, uint16_t type, uint8_t cmd,
			     uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = nl_msg(nl, type, flags);
	struct genlmsghdr *genl;

	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

static int ext_ack_attr(const struct nlattr *attr, void *data)
{
	struct nl_err *err = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			break;
		snprintf(err->msg, sizeof(err->msg), "%s", mnl_attr_get_str(attr));
		err->msg[strcspn(err->msg, "\n")] = '\0';
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			break;
		err->has_miss = true;
		err->miss_type = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

int nl_parse_err(const struct nlmsghdr *nlh, struct nl_err *err)
{
	size_t len = mnl_nlmsg_get_payload_len(nlh), hlen;
	const void *payload = mnl_nlmsg_get_payload(nlh);
	int error;

	memset(err, 0, sizeof(*err));
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = payload;

		if (len < sizeof(*e))
			return -1;
		error = e->error;
		hlen = sizeof(*e);
		/* the request follows, unless capped; the TLVs after that */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    e->msg.nlmsg_len >= sizeof(struct nlmsghdr))
			hlen += MNL_ALIGN(e->msg.nlmsg_len - sizeof(struct nlmsghdr));
	} else {
		/* NLMSG_DONE: the dump's error, if any, then the TLVs */
		error = 0;
		hlen = len;
		if (len >= sizeof(error)) {
			memcpy(&error, payload, sizeof(error));
			hlen = sizeof(error);
		}
	}
	err->error = error < 0 ? -error : error;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && hlen < len)
		mnl_attr_parse(nlh, (unsigned int)hlen, ext_ack_attr, err);
	return err->error;
}

/* nl_talk()'s state, handed to libmnl's callbacks */
struct talk {
	mnl_cb_t cb;
	void *data;
	struct nl_err *err;
	bool ended;		/* the ACK, the refusal or NLMSG_DONE was read */
};

static int talk_data(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/* NLMSG_ERROR (an ACK or a refusal) and NLMSG_DONE both end a request */
static int talk_end(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int error = nl_parse_err(nlh, t->err);

	t->ended = true;
	if (error < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (error) {
		errno = error;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

/*
 * Reads what is left of a reply given up on (a dump marked interrupted, a
 * message that did not parse): a socket that is used again (show's retry,
 * the commands of a batch) must not find it there, nor the kernel a dump
 * still running (it refuses a new one with EBUSY). The kernel queues its
 * replies, and each part of a dump, as the previous ones are read, so
 * reading until nothing is queued reads them all.
 */
static void nl_drain(struct nl *nl)
{
	int fd = mnl_socket_get_fd(nl->sock), saved = errno;
	ssize_t n;

	do {
		n = recv(fd, nl->buf, NL_BUF_LEN, MSG_DONTWAIT);
	} while (n >= 0 || errno == EINTR || errno == ENOBUFS);
	errno = saved;
}

int nl_talk(struct nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
	    struct nl_err *err)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = talk_end,
		[NLMSG_DONE] = talk_end,
	};
	struct talk t = { .cb = cb, .data = data, .err = err };
	uint32_t seq = req->nlmsg_seq;
	ssize_t n;
	int ret;

	memset(err, 0, sizeof(*err));
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, NL_BUF_LEN);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = errno ? -errno : -EPROTO;
			break;
		}
		ret = mnl_cb_run2(nl->buf, (size_t)n, seq, nl->portid,
				  talk_data, &t, ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_ERROR) {
			ret = errno ? -errno : -EPROTO;
			break;
		}
		if (ret == MNL_CB_STOP)
			return 0;
	}
	if (!t.ended)
		nl_drain(nl);
	return ret;
}

/* what nl_resolve() looks for, and finds */
struct resolve {
	const char *group;
	struct nl *nl;
	bool found;
};

static int resolve_group(const struct nlattr *grp, struct resolve *r)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(a, grp) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_MCAST_GRP_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				name = mnl_attr_get_str(a);
			break;
		case CTRL_ATTR_MCAST_GRP_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(a);
			break;
		}
	}
	if (name && id && !strcmp(name, r->group))
		r->nl->group = id;
	return MNL_CB_OK;
}

static int resolve_attr(const struct nlattr *attr, void *data)
{
	struct resolve *r = data;
	const struct nlattr *grp;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		r->nl->family = mnl_attr_get_u16(attr);
		r->found = true;
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			r->nl->version = mnl_attr_get_u32(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		if (!r->group)
			break;
		mnl_attr_for_each_nested(grp, attr)
			resolve_group(grp, r);
		break;
	}
	return MNL_CB_OK;
}

static int resolve_msg(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), resolve_attr, data);
}

int nl_resolve(struct nl *nl, const char *name, const char *group,
	       struct nl_err *err)
{
	struct resolve r = { .group = group, .nl = nl };
	struct nlmsghdr *nlh;
	int ret;

	nl->group = 0;
	nlh = nl_genl_msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	ret = nl_talk(nl, nlh, resolve_msg, &r, err);
	if (ret)
		return ret;
	return r.found ? 0 : -ENOENT;
}

int nl_join(struct nl *nl, uint32_t group)
{
	int g = (int)group;

	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
		return -errno;
	return 0;
}
