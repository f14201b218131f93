/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The estimator's messages over UDP (Documentation/er2bc-estimator.rst,
 * "Wire protocol"): encoding, decoding, authentication (HMAC-SHA-256
 * truncated to 128 bits) and the responder's replay window. All integers
 * in network byte order. No I/O.
 */
#ifndef _ABWD_WIRE_H
#define _ABWD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_REQUEST		1
#define WIRE_RESPONSE		2
#define WIRE_PROBE		3	/* a delay probe (probe-interval) */
#define WIRE_ECHO		4	/* its echo */
#define WIRE_HELLO		5	/* the sender's versions */
#define WIRE_HELLO_REPLY	6	/* the responder's, in answer */
#define WIRE_AUTH		0x8000	/* flag: an authenticated message */

#define WIRE_TAG_LEN		16
#define WIRE_RESP_LEN		28	/* type, seq, packets, bytes, time */
#define WIRE_ARESP_LEN		52	/* type, seq, packets, bytes, time, epoch, tag */
/*
 * A request's body, the key of its snapshots in both kernels, then zeros
 * up to its response's length: a response is never larger than the
 * request it answers, so the responder amplifies nothing it is sent.
 */
#define WIRE_REQ_BODY		4	/* type, seq */
#define WIRE_AREQ_BODY		28	/* type, seq, epoch, tag */
#define WIRE_REQ_LEN		WIRE_RESP_LEN
#define WIRE_AREQ_LEN		WIRE_ARESP_LEN
#define WIRE_MAX_LEN		WIRE_ARESP_LEN

/*
 * A delay probe and its echo: the probe's body (type, zeros, seq; epoch
 * and tag authenticated), then zeros up to its echo's length; the echo
 * (type, zeros, seq, the responder's receipt time; epoch and tag
 * authenticated), as large as the probe and no larger.
 */
#define WIRE_PROBE_BODY		8	/* type, 0, seq */
#define WIRE_APROBE_BODY	32	/* type, 0, seq, epoch, tag */
#define WIRE_ECHO_LEN		16	/* type, 0, seq, time */
#define WIRE_AECHO_LEN		40	/* type, 0, seq, time, epoch, tag */
#define WIRE_PROBE_LEN		WIRE_ECHO_LEN
#define WIRE_APROBE_LEN		WIRE_AECHO_LEN

/*
 * The protocol the daemons speak: 1, requests and responses, delay probes
 * and their echoes; 2, and hellos. A peer that answers requests but no
 * hello speaks 1. A hello and its reply: type, protocol, seq (the
 * sender's hello counter from a random start; the reply's is the
 * hello's), release (the software's version, printable
 * ASCII, zeros after it); epoch (the sender's, the reply's the hello's)
 * and tag authenticated. A reply is as large as its hello.
 */
#define WIRE_PROTOCOL		2
#define WIRE_RELEASE_LEN	16
#define WIRE_HELLO_LEN		24	/* type, protocol, seq, release */
#define WIRE_AHELLO_LEN		48	/* type, protocol, seq, release, epoch, tag */

/* IP and UDP headers a message carries on the wire */
#define WIRE_IPV4_HDR		(20 + 8)
#define WIRE_IPV6_HDR		(40 + 8)

/* the shortest key the daemon takes, and the longest */
#define WIRE_KEY_MIN		16
#define WIRE_KEY_MAX		1024

struct wire_key {
	uint8_t data[WIRE_KEY_MAX];
	size_t len;		/* 0: plain (unauthenticated) mode */
};

struct wire_req {
	uint16_t seq;
	uint64_t epoch;		/* authenticated mode only */
};

struct wire_resp {
	uint16_t seq;
	uint64_t packets;	/* P_r */
	uint64_t bytes;		/* B_r */
	uint64_t time;		/* T_r, ns */
	uint64_t epoch;		/* authenticated mode only: the request's */
};

struct wire_probe {
	uint32_t seq;
	uint64_t epoch;		/* authenticated mode only */
};

struct wire_echo {
	uint32_t seq;		/* the probe's */
	uint64_t time;		/* ns, the responder's CLOCK_MONOTONIC at its receipt */
	uint64_t epoch;		/* authenticated mode only: the probe's */
};

struct wire_hello {
	uint16_t type;		/* WIRE_HELLO or WIRE_HELLO_REPLY */
	uint16_t protocol;	/* the side's WIRE_PROTOCOL, 2 or more */
	uint32_t seq;		/* the hello's: the sender's counter */
	char release[WIRE_RELEASE_LEN + 1];	/* NUL-terminated */
	uint64_t epoch;		/* authenticated mode only: the hello's */
};

