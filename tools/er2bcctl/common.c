// SPDX-License-Identifier: GPL-2.0
/* What the commands share: messages, the target qdisc, the family. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/er2bc_genl.h>

#include "decode.h"
#include "er2bcctl.h"
#include "nl.h"
#include "parse.h"

struct out_opts out;
const char *cmd_name = PROG;
unsigned long batch_line;

/* "er2bcctl: ", and in a batch "line N: " */
static void msg_prefix(void)
{
	fputs(PROG ": ", stderr);
	if (batch_line)
		fprintf(stderr, "line %lu: ", batch_line);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	msg_prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	msg_prefix();
	fprintf(stderr, "%s: ", cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int usage_bad(const char *key, const char *arg, const char *why)
{
	return usage_err("invalid %s \"%s\": %s", key, arg, why);
}

int once(bool *seen, const char *key)
{
	if (*seen)
		return usage_err("\"%s\" given twice", key);
	*seen = true;
	return 0;
}

static int target_dev(struct target *t, const char *key, const char *val)
{
	char name[IF_NAMESIZE];
	const char *why;

	if (t->how)
		return strcmp(t->how, key) ? usage_err("give dev or ifindex, not both") :
					     usage_err("\"%s\" given twice", key);
	t->how = key;
	if (!strcmp(key, "dev")) {
		if (!*val || strlen(val) >= IF_NAMESIZE)
			return usage_bad(key, val, "not a device name");
		t->ifindex = if_nametoindex(val);
		if (!t->ifindex)
			return usage_bad(key, val, "no such device");
		return 0;
	}
	if (parse_u32(val, &t->ifindex, &why))
		return usage_bad(key, val, why);
	if (!t->ifindex || !if_indextoname(t->ifindex, name))
		return usage_bad(key, val, "no such device");
	return 0;
}

int target_arg(struct target *t, const char *key, const char *val)
{
	const char *why;

	if (!strcmp(key, "dev") || !strcmp(key, "ifindex"))
		return target_dev(t, key, val);
	if (strcmp(key, "handle"))
		return 1;
	if (t->handle)
		return usage_err("\"%s\" given twice", key);
	if (parse_handle(val, &t->handle, &why))
		return usage_bad(key, val, why);
	return 0;
}

int target_check(const struct target *t)
{
	if (!t->how)
		return usage_err("missing \"dev\" (or \"ifindex\")");
	if (!t->handle)
		return usage_err("missing \"handle\"");
	return 0;
}

void kernel_error(const struct nl_err *err, int ret, const char *what)
{
	int error = err->error ? err->error : -ret;
	const char *name;

	if (err->msg[0]) {
		err_msg("%s: %s", err->msg, strerror(error));
	} else if (err->has_miss) {
		name = qdisc_attr_name(err->miss_type);
		if (name)
			err_msg("%s: missing attribute %s: %s", what, name, strerror(error));
		else
			err_msg("%s: missing attribute %u: %s", what, err->miss_type,
				strerror(error));
	} else {
		err_msg("%s: %s", what, strerror(error));
	}
}

int er2bc_connect(struct nl *nl, bool monitor)
{
	struct nl_err err;
	int ret;

	ret = nl_open(nl);
	if (ret) {
		err_msg("cannot open a generic netlink socket: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	ret = nl_resolve(nl, ER2BC_FAMILY_NAME, monitor ? ER2BC_MCGRP_MONITOR : NULL, &err);
	if (ret == -ENOENT) {
		err_msg("generic netlink family %s not found (is sch_er2bc loaded?)",
			ER2BC_FAMILY_NAME);
		goto fail;
	}
	if (ret) {
		kernel_error(&err, ret, "resolving the generic netlink family " ER2BC_FAMILY_NAME);
		goto fail;
	}
	if (monitor && !nl->group) {
		err_msg("generic netlink family %s has no multicast group %s",
			ER2BC_FAMILY_NAME, ER2BC_MCGRP_MONITOR);
		goto fail;
	}
	return 0;
fail:
	nl_close(nl);
	return EXIT_FAIL;
}

/* the batch's socket: opened for its first command that needs one */
static struct nl batch_nl;
static bool batch_on, batch_open, batch_broken;

void er2bc_batch_begin(void)
{
	batch_on = true;
}

bool er2bc_batch_broken(void)
{
	return batch_broken;
}

void er2bc_batch_end(void)
{
	if (batch_open)
		nl_close(&batch_nl);
	batch_on = batch_open = false;
}

int er2bc_get(struct nl *own, struct nl **nl)
{
	int ret;

	if (!batch_on) {
		ret = er2bc_connect(own, false);
		*nl = own;
		return ret;
	}
	if (batch_broken)
		return EXIT_FAIL;
	if (!batch_open) {
		ret = er2bc_connect(&batch_nl, false);
		if (ret) {
			batch_broken = true;
			return ret;
		}
		batch_open = true;
	}
	*nl = &batch_nl;
	return 0;
}

void er2bc_put(struct nl *nl)
{
	if (nl != &batch_nl)
		nl_close(nl);
}
