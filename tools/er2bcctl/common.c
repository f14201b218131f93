// SPDX-License-Identifier: GPL-2.0
/* What the commands share: messages, the target qdisc, the families. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/er2bc_genl.h>
#include <linux/tcp_rcvmgr.h>

#include "decode.h"
#include "er2bcctl.h"
#include "nl.h"
#include "parse.h"
#include "rcvmgr.h"

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

void kernel_error(const struct family *fam, const struct nl_err *err, int ret,
		  const char *what)
{
	int error = err->error ? err->error : -ret;
	const char *name = NULL;

	if (err->msg[0]) {
		err_msg("%s: %s", err->msg, strerror(error));
	} else if (err->has_miss) {
		if (fam && fam->attr_name)
			name = fam->attr_name(err->miss_type);
		if (name)
			err_msg("%s: missing attribute %s: %s", what, name, strerror(error));
		else
			err_msg("%s: missing attribute %u: %s", what, err->miss_type,
				strerror(error));
	} else {
		err_msg("%s: %s", what, strerror(error));
	}
}

struct family fam_er2bc = {
	.name		= ER2BC_FAMILY_NAME,
	.missing	= "generic netlink family " ER2BC_FAMILY_NAME
			  " not found (is sch_er2bc loaded?)",
	.attr_name	= qdisc_attr_name,
};

struct family fam_rcvmgr = {
	.name		= TCP_RCVMGR_FAMILY_NAME,
	.missing	= "the tcp_rcvmgr module is not loaded (generic netlink family "
			  TCP_RCVMGR_FAMILY_NAME " not found)",
	.attr_name	= rcvmgr_config_attr_name,
};

/* every family, for the batch to forget their ids at its end */
static struct family *const families[] = { &fam_er2bc, &fam_rcvmgr };

/* resolves @fam (and @group) over @nl, open: 0, or EXIT_FAIL after the message */
static int family_resolve(struct nl *nl, const struct family *fam, const char *group)
{
	struct nl_err err;
	int ret;

	ret = nl_resolve(nl, fam->name, group, &err);
	if (ret == -ENOENT) {
		err_msg("%s", fam->missing);
		return EXIT_FAIL;
	}
	if (ret) {
		char what[128];

		snprintf(what, sizeof(what), "resolving the generic netlink family %s",
			 fam->name);
		kernel_error(NULL, &err, ret, what);
		return EXIT_FAIL;
	}
	if (group && !nl->group) {
		err_msg("generic netlink family %s has no multicast group %s",
			fam->name, group);
		return EXIT_FAIL;
	}
	return 0;
}

static int socket_open(struct nl *nl)
{
	int ret = nl_open(nl);

	if (ret) {
		err_msg("cannot open a generic netlink socket: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	return 0;
}

int family_connect(struct nl *nl, const struct family *fam, const char *group)
{
	if (socket_open(nl))
		return EXIT_FAIL;
	if (family_resolve(nl, fam, group)) {
		nl_close(nl);
		return EXIT_FAIL;
	}
	return 0;
}

/* the batch's socket: opened for its first command that needs one */
static struct nl batch_nl;
static bool batch_on, batch_open, batch_is_broken;

void batch_begin(void)
{
	batch_on = true;
}

bool batch_broken(void)
{
	return batch_is_broken;
}

void batch_end(void)
{
	size_t i;

	if (batch_open)
		nl_close(&batch_nl);
	for (i = 0; i < ARRAY_SIZE(families); i++)
		families[i]->resolved = false;
	batch_on = false;
	batch_open = false;
	batch_is_broken = false;
}

int family_get(struct family *fam, struct nl *own, struct nl **nl)
{
	if (!batch_on) {
		*nl = own;
		return family_connect(own, fam, NULL);
	}
	if (batch_is_broken)
		return EXIT_FAIL;
	if (!batch_open) {
		if (socket_open(&batch_nl)) {
			batch_is_broken = true;
			return EXIT_FAIL;
		}
		batch_open = true;
	}
	if (!fam->resolved) {
		if (family_resolve(&batch_nl, fam, NULL)) {
			batch_is_broken = true;
			return EXIT_FAIL;
		}
		fam->id = batch_nl.family;
		fam->version = batch_nl.version;
		fam->resolved = true;
	}
	batch_nl.family = fam->id;
	batch_nl.version = fam->version;
	*nl = &batch_nl;
	return 0;
}

void family_put(struct nl *nl)
{
	if (nl != &batch_nl)
		nl_close(nl);
}
