// SPDX-License-Identifier: GPL-2.0
/* The estimator's UDP sockets (sock.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>

#include "sock.h"

int sock_open(const struct sockaddr *addr, socklen_t len, bool pktinfo)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)addr;
	int fd, one = 1, zero = 0, err;

	fd = socket(addr->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (addr->sa_family == AF_INET6) {
		/* :: takes IPv4 too, whatever net.ipv6.bindv6only says */
		if (IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) &&
		    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
			goto fail;
		if (pktinfo && setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one,
					  sizeof(one)))
			goto fail;
	} else if (pktinfo && setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one))) {
		goto fail;
	}
	if (bind(fd, addr, len))
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/* room for either pktinfo and a receive timestamp */
union cmsg_buf {
	char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct timespec))];
	struct cmsghdr align;
};

int sock_rx_stamps(int fd)
{
	int one = 1;

	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ? -errno : 0;
}

int sock_tx_stamps(int fd)
{
	int flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
		    SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;

	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) ? -errno : 0;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

int sock_read_stamp(int fd, uint32_t *key, uint64_t *real_ns)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct scm_timestamping)) +
			 CMSG_SPACE(sizeof(struct sock_extended_err) +
				    sizeof(struct sockaddr_in6))];
		struct cmsghdr align;
	} cbuf;
	struct msghdr msg = {
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	const struct sock_extended_err *ee = NULL;
	struct scm_timestamping tss;
	bool have_ts = false;
	struct cmsghdr *cm;
	ssize_t n;

	do {
		n = recvmsg(fd, &msg, MSG_ERRQUEUE);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(tss))) {
			memcpy(&tss, CMSG_DATA(cm), sizeof(tss));
			have_ts = true;
		} else if (((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			    (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)) &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(*ee))) {
			ee = (const struct sock_extended_err *)CMSG_DATA(cm);
		}
	}
	if (!have_ts || !ee || ee->ee_errno != ENOMSG ||
	    ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING || ee->ee_info != SCM_TSTAMP_SND ||
	    !ts_ns(&tss.ts[0]))
		return 0;
	*key = ee->ee_data;
	*real_ns = ts_ns(&tss.ts[0]);
	return 1;
}

ssize_t sock_recv(int fd, void *buf, size_t cap, struct sockaddr_storage *from,
		  socklen_t *from_len, struct pktinfo *pi)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	union cmsg_buf cbuf;
	struct msghdr msg = {
		.msg_name = from,
		.msg_namelen = sizeof(*from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf.buf,
		.msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	do {
		n = recvmsg(fd, &msg, MSG_TRUNC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*from_len = msg.msg_namelen;
	if (!pi)
		return n;
	memset(pi, 0, sizeof(*pi));
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			pi->stamp_ns = ts_ns(&ts);
			continue;
		}
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(pi->v4))) {
			memcpy(&pi->v4, CMSG_DATA(cm), sizeof(pi->v4));
			pi->kind = PKTINFO_V4;
		} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(pi->v6))) {
			memcpy(&pi->v6, CMSG_DATA(cm), sizeof(pi->v6));
			pi->kind = PKTINFO_V6;
		}
	}
	return n;
}

int sock_send(int fd, const void *buf, size_t len, const struct sockaddr *to,
	      socklen_t to_len, const struct pktinfo *pi)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	union cmsg_buf cbuf;
	struct msghdr msg = {
		.msg_name = (void *)to,
		.msg_namelen = to_len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct in6_pktinfo p6;
	struct in_pktinfo p4;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&cbuf, 0, sizeof(cbuf));
	if (pi && pi->kind == PKTINFO_V4) {
		/* from the address the request came to; the route picks the device */
		memset(&p4, 0, sizeof(p4));
		p4.ipi_spec_dst = pi->v4.ipi_addr;
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(p4));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(p4));
		memcpy(CMSG_DATA(cm), &p4, sizeof(p4));
	} else if (pi && pi->kind == PKTINFO_V6) {
		memset(&p6, 0, sizeof(p6));
		p6.ipi6_addr = pi->v6.ipi6_addr;
		/* a link-local address means nothing without its device */
		if (IN6_IS_ADDR_LINKLOCAL(&p6.ipi6_addr))
			p6.ipi6_ifindex = pi->v6.ipi6_ifindex;
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(p6));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(p6));
		memcpy(CMSG_DATA(cm), &p6, sizeof(p6));
	}
	do {
		n = sendmsg(fd, &msg, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

int sock_ip(const struct sockaddr *sa, uint8_t *addr)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

	if (sa->sa_family == AF_INET) {
		memcpy(addr, &s4->sin_addr, 4);
		return AF_INET;
	}
	if (sa->sa_family != AF_INET6)
		return 0;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(addr, &s6->sin6_addr.s6_addr[12], 4);
		return AF_INET;
	}
	memcpy(addr, &s6->sin6_addr, 16);
	return AF_INET6;
}

void sock_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static uint16_t sock_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

bool sock_same(const struct sockaddr *a, const struct sockaddr *b)
{
	uint8_t aa[16], ba[16];
	int af = sock_ip(a, aa);

	if (!af || af != sock_ip(b, ba) || sock_port(a) != sock_port(b))
		return false;
	return !memcmp(aa, ba, af == AF_INET ? 4 : 16);
}
