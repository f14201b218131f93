// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl -batch FILE: the commands of FILE, one a line, as tc -batch runs
 * them: over one generic netlink socket, each family resolved once, so that
 * recorded estimates can be replayed, and estimates handed over thousands a
 * second, without a process (and a socket, and a family lookup) each. The
 * commands of both families (er2bc's, and tcp_rcvmgr's rcvmgr ones) mix.
 *
 * A line is the words that would follow "er2bcctl" on the command line,
 * options not included, split at blanks (no quoting: no value has blanks);
 * a word that starts with # starts a comment, to the end of the line. The
 * first line that fails ends the batch, with its exit status; with -force
 * the batch goes on, and exits 1 at the end if any line failed. Not finding
 * a family ends it even so: the lines after would fail the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "er2bcctl.h"

/*
 * abw-set takes 18 words at most; rcvmgr set with every list full and
 * every option, about 200
 */
#define BATCH_WORDS	256

static const char blanks[] = " \t\r\n\v\f";

/*
 * Splits @line into words, in place, up to a comment: their number (0: a
 * blank line or a comment), or -1 if there are more than BATCH_WORDS.
 */
static int split(char *line, char **words)
{
	char *save, *w;
	int n = 0;

	for (w = strtok_r(line, blanks, &save); w && w[0] != '#';
	     w = strtok_r(NULL, blanks, &save)) {
		if (n == BATCH_WORDS)
			return -1;
		words[n++] = w;
	}
	return n;
}

/* the exit status of one line's command */
static int run_line(char *line, size_t len)
{
	char *words[BATCH_WORDS];
	int n;

	cmd_name = PROG;
	if (strlen(line) != len) {
		err_msg("a NUL byte in the line");
		return EXIT_USAGE;
	}
	n = split(line, words);
	if (n < 0) {
		err_msg("more than %d words", BATCH_WORDS);
		return EXIT_USAGE;
	}
	if (words[0][0] == '-') {
		err_msg("\"%s\": options go on the command line, before -batch", words[0]);
		return EXIT_USAGE;
	}
	if (!strcmp(words[0], "monitor")) {
		cmd_name = words[0];
		return usage_err("not in a batch (run " PROG " monitor on its own)");
	}
	return run_command(n, words);
}

/* is there a command on @line? (not blank, not a comment) */
static bool has_command(const char *line)
{
	line += strspn(line, blanks);
	return *line && *line != '#';
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int run_batch(const char *file, bool force, bool stats)
{
	unsigned long lineno = 0, ran = 0, failed = 0;
	int ret = 0, status = 0;
	size_t size = 0;
	char *line = NULL;
	double start, secs;
	struct stat st;
	ssize_t len;
	FILE *f;

	if (!strcmp(file, "-")) {
		f = stdin;
	} else {
		f = fopen(file, "r");
		if (!f) {
			err_msg("cannot open batch file \"%s\": %s", file, strerror(errno));
			return EXIT_USAGE;
		}
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		err_msg("cannot read batch file \"%s\": %s", file, strerror(EISDIR));
		ret = EXIT_USAGE;
		goto out;
	}

	batch_begin();
	start = now_s();
	for (;;) {
		errno = 0;
		len = getline(&line, &size, f);
		if (len < 0)
			break;
		batch_line = ++lineno;
		if (!has_command(line) && strlen(line) == (size_t)len)
			continue;
		ran++;
		ret = run_line(line, (size_t)len);
		fflush(stdout);
		if (!ret)
			continue;
		failed++;
		if (!force || batch_broken())
			break;
		status = EXIT_FAIL;
		ret = 0;
	}
	batch_line = 0;
	if (len < 0 && ferror(f)) {
		err_msg("reading batch file \"%s\": %s", file,
			strerror(errno ? errno : EIO));
		ret = EXIT_FAIL;
	}
	secs = now_s() - start;
	batch_end();
	if (stats) {
		fflush(stdout);
		fprintf(stderr, PROG ": batch: %lu commands (%lu failed) in %.6fs: %.0f commands/s\n",
			ran, failed, secs, secs > 0 ? (double)ran / secs : 0.0);
	}
	if (!ret)
		ret = status;
out:
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}
