// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the estimator's wire parser (wire.c) on any datagram.
 * The first byte chooses plain or authenticated mode; the rest is the
 * datagram, decoded as a request, a response, a probe, an echo, a hello and its
 * reply. What decodes must
 * encode back to the same bytes, and its (epoch, seq) go through a fresh
 * replay window (each input on its own: a crash replays from its input). ASan and UBSan catch the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static const struct wire_key fuzz_key = {
	.data = "er2bc-fuzz-key-0123456789abcdef",
	.len = 31,
};
static const struct wire_key plain_key;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct replay w = { 0 };
	struct replay32 w32 = { 0 };
	struct wire_probe probe;
	struct wire_echo echo;
	struct wire_hello hello;
	uint16_t t;
	const struct wire_key *key;
	uint8_t out[WIRE_MAX_LEN];
	struct wire_resp resp;
	struct wire_req req;
	size_t n;

	if (!size)
		return 0;
	key = data[0] & 1 ? &fuzz_key : &plain_key;
	data++;
	size--;

	if (wire_req_decode(data, size, key, &req) == WIRE_OK) {
		n = wire_req_encode(out, &req, key);
		if (n != size || memcmp(out, data, n))
			abort();
		if (key->len && replay_newer(&w, req.epoch, req.seq))
			replay_accept(&w, req.epoch, req.seq);
	}
	if (wire_resp_decode(data, size, key, &resp) == WIRE_OK) {
		n = wire_resp_encode(out, &resp, key);
		if (n != size || memcmp(out, data, n))
			abort();
	}
	if (wire_probe_decode(data, size, key, &probe) == WIRE_OK) {
		n = wire_probe_encode(out, &probe, key);
		if (n != size || memcmp(out, data, n))
			abort();
		if (key->len && replay32_newer(&w32, probe.epoch, probe.seq))
			replay32_accept(&w32, probe.epoch, probe.seq);
	}
	if (wire_echo_decode(data, size, key, &echo) == WIRE_OK) {
		n = wire_echo_encode(out, &echo, key);
		if (n != size || memcmp(out, data, n))
			abort();
	}
	for (t = WIRE_HELLO; t <= WIRE_HELLO_REPLY; t++) {
		if (wire_hello_decode(data, size, t, key, &hello) != WIRE_OK)
			continue;
		n = wire_hello_encode(out, &hello, key);
		if (n != size || memcmp(out, data, n))
			abort();
	}
	(void)wire_type(data, size);
	return 0;
}
