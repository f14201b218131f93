// SPDX-License-Identifier: GPL-2.0
/* The estimator's messages (wire.h). */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "wire.h"

_Static_assert(WIRE_AHELLO_LEN <= WIRE_MAX_LEN, "a hello fits WIRE_MAX_LEN");

static const char *const verdict_names[WIRE_NVERDICTS] = {
	[WIRE_OK]		= "ok",
	[WIRE_MALFORMED]	= "malformed",
	[WIRE_UNAUTH]		= "unauthenticated",
	[WIRE_REPLAYED]		= "replayed",
	[WIRE_UNEXPECTED]	= "unexpected",
};

const char *wire_verdict_name(enum wire_verdict v)
{
	return v < WIRE_NVERDICTS ? verdict_names[v] : "?";
}

size_t wire_req_len(bool auth)
{
	return auth ? WIRE_AREQ_LEN : WIRE_REQ_LEN;
}

size_t wire_req_body_len(bool auth)
{
	return auth ? WIRE_AREQ_BODY : WIRE_REQ_BODY;
}

size_t wire_resp_len(bool auth)
{
	return auth ? WIRE_ARESP_LEN : WIRE_RESP_LEN;
}

size_t wire_probe_len(bool auth)
{
	return auth ? WIRE_APROBE_LEN : WIRE_PROBE_LEN;
}

unsigned int wire_bytes_per_probe(bool ipv6, bool auth)
{
	unsigned int hdr = ipv6 ? WIRE_IPV6_HDR : WIRE_IPV4_HDR;

	return 2 * (hdr + (unsigned int)wire_probe_len(auth));
}

unsigned int wire_bytes_per_estimate(bool ipv6, bool auth)
{
	unsigned int hdr = ipv6 ? WIRE_IPV6_HDR : WIRE_IPV4_HDR;

	return 2 * hdr + (unsigned int)(wire_req_len(auth) + wire_resp_len(auth));
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

void wire_tag(const struct wire_key *key, const uint8_t *data, size_t len,
	      uint8_t *tag)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;

	if (!HMAC(EVP_sha256(), key->data, (int)key->len, data, len, md, &md_len) ||
	    md_len < WIRE_TAG_LEN) {
		/* cannot happen with SHA-256; a tag that matches nothing */
		memset(tag, 0, WIRE_TAG_LEN);
		return;
	}
	memcpy(tag, md, WIRE_TAG_LEN);
	OPENSSL_cleanse(md, sizeof(md));
}

/* the tag over the @len - WIRE_TAG_LEN bytes before it, written after them */
static void sign(const struct wire_key *key, uint8_t *buf, size_t len)
{
	wire_tag(key, buf, len - WIRE_TAG_LEN, buf + len - WIRE_TAG_LEN);
}

static bool verify(const struct wire_key *key, const uint8_t *buf, size_t len)
{
	uint8_t tag[WIRE_TAG_LEN];

	wire_tag(key, buf, len - WIRE_TAG_LEN, tag);
	return !CRYPTO_memcmp(tag, buf + len - WIRE_TAG_LEN, WIRE_TAG_LEN);
}

size_t wire_req_encode(uint8_t *buf, const struct wire_req *r,
		       const struct wire_key *key)
{
	bool auth = key->len;
	size_t len = wire_req_len(auth);

	memset(buf, 0, len);
	put16(buf, WIRE_REQUEST | (auth ? WIRE_AUTH : 0));
	put16(buf + 2, r->seq);
	if (auth) {
		put64(buf + 4, r->epoch);
		sign(key, buf, WIRE_AREQ_BODY);
	}
	return len;
}

size_t wire_resp_encode(uint8_t *buf, const struct wire_resp *r,
			const struct wire_key *key)
{
	bool auth = key->len;
	size_t len = wire_resp_len(auth);

	put16(buf, WIRE_RESPONSE | (auth ? WIRE_AUTH : 0));
	put16(buf + 2, r->seq);
	put64(buf + 4, r->packets);
	put64(buf + 12, r->bytes);
	put64(buf + 20, r->time);
	if (auth) {
		put64(buf + 28, r->epoch);
		sign(key, buf, len);
	}
	return len;
}

