// SPDX-License-Identifier: GPL-2.0
/* A small JSON reader (json_read.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_read.h"

#define JR_DEPTH	8

struct reader {
	const char *p;
	struct jr_doc *d;
	const char *why;
	int skip;		/* in an array: nothing is kept */
};

static void skip_ws(struct reader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int fail(struct reader *r, const char *why)
{
	r->why = why;
	return -1;
}

static int hex4(const char *p, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/*
 * a string into buf (len bytes with the NUL), r->p at its opening quote;
 * one too long fails, or if @cut, is cut to what buf holds (a daemon's
 * long last error is still worth its start)
 */
static int read_string(struct reader *r, char *buf, size_t len, bool cut)
{
	size_t n = 0;
	unsigned int u;
	char c;

	r->p++;
	for (;;) {
		c = *r->p++;
		if (c == '"')
			break;
		if (!c)
			return fail(r, "a string does not end");
		if ((unsigned char)c < 0x20)
			return fail(r, "a control character in a string");
		if (c == '\\') {
			c = *r->p++;
			switch (c) {
			case '"': case '\\': case '/':
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			case 'u':
				if (hex4(r->p, &u))
					return fail(r, "a bad \\u escape");
				r->p += 4;
				/* (the writer escapes control characters only) */
				c = u < 0x80 ? (char)u : '?';
				break;
			default:
				return fail(r, "a bad escape in a string");
			}
		}
		if (n + 1 >= len) {
			if (!cut)
				return fail(r, "a key too long");
			continue;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

static struct jr_pair *new_pair(struct reader *r, const char *key)
{
	struct jr_pair *p;

	if (r->d->n >= r->d->max) {
		fail(r, "too many members");
		return NULL;
	}
	p = &r->d->pair[r->d->n];
	memset(p, 0, sizeof(*p));
	if ((size_t)snprintf(p->key, sizeof(p->key), "%s", key) >= sizeof(p->key)) {
		fail(r, "a key too long");
		return NULL;
	}
	return p;
}

static int read_object(struct reader *r, const char *prefix, int depth);

/* an array, skipped: its elements are read but not kept */
static int skip_value(struct reader *r, int depth);

static int skip_array(struct reader *r, int depth)
{
	int ret = 0;

	if (depth >= JR_DEPTH)
		return fail(r, "nested too deep");
	r->p++;
	r->skip++;
	skip_ws(r);
	if (*r->p == ']')
		goto out;
	for (;;) {
		ret = skip_value(r, depth + 1);
		if (ret)
			break;
		skip_ws(r);
		if (*r->p == ']')
			break;
		if (*r->p++ != ',') {
			ret = fail(r, "expected , or ] in an array");
			break;
		}
		skip_ws(r);
	}
out:
	if (!ret)
		r->p++;
	r->skip--;
	return ret;
}

static int read_integer(struct reader *r, bool *neg, uint64_t *u)
{
	uint64_t v = 0;

	*neg = *r->p == '-';
	if (*neg)
		r->p++;
	if (*r->p < '0' || *r->p > '9')
		return fail(r, "a bad value");
	if (*r->p == '0' && r->p[1] >= '0' && r->p[1] <= '9')
		return fail(r, "a number with a leading zero");
	while (*r->p >= '0' && *r->p <= '9') {
		unsigned int digit = (unsigned int)(*r->p++ - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return fail(r, "a number too large");
		v = v * 10 + digit;
	}
	if (*r->p == '.' || *r->p == 'e' || *r->p == 'E')
		return fail(r, "a number that is not an integer");
	/* (an int64_t holds every negative one taken) */
	if (*neg && v > (uint64_t)INT64_MAX + 1)
		return fail(r, "a number too large");
	*u = v;
	return 0;
}

/* a value of the member KEY (NULL: in an array, not kept) */
static int read_value(struct reader *r, const char *key, int depth)
{
	struct jr_pair tmp, *p;

	/* the object's members, not the object, are pairs; arrays are not kept */
	if (*r->p == '{')
		return read_object(r, key, depth + 1);
	if (*r->p == '[')
		return skip_array(r, depth);
	p = key ? new_pair(r, key) : &tmp;
	if (!p)
		return -1;
	switch (*r->p) {
	case '"':
		p->type = JR_STR;
		if (read_string(r, p->str, sizeof(p->str), true))
			return -1;
		break;
	case 't':
	case 'f':
		p->type = JR_BOOL;
		p->b = *r->p == 't';
		if (strncmp(r->p, p->b ? "true" : "false", p->b ? 4 : 5))
			return fail(r, "a bad value");
		r->p += p->b ? 4 : 5;
		break;
	case 'n':
		p->type = JR_NULL;
		if (strncmp(r->p, "null", 4))
			return fail(r, "a bad value");
		r->p += 4;
		break;
	default:
		p->type = JR_INT;
		if (read_integer(r, &p->neg, &p->u))
			return -1;
		break;
	}
	if (key)
		r->d->n++;
	return 0;
}

static int skip_value(struct reader *r, int depth)
{
	if (*r->p == '{')
		return read_object(r, NULL, depth + 1);
	if (*r->p == '[')
		return skip_array(r, depth);
	return read_value(r, NULL, depth);
}

/* an object, r->p at its brace; its members' keys under PREFIX (NULL: none) */
static int read_object(struct reader *r, const char *prefix, int depth)
{
	char key[JR_KEY_LEN], full[JR_KEY_LEN];

	if (depth > JR_DEPTH)
		return fail(r, "nested too deep");
	r->p++;
	skip_ws(r);
	if (*r->p == '}') {
		r->p++;
		return 0;
	}
	for (;;) {
		if (!*r->p)
			return fail(r, "the text ends inside an object");
		if (*r->p != '"')
			return fail(r, "expected a key");
		if (read_string(r, key, sizeof(key), false))
			return -1;
		skip_ws(r);
		if (*r->p++ != ':')
			return fail(r, "expected : after a key");
		skip_ws(r);
		if ((size_t)snprintf(full, sizeof(full), "%s%s%s", prefix ? prefix : "",
				     prefix ? "." : "", key) >= sizeof(full))
			return fail(r, "a key too long");
		/* an object in an array is skipped: its members are not kept */
		if (read_value(r, r->skip ? NULL : full, depth))
			return -1;
		skip_ws(r);
		if (*r->p == '}') {
			r->p++;
			return 0;
		}
		if (!*r->p)
			return fail(r, "the text ends inside an object");
		if (*r->p++ != ',')
			return fail(r, "expected , or } in an object");
		skip_ws(r);
	}
}

int json_read(const char *text, struct jr_doc *d, const char **why)
{
	struct reader r = { .p = text, .d = d };

	d->n = 0;
	skip_ws(&r);
	if (*r.p != '{') {
		*why = "not a JSON object";
		return -1;
	}
	if (read_object(&r, NULL, 1))
		goto bad;
	skip_ws(&r);
	if (*r.p) {
		fail(&r, "something after the object");
		goto bad;
	}
	return 0;
bad:
	*why = r.why;
	return -1;
}

const struct jr_pair *jr_find(const struct jr_doc *d, const char *key)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->pair[i].key, key))
			return &d->pair[i];
	return NULL;
}

bool jr_u64(const struct jr_doc *d, const char *key, uint64_t *v)
{
	const struct jr_pair *p = jr_find(d, key);

	if (!p || p->type != JR_INT || (p->neg && p->u))
		return false;
	*v = p->u;
	return true;
}

const char *jr_str(const struct jr_doc *d, const char *key)
{
	const struct jr_pair *p = jr_find(d, key);

	return p && p->type == JR_STR ? p->str : NULL;
}

bool jr_bool(const struct jr_doc *d, const char *key, bool *v)
{
	const struct jr_pair *p = jr_find(d, key);

	if (!p || p->type != JR_BOOL)
		return false;
	*v = p->b;
	return true;
}
