// SPDX-License-Identifier: GPL-2.0
/*
 * synflood: spoofed TCP SYNs, as fast as the machine sends them or at a
 * given rate, for tcp_rcvmgr's flood test. Every SYN has a random source
 * address inside a prefix, a random source port and sequence number, and
 * goes to one address and port. IPv4, from a raw socket (CAP_NET_RAW).
 *
 *   synflood -s ADDR/PLEN -d ADDR -p PORT -t SECONDS [-r PER_SECOND]
 *
 * Stops after SECONDS, or at SIGINT or SIGTERM, and prints {"sent": N,
 * "dropped": D, "seconds": S, "rate": N/S}; exits 1 on a send error other
 * than a full queue (ENOBUFS: counted in "dropped").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH	64
/* a SYN as Linux sends one, less the timestamp: MSS, SACK-permitted, scale */
#define OPTLEN	12
#define PKTLEN	(sizeof(struct iphdr) + sizeof(struct tcphdr) + OPTLEN)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint32_t rnd(void)
{
	/* xorshift64*: enough to spread addresses, ports and ISNs */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 0x2545f4914f6cdd1dULL) >> 32;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* the ones' complement sum of @buf as big-endian 16-bit words, byte by byte */
static uint32_t csum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(uint8_t *pkt, uint32_t net, uint32_t hostmask, struct in_addr dst,
		 uint16_t dport)
{
	struct iphdr *ip = (struct iphdr *)pkt;
	struct tcphdr *th = (struct tcphdr *)(ip + 1);
	uint8_t *opt = (uint8_t *)(th + 1);
	uint32_t host, sum;
	struct {
		uint32_t saddr, daddr;
		uint8_t zero, proto;
		uint16_t len;
	} ph;

	/* neither the prefix's first nor its last address */
	do
		host = rnd() & hostmask;
	while (hostmask > 1 && (host == 0 || host == hostmask));

	memset(pkt, 0, PKTLEN);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_TCP;
	ip->id = htons(rnd());
	ip->saddr = htonl(net | host);
	ip->daddr = dst.s_addr;
	/* total length and IP checksum: the kernel fills them (IP_HDRINCL) */

	th->source = htons(1024 + rnd() % 64512);
	th->dest = htons(dport);
	th->seq = htonl(rnd());
	th->doff = (sizeof(*th) + OPTLEN) / 4;
	th->syn = 1;
	th->window = htons(64240);
	memcpy(opt, "\x02\x04\x05\xb4" "\x04\x02" "\x01" "\x03\x03\x07" "\x01\x01", OPTLEN);

	ph.saddr = ip->saddr;
	ph.daddr = ip->daddr;
	ph.zero = 0;
	ph.proto = IPPROTO_TCP;
	ph.len = htons(sizeof(*th) + OPTLEN);
	sum = csum_add(0, &ph, sizeof(ph));
	sum = csum_add(sum, th, sizeof(*th) + OPTLEN);
	th->check = htons(csum_fold(sum));
}

static void usage(void)
{
	fprintf(stderr, "usage: synflood -s ADDR/PLEN -d ADDR -p PORT -t SECONDS [-r PER_SECOND]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static uint8_t pkts[BATCH][PKTLEN];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned long long sent = 0, dropped = 0;
	double seconds = 0, rate = 0, t0, t, elapsed;
	struct in_addr src = { 0 };
	uint32_t net, hostmask;
	int plen = -1, port = 0, opt, fd, i;
	char *slash;

	while ((opt = getopt(argc, argv, "s:d:p:t:r:")) != -1) {
		switch (opt) {
		case 's':
			slash = strchr(optarg, '/');
			if (!slash)
				usage();
			*slash = '\0';
			plen = atoi(slash + 1);
			if (inet_pton(AF_INET, optarg, &src) != 1 || plen < 8 || plen > 32) {
				fprintf(stderr, "synflood: -s %s/%s: an IPv4 prefix of length 8-32 expected\n",
					optarg, slash + 1);
				return 2;
			}
			break;
		case 'd':
			if (inet_pton(AF_INET, optarg, &to.sin_addr) != 1) {
				fprintf(stderr, "synflood: -d %s: an IPv4 address expected\n", optarg);
				return 2;
			}
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'r':
			rate = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (plen < 0 || !to.sin_addr.s_addr || port < 1 || port > 65535 ||
	    !(seconds > 0 && seconds < 1e6) || !(rate >= 0 && rate < 1e9))
		usage();
	hostmask = plen == 32 ? 0 : 0xffffffffU >> plen;
	net = ntohl(src.s_addr) & ~hostmask;
	rng_state ^= (uint64_t)getpid() << 32 ^ (uint64_t)(now_s() * 1e9);

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("synflood: raw socket");
		return 1;
	}
	/* without it the kernel hides a full device queue (ENOBUFS) */
	opt = 1;
	if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &opt, sizeof(opt)) < 0) {
		perror("synflood: IP_RECVERR");
		return 1;
	}
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = pkts[i];
		iov[i].iov_len = PKTLEN;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_s();
	while (!stop) {
		int n;

		t = now_s();
		elapsed = t - t0;
		if (elapsed >= seconds)
			break;
		/* at a rate: no batch before its time (nor after the end) */
		if (rate > 0 && sent + dropped > elapsed * rate) {
			double wait = (sent + dropped) / rate - elapsed;

			if (wait > seconds - elapsed)
				wait = seconds - elapsed;
			struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };

			nanosleep(&ts, NULL);
			continue;
		}
		for (i = 0; i < BATCH; i++)
			fill(pkts[i], net, hostmask, to.sin_addr, port);
		n = sendmmsg(fd, msgs, BATCH, 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN) {
				dropped += BATCH;
				continue;
			}
			perror("synflood: sendmmsg");
			return 1;
		}
		sent += n;
		dropped += BATCH - n;
	}
	elapsed = now_s() - t0;
	if (elapsed <= 0)
		elapsed = 1e-9;
	printf("{\"sent\": %llu, \"dropped\": %llu, \"seconds\": %.3f, \"rate\": %.0f}\n",
	       sent, dropped, elapsed, sent / elapsed);
	return 0;
}
