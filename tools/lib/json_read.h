/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for the project's own files (er2bc-abwd's status
 * file): one object, its members flattened into key/value pairs, a nested
 * object's members under "outer.inner"; arrays are skipped. Numbers are
 * integers, as the writer (json.h) writes them (a negative one at least
 * INT64_MIN). Strict: anything else, a trailing comma, a key too long or
 * nesting too deep is refused with a reason; a string value too long is
 * cut to JR_STR_LEN - 1 bytes.
 */
#ifndef _ER2BC_LIB_JSON_READ_H
#define _ER2BC_LIB_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JR_KEY_LEN	64
#define JR_STR_LEN	256

enum jr_type { JR_INT, JR_STR, JR_BOOL, JR_NULL };

struct jr_pair {
	char key[JR_KEY_LEN];
	enum jr_type type;
	bool neg;		/* JR_INT: below 0, its magnitude in u (at most 2^63) */
	uint64_t u;
	bool b;
	char str[JR_STR_LEN];
};

struct jr_doc {
	struct jr_pair *pair;
	size_t n, max;
};

/*
 * Parse the NUL-terminated @text into @d (@d->pair has room for @d->max):
 * 0, or -1 with @why and @d->n the pairs read before it
 */
int json_read(const char *text, struct jr_doc *d, const char **why);

/* the pair KEY, or NULL */
const struct jr_pair *jr_find(const struct jr_doc *d, const char *key);
/* KEY as a u64 (an integer >= 0): true, or false if absent or not one */
bool jr_u64(const struct jr_doc *d, const char *key, uint64_t *v);
/* KEY as a string: the string, or NULL */
const char *jr_str(const struct jr_doc *d, const char *key);
/* KEY as a boolean: true if it is one (in *v) */
bool jr_bool(const struct jr_doc *d, const char *key, bool *v);

#endif /* _ER2BC_LIB_JSON_READ_H */
