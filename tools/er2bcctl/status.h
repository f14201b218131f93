/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bcctl status (status.c): what it reads of each er2bc-abwd status
 * file and the qdisc a sender feeds, what it finds wrong, how it prints
 * them; apart from the reading, so that the host tests can feed it files.
 */
#ifndef _ER2BCCTL_STATUS_H
#define _ER2BCCTL_STATUS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"
#include "json_read.h"

#define STATUS_PROBLEMS_MAX	8

struct status_daemon {
	char file[PATH_MAX];
	char error[256];		/* the file could not be read: why */
	struct jr_pair pair[128];	/* a sender's file has about 80 */
	struct jr_doc doc;
	struct qdisc_info q;		/* a sender's qdisc (ctrl-get) */
	bool have_q;
	char q_error[1024];		/* why there is none */
	char problem[STATUS_PROBLEMS_MAX][1024];
	size_t nproblems;
};

/* @d from the file @path's @text: 0, or -1 with d->error set */
int status_load(struct status_daemon *d, const char *path, const char *text);
/* what is wrong with @d, at @now_unix_us (CLOCK_REALTIME), @now_mono_ns */
void status_judge(struct status_daemon *d, uint64_t now_unix_us, uint64_t now_mono_ns);
/*
 * each daemon, then the problems; returns the exit code (1: any problem);
 * @where: what was searched, for the message when @n is 0 (NULL: the default)
 */
int status_print(FILE *f, const struct status_daemon *d, size_t n, const char *where,
		 uint64_t now_unix_us, uint64_t now_mono_ns);

/*
 * the status files in @dir (NULL: the default, /run/er2bc), at most @max,
 * into @d: how many were found (those that cannot be read have error set)
 */
size_t status_read_dir(struct status_daemon *d, size_t max, const char *dir);

/*
 * the version of @module loaded (its /sys/module/.../version; NULL: not
 * loaded, or none said) against these tools': a problem on @d[0] if they
 * differ (an upgrade whose old module is still loaded)
 */
void status_versions(struct status_daemon *d, size_t n, const char *module,
		     const char *loaded);

int do_status(int argc, char **argv);

#endif /* _ER2BCCTL_STATUS_H */