/*
 * The checks both decoders make, in this order: the type (without its
 * flag) is @type, the flag agrees with the mode, the length is the mode's,
 * zeros only behind the first @body bytes, the tag (the last of those) is
 * good. A response's body is the whole of it.
 */
static enum wire_verdict check(const uint8_t *buf, size_t len, uint16_t type,
			       size_t plain_len, size_t auth_len, size_t body,
			       const struct wire_key *key)
{
	bool auth = key->len;
	size_t i;
	uint16_t t;

	if (len < 2)
		return WIRE_MALFORMED;
	t = get16(buf);
	if ((t & ~WIRE_AUTH) != type)
		return WIRE_MALFORMED;
	if (!(t & WIRE_AUTH) != !auth)
		return WIRE_UNAUTH;
	if (len != (auth ? auth_len : plain_len))
		return WIRE_MALFORMED;
	for (i = body; i < len; i++)
		if (buf[i])
			return WIRE_MALFORMED;
	if (auth && !verify(key, buf, body))
		return WIRE_UNAUTH;
	return WIRE_OK;
}

enum wire_verdict wire_req_decode(const uint8_t *buf, size_t len,
				  const struct wire_key *key, struct wire_req *r)
{
	enum wire_verdict v;

	v = check(buf, len, WIRE_REQUEST, WIRE_REQ_LEN, WIRE_AREQ_LEN,
		  wire_req_body_len(key->len), key);
	if (v != WIRE_OK)
		return v;
	memset(r, 0, sizeof(*r));
	r->seq = get16(buf + 2);
	if (key->len)
		r->epoch = get64(buf + 4);
	return WIRE_OK;
}

enum wire_verdict wire_resp_decode(const uint8_t *buf, size_t len,
				   const struct wire_key *key, struct wire_resp *r)
{
	enum wire_verdict v;

	v = check(buf, len, WIRE_RESPONSE, WIRE_RESP_LEN, WIRE_ARESP_LEN,
		  wire_resp_len(key->len), key);
	if (v != WIRE_OK)
		return v;
	memset(r, 0, sizeof(*r));
	r->seq = get16(buf + 2);
	r->packets = get64(buf + 4);
	r->bytes = get64(buf + 12);
	r->time = get64(buf + 20);
	if (key->len)
		r->epoch = get64(buf + 28);
	return WIRE_OK;
}

uint16_t wire_type(const uint8_t *buf, size_t len)
{
	return len < 2 ? 0 : get16(buf) & ~WIRE_AUTH;
}

size_t wire_probe_encode(uint8_t *buf, const struct wire_probe *p,
			 const struct wire_key *key)
{
	bool auth = key->len;
	size_t len = wire_probe_len(auth);

	memset(buf, 0, len);
	put16(buf, WIRE_PROBE | (auth ? WIRE_AUTH : 0));
	put32(buf + 4, p->seq);
	if (auth) {
		put64(buf + 8, p->epoch);
		sign(key, buf, WIRE_APROBE_BODY);
	}
	return len;
}

size_t wire_echo_encode(uint8_t *buf, const struct wire_echo *e,
			const struct wire_key *key)
{
	bool auth = key->len;
	size_t len = wire_probe_len(auth);

	memset(buf, 0, len);
	put16(buf, WIRE_ECHO | (auth ? WIRE_AUTH : 0));
	put32(buf + 4, e->seq);
	put64(buf + 8, e->time);
	if (auth) {
		put64(buf + 16, e->epoch);
		sign(key, buf, len);
	}
	return len;
}

/*
 * check() for a probe or an echo (both of a probe's length), and their
 * bytes 2-3 zero: what a later version may use is malformed now
 */
static enum wire_verdict probe_check(const uint8_t *buf, size_t len, uint16_t type,
				     size_t body, const struct wire_key *key)
{
	enum wire_verdict v;

	v = check(buf, len, type, WIRE_PROBE_LEN, WIRE_APROBE_LEN, body, key);
	if (v == WIRE_OK && (buf[2] || buf[3]))
		v = WIRE_MALFORMED;
	return v;
}

