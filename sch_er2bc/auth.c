// SPDX-License-Identifier: GPL-2.0
/* A request's tag and replay window (auth.h). */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "auth.h"
#include "probe.h"

bool er2bc_replay_newer(const struct er2bc_replay *w, u64 epoch, u16 seq)
{
	if (!w->have || epoch > w->epoch)
		return true;
	/* ahead by 1 to half the sequence space, as after() judges TCP's */
	return epoch == w->epoch && (s16)(seq - w->seq) > 0;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_replay_newer);

bool er2bc_probe_tag_ok(struct crypto_shash *tfm, const u8 *req, unsigned int len)
{
	const unsigned int body = ER2BC_PROBE_AREQ_BODY - ER2BC_PROBE_TAG_LEN;
	u8 tag[SHA256_DIGEST_SIZE];
	__be16 type;
	bool ok;

	/* the wire's layout: type, seq, epoch, tag; copied, as it is unaligned */
	if (len != ER2BC_PROBE_AREQ_BODY)
		return false;
	memcpy(&type, req, sizeof(type));
	if (type != htons(ER2BC_PROBE_REQUEST | ER2BC_PROBE_AUTH))
		return false;
	ok = !crypto_shash_tfm_digest(tfm, req, body, tag) &&
	     !crypto_memneq(tag, req + body, ER2BC_PROBE_TAG_LEN);
	memzero_explicit(tag, sizeof(tag));
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_probe_tag_ok);

enum er2bc_auth er2bc_replay_take(struct er2bc_replay *w, const u8 *req)
{
	__be16 seq;
	__be64 epoch;

	memcpy(&seq, req + 2, sizeof(seq));
	memcpy(&epoch, req + 4, sizeof(epoch));
	if (!er2bc_replay_newer(w, be64_to_cpu(epoch), ntohs(seq)))
		return ER2BC_AUTH_REPLAYED;
	w->have = true;
	w->epoch = be64_to_cpu(epoch);
	w->seq = ntohs(seq);
	return ER2BC_AUTH_OK;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_replay_take);
