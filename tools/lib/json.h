/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer: objects, arrays, numbers, strings, booleans, on a
 * stdio stream, compact (one line) or pretty (indented by two spaces).
 * Members of objects take a key; elements of arrays and the top level pass
 * NULL.
 */
#ifndef _ER2BC_LIB_JSON_H
#define _ER2BC_LIB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	bool pretty;
	unsigned int depth;
	bool comma;		/* a value came before, at this depth */
};

void json_init(struct json *j, FILE *f, bool pretty);
/* after the top-level value: the newline */
void json_end(struct json *j);

void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);

void json_u64(struct json *j, const char *key, uint64_t v);
void json_s64(struct json *j, const char *key, int64_t v);
void json_str(struct json *j, const char *key, const char *s);
void json_bool(struct json *j, const char *key, bool v);

#endif /* _ER2BC_LIB_JSON_H */