enum wire_verdict wire_probe_decode(const uint8_t *buf, size_t len,
				    const struct wire_key *key, struct wire_probe *p)
{
	enum wire_verdict v;

	v = probe_check(buf, len, WIRE_PROBE, key->len ? WIRE_APROBE_BODY : WIRE_PROBE_BODY,
			key);
	if (v != WIRE_OK)
		return v;
	memset(p, 0, sizeof(*p));
	p->seq = get32(buf + 4);
	if (key->len)
		p->epoch = get64(buf + 8);
	return WIRE_OK;
}

enum wire_verdict wire_echo_decode(const uint8_t *buf, size_t len,
				   const struct wire_key *key, struct wire_echo *e)
{
	enum wire_verdict v;

	v = probe_check(buf, len, WIRE_ECHO, wire_probe_len(key->len), key);
	if (v != WIRE_OK)
		return v;
	memset(e, 0, sizeof(*e));
	e->seq = get32(buf + 4);
	e->time = get64(buf + 8);
	if (key->len)
		e->epoch = get64(buf + 16);
	return WIRE_OK;
}

size_t wire_hello_len(bool auth)
{
	return auth ? WIRE_AHELLO_LEN : WIRE_HELLO_LEN;
}

size_t wire_hello_encode(uint8_t *buf, const struct wire_hello *h,
			 const struct wire_key *key)
{
	bool auth = key->len;
	size_t len = wire_hello_len(auth), i;
	const char *rel = h->release[0] ? h->release : "unknown";

	memset(buf, 0, len);
	put16(buf, h->type | (auth ? WIRE_AUTH : 0));
	put16(buf + 2, h->protocol);
	put32(buf + 4, h->seq);
	for (i = 0; i < WIRE_RELEASE_LEN && rel[i]; i++)
		buf[8 + i] = rel[i] > ' ' && rel[i] <= '~' ? (uint8_t)rel[i] : '?';
	if (auth) {
		put64(buf + 24, h->epoch);
		sign(key, buf, len);
	}
	return len;
}

enum wire_verdict wire_hello_decode(const uint8_t *buf, size_t len, uint16_t type,
				    const struct wire_key *key, struct wire_hello *h)
{
	enum wire_verdict v;
	size_t i, n;

	v = check(buf, len, type, WIRE_HELLO_LEN, WIRE_AHELLO_LEN, wire_hello_len(key->len),
		  key);
	if (v != WIRE_OK)
		return v;
	/* printable, then zeros only; not empty */
	for (n = 0; n < WIRE_RELEASE_LEN && buf[8 + n]; n++)
		if (buf[8 + n] <= ' ' || buf[8 + n] > '~')
			return WIRE_MALFORMED;
	for (i = n; i < WIRE_RELEASE_LEN; i++)
		if (buf[8 + i])
			return WIRE_MALFORMED;
	if (!n || get16(buf + 2) < 2)
		return WIRE_MALFORMED;
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->protocol = get16(buf + 2);
	h->seq = get32(buf + 4);
	memcpy(h->release, buf + 8, n);
	if (key->len)
		h->epoch = get64(buf + 24);
	return WIRE_OK;
}

bool replay_newer(const struct replay *w, uint64_t epoch, uint16_t seq)
{
	uint16_t ahead;

	if (!w->have || epoch > w->epoch)
		return true;
	if (epoch < w->epoch)
		return false;
	ahead = (uint16_t)(seq - w->seq);
	return ahead >= 1 && ahead <= 32767;
}

void replay_accept(struct replay *w, uint64_t epoch, uint16_t seq)
{
	w->have = true;
	w->epoch = epoch;
	w->seq = seq;
}

bool replay32_newer(const struct replay32 *w, uint64_t epoch, uint32_t seq)
{
	uint32_t ahead;

	if (!w->have || epoch > w->epoch)
		return true;
	if (epoch < w->epoch)
		return false;
	ahead = seq - w->seq;
	return ahead >= 1 && ahead <= 0x7fffffffU;
}

void replay32_accept(struct replay32 *w, uint64_t epoch, uint32_t seq)
{
	w->have = true;
	w->epoch = epoch;
	w->seq = seq;
}
