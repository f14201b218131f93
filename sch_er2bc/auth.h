/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The meter's authentication of a request (Documentation/er2bc-estimator.rst,
 * "Trust"): its tag and its replay window. No lock of its own: the window
 * is its meter's, under that meter's lock; the tag is checked before it.
 */
#ifndef _ER2BC_AUTH_H
#define _ER2BC_AUTH_H

#include <linux/types.h>

/*
 * A meter with a key takes a request only if it is authenticated, its tag
 * verifies, and its (epoch, seq) is newer than the newest it took: newer
 * epoch, or the same epoch and a seq 1..32767 ahead in 16-bit serial
 * arithmetic (the responder's window, tools/abwd/wire.h). Nothing else can
 * take a snapshot's place, or be one.
 */
struct er2bc_replay {
	bool have;
	u16 seq;
	u64 epoch;
};

enum er2bc_auth {
	ER2BC_AUTH_OK,			/* taken: the window moved to it */
	ER2BC_AUTH_BAD,			/* plain, wrong size, or a tag that fails */
	ER2BC_AUTH_REPLAYED,		/* not newer than the newest taken */
};

struct crypto_shash;

bool er2bc_replay_newer(const struct er2bc_replay *w, u64 epoch, u16 seq);

/*
 * Is @req, @len bytes, an authenticated request whose tag hmac(sha256)
 * @tfm makes? One HMAC of 12 bytes, no allocation: softirq, no lock.
 */
bool er2bc_probe_tag_ok(struct crypto_shash *tfm, const u8 *req, unsigned int len);

/* a request whose tag is good against window @w, moved if it is newer */
enum er2bc_auth er2bc_replay_take(struct er2bc_replay *w, const u8 *req);

#endif /* _ER2BC_AUTH_H */
