// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the JSON reader (tools/lib/json_read.c) that
 * er2bcctl status reads the daemon's status files with, on any text. What
 * it takes must be within its bounds; ASan and UBSan catch the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "json_read.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct jr_pair pair[16];
	struct jr_doc d = { .pair = pair, .max = 16 };
	const char *why;
	uint64_t v;
	char *text;
	size_t i;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (json_read(text, &d, &why) == 0) {
		if (d.n > d.max)
			abort();
		for (i = 0; i < d.n; i++) {
			if (!memchr(pair[i].key, '\0', sizeof(pair[i].key)) ||
			    !memchr(pair[i].str, '\0', sizeof(pair[i].str)))
				abort();
			jr_u64(&d, pair[i].key, &v);
		}
	} else if (!why || d.n > d.max) {
		abort();
	}
	free(text);
	return 0;
}