/* why a datagram was dropped; WIRE_OK: it was not */
enum wire_verdict {
	WIRE_OK,
	WIRE_MALFORMED,		/* wrong length or type */
	WIRE_UNAUTH,		/* bad tag, or plain vs authenticated mismatch */
	WIRE_REPLAYED,		/* not newer than the newest accepted */
	WIRE_UNEXPECTED,	/* not the one awaited, or from elsewhere */
	WIRE_NVERDICTS,
};

/* "malformed", "unauthenticated", ... as the status file names them */
const char *wire_verdict_name(enum wire_verdict v);

/*
 * the length of a request, of its body (the key of its snapshots), and of
 * a response, plain (!@auth) or not
 */
size_t wire_req_len(bool auth);
size_t wire_req_body_len(bool auth);
size_t wire_resp_len(bool auth);

/* a probe's length (its echo's too), plain (!@auth) or not */
size_t wire_probe_len(bool auth);

/* a probe and its echo, IP and UDP headers included */
unsigned int wire_bytes_per_probe(bool ipv6, bool auth);

/* request and response, IP and UDP headers included */
unsigned int wire_bytes_per_estimate(bool ipv6, bool auth);

/*
 * Encoders: @key with len 0 writes a plain message (no epoch, no tag).
 * @buf has room for WIRE_MAX_LEN bytes. Return the length written.
 */
size_t wire_req_encode(uint8_t *buf, const struct wire_req *r,
		       const struct wire_key *key);
size_t wire_resp_encode(uint8_t *buf, const struct wire_resp *r,
			const struct wire_key *key);

/*
 * Decoders: WIRE_OK with *r filled, WIRE_MALFORMED (a request with
 * anything but zeros behind its body among them) or WIRE_UNAUTH. In
 * plain mode (@key->len 0) an authenticated message is refused, and the
 * other way round.
 */
enum wire_verdict wire_req_decode(const uint8_t *buf, size_t len,
				  const struct wire_key *key, struct wire_req *r);
enum wire_verdict wire_resp_decode(const uint8_t *buf, size_t len,
				   const struct wire_key *key, struct wire_resp *r);

/* the type of a message, its flag cleared; 0 if too short for one */
uint16_t wire_type(const uint8_t *buf, size_t len);

/* probe and echo, as the request and response above */
size_t wire_probe_encode(uint8_t *buf, const struct wire_probe *p,
			 const struct wire_key *key);
size_t wire_echo_encode(uint8_t *buf, const struct wire_echo *e,
			const struct wire_key *key);
enum wire_verdict wire_probe_decode(const uint8_t *buf, size_t len,
				    const struct wire_key *key, struct wire_probe *p);
enum wire_verdict wire_echo_decode(const uint8_t *buf, size_t len,
				   const struct wire_key *key, struct wire_echo *e);

/* a hello's length (its reply's too), plain (!@auth) or not */
size_t wire_hello_len(bool auth);

/*
 * A hello or its reply (@h->type). The release is cut at WIRE_RELEASE_LEN
 * bytes and what is not printable ASCII written as '?'; an empty one as
 * "unknown". The decoder refuses a protocol below 2 and a release that is
 * empty, not printable or not zero-padded (malformed), and a type other
 * than @type.
 */
size_t wire_hello_encode(uint8_t *buf, const struct wire_hello *h,
			 const struct wire_key *key);
enum wire_verdict wire_hello_decode(const uint8_t *buf, size_t len, uint16_t type,
				    const struct wire_key *key, struct wire_hello *h);

/* HMAC-SHA-256(@key, @data) truncated to WIRE_TAG_LEN bytes */
void wire_tag(const struct wire_key *key, const uint8_t *data, size_t len,
	      uint8_t *tag);

/*
 * The responder's replay window: the newest (epoch, seq) it accepted. A
 * request is newer if its epoch is, or with the same epoch its seq is
 * 1..32767 ahead in 16-bit serial arithmetic.
 */
struct replay {
	bool have;
	uint64_t epoch;
	uint16_t seq;
};

bool replay_newer(const struct replay *w, uint64_t epoch, uint16_t seq);
void replay_accept(struct replay *w, uint64_t epoch, uint16_t seq);

/* the same for the probes, whose seq is 32 bits: 1..2^31 - 1 ahead */
struct replay32 {
	bool have;
	uint64_t epoch;
	uint32_t seq;
};

bool replay32_newer(const struct replay32 *w, uint64_t epoch, uint32_t seq);
void replay32_accept(struct replay32 *w, uint64_t epoch, uint32_t seq);

#endif /* _ABWD_WIRE_H */
