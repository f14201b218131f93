// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the configuration parser (conf.c) on any file. The
 * first byte chooses the role; the rest is the file, read by conf_load()
 * as the daemon reads --config (through /proc/self/fd of a memfd). A
 * configuration it takes must print (--check-config) without trouble.
 * ASan and UBSan catch the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "abwd.h"
#include "conf.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct cli_settings cli = { 0 };
	enum role role;
	struct config c;
	char path[64];
	FILE *null;
	int fd;

	if (!size)
		return 0;
	role = data[0] & 1 ? ROLE_RESPONDER : ROLE_SENDER;
	fd = memfd_create("conf", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!conf_load(&c, role, path, &cli)) {
		null = fopen("/dev/null", "w");
		if (!null)
			abort();
		conf_print(null, &c);
		fclose(null);
	}
	close(fd);
	return 0;
}
