/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The estimator's UDP sockets: non-blocking, and at the responder with the
 * address each request came to, so that the response leaves from it.
 */
#ifndef _ABWD_SOCK_H
#define _ABWD_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* where a datagram arrived: the local address and device */
enum pktinfo_kind {
	PKTINFO_NONE,
	PKTINFO_V4,		/* IP_PKTINFO, in v4 */
	PKTINFO_V6,		/* IPV6_PKTINFO (IPv4 as v4-mapped), in v6 */
};

struct pktinfo {
	enum pktinfo_kind kind;
	struct in_pktinfo v4;
	struct in6_pktinfo v6;
	uint64_t stamp_ns;	/* its receive timestamp, CLOCK_REALTIME; 0: none */
};

/*
 * A UDP socket of @addr's family, bound to it (the sender passes the
 * unspecified address and port 0). @pktinfo: learn each datagram's local
 * address. An IPv6 socket bound to :: takes IPv4 too. Returns the socket
 * or -errno.
 */
int sock_open(const struct sockaddr *addr, socklen_t len, bool pktinfo);

/*
 * One datagram: its length (more than @cap: truncated), or -errno
 * (-EAGAIN: none waiting). @pi may be NULL.
 */
ssize_t sock_recv(int fd, void *buf, size_t cap, struct sockaddr_storage *from,
		  socklen_t *from_len, struct pktinfo *pi);

/*
 * The kernel's receive timestamp on each datagram (SO_TIMESTAMPNS; the
 * pktinfo's stamp_ns). It turns on the host's receive timestamps, a
 * clock read for every packet received: asked for only when needed.
 */
int sock_rx_stamps(int fd);

/*
 * The kernel's transmit timestamp of each datagram sent, as it leaves the
 * device, after the qdisc (SOF_TIMESTAMPING_TX_SOFTWARE, keyed by the
 * count of datagrams sent, from 0): 0 or -errno
 */
int sock_tx_stamps(int fd);

/*
 * One message of the error queue: 1 and a transmit timestamp (@key, and
 * @real_ns in CLOCK_REALTIME), 0 for anything else, or -errno (-EAGAIN:
 * none left)
 */
int sock_read_stamp(int fd, uint32_t *key, uint64_t *real_ns);

/* one datagram to @to, from the address @pi names (NULL: any); 0 or -errno */
int sock_send(int fd, const void *buf, size_t len, const struct sockaddr *to,
	      socklen_t to_len, const struct pktinfo *pi);

/*
 * The IP address of @sa: its family (AF_INET for IPv4-mapped IPv6) with
 * the 4 or 16 bytes in @addr; 0 for neither.
 */
int sock_ip(const struct sockaddr *sa, uint8_t *addr);

/* sets @ss's port (IPv4 or IPv6) */
void sock_set_port(struct sockaddr_storage *ss, uint16_t port);

/* same address (IPv4-mapped or not) and port */
bool sock_same(const struct sockaddr *a, const struct sockaddr *b);

#endif /* _ABWD_SOCK_H */
