/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink plumbing over libmnl: a socket that asks for extended
 * ACKs, a family (and a multicast group) resolved by name, requests whose
 * replies and ACK are read to the end, and the error the kernel sent back.
 */
#ifndef _ER2BC_LIB_NL_H
#define _ER2BC_LIB_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* big enough for any message a dump sends (the kernel stops at 32 KiB) */
#define NL_BUF_LEN	(64 * 1024)

struct nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	uint16_t family;	/* the family's id, once resolved */
	uint32_t version;	/* the family's version, as the kernel has it */
	uint32_t group;		/* the multicast group's id, 0: none or not asked */
	char *buf;		/* NL_BUF_LEN bytes: requests, then replies */
};

/* what the kernel said when it refused a request */
struct nl_err {
	int error;		/* errno, positive; 0: none */
	char msg[256];		/* the extended ACK's message; "": none */
	bool has_miss;
	uint32_t miss_type;	/* a missing attribute, if has_miss */
};

/* a generic netlink socket; returns 0 or -errno */
int nl_open(struct nl *nl);
/* a socket of netlink protocol @proto (NETLINK_ROUTE ...); 0 or -errno */
int nl_open_proto(struct nl *nl, int proto);
void nl_close(struct nl *nl);

/*
 * Resolves family @name (CTRL_CMD_GETFAMILY) and, when @group is not NULL,
 * its multicast group of that name (nl->group stays 0 if it has none).
 * Returns 0 or -errno: -ENOENT when there is no such family.
 */
int nl_resolve(struct nl *nl, const char *name, const char *group,
	       struct nl_err *err);

/* a request in nl->buf: the netlink header (REQUEST, @flags, a new seq) */
struct nlmsghdr *nl_msg(struct nl *nl, uint16_t type, uint16_t flags);

/* a request in nl->buf: netlink and genetlink headers, attributes to follow */
struct nlmsghdr *nl_genl_msg(struct nl *nl, uint16_t type, uint8_t cmd,
			     uint8_t version, uint16_t flags);

/*
 * Sends @req and reads replies until the ACK, the end of the dump, or an
 * error; each reply that is not a control message goes to @cb (if not
 * NULL) with @data. Returns 0 or -errno; when the kernel refused, @err says
 * how (err->error is then set).
 */
int nl_talk(struct nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
	    struct nl_err *err);

/* joins multicast group @group; 0 or -errno */
int nl_join(struct nl *nl, uint32_t group);

/*
 * The error in an NLMSG_ERROR or NLMSG_DONE message, with what its
 * extended ACK says. Returns the error (positive errno, 0 for an ACK or a
 * successful end), or -1 if the message is malformed.
 */
int nl_parse_err(const struct nlmsghdr *nlh, struct nl_err *err);

#endif /* _ER2BC_LIB_NL_H */
