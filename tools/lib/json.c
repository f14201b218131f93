// SPDX-License-Identifier: GPL-2.0
/* A small JSON writer (json.h). */
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->pretty = pretty;
	j->depth = 0;
	j->comma = false;
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	j->comma = false;
}

static void indent(struct json *j)
{
	unsigned int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_string(struct json *j, const char *s)
{
	const unsigned char *p;

	fputc('"', j->f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", j->f);
			break;
		case '\\':
			fputs("\\\\", j->f);
			break;
		case '\n':
			fputs("\\n", j->f);
			break;
		case '\t':
			fputs("\\t", j->f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(j->f, "\\u%04x", *p);
			else
				fputc(*p, j->f);
		}
	}
	fputc('"', j->f);
}

/* what goes before a value: the comma, the indent, the key */
static void value_start(struct json *j, const char *key)
{
	if (j->comma)
		fputc(',', j->f);
	if (j->depth)
		indent(j);
	if (key) {
		put_string(j, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
	j->comma = true;
}

static void container_open(struct json *j, const char *key, char c)
{
	value_start(j, key);
	fputc(c, j->f);
	j->depth++;
	j->comma = false;
}

static void container_close(struct json *j, char c)
{
	bool empty = !j->comma;

	j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
	j->comma = true;
}

void json_obj_open(struct json *j, const char *key)
{
	container_open(j, key, '{');
}

void json_obj_close(struct json *j)
{
	container_close(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	container_open(j, key, '[');
}

void json_arr_close(struct json *j)
{
	container_close(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	value_start(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_s64(struct json *j, const char *key, int64_t v)
{
	value_start(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_str(struct json *j, const char *key, const char *s)
{
	value_start(j, key);
	put_string(j, s);
}

void json_bool(struct json *j, const char *key, bool v)
{
	value_start(j, key);
	fputs(v ? "true" : "false", j->f);
}
