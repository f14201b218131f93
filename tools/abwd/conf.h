/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's configuration: long options on the command line and a file
 * of "key = value" lines, the command line winning; every key checked,
 * defaults filled in. See Documentation/er2bc-estimator.rst, "Options".
 */
#ifndef _ABWD_CONF_H
#define _ABWD_CONF_H

#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/er2bc_genl.h>

#include "aimd.h"
#include "delay.h"
#include "wire.h"

enum role {
	ROLE_SENDER = 1,
	ROLE_RESPONDER = 2,
};

#define ADDR_STRLEN	(INET6_ADDRSTRLEN + IF_NAMESIZE + 2)

struct prefix {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* 4 or 16 bytes of it */
	uint8_t plen;
};

struct config {
	enum role role;
	/* both roles */
	uint16_t port;
	char dev[IF_NAMESIZE];
	unsigned int ifindex;
	char key_file[PATH_MAX];	/* "": plain mode */
	struct wire_key key;
	bool plain;			/* no key, by choice */
	char status[PATH_MAX];		/* "": no status file */
	/* sender */
	struct sockaddr_storage peer;	/* the port not set */
	socklen_t peer_len;
	char peer_str[ADDR_STRLEN];
	uint32_t handle;
	char epoch_file[PATH_MAX];	/* "": the clock's epoch alone */
	uint64_t interval_us;
	uint64_t timeout_us;
	struct aimd_params aimd;
	struct delay_params delay;	/* mode and the delay rule's parameters */
	bool w_ini_qdisc;		/* w-ini = qdisc: the qdisc's W at start */
	bool w_max_qdisc;		/* w-max = qdisc: the qdisc's rate */
	bool apply;			/* hand W to the qdisc (abw-set), or only report it */
	bool compete;			/* loss mode: compete beside elastic traffic (compete.h) */
	bool loss_queue;		/* loss mode: a loss cuts only with a queue, or heavy */
	uint64_t probe_interval_us;	/* delay probes (dense.h) every this; 0: none */
	uint32_t decay_after;		/* missed intervals before W decays, 0: never */
	uint64_t w_floor;		/* bit/s: where a decaying W stops */
	/* responder */
	struct sockaddr_storage listen;
	socklen_t listen_len;
	char listen_str[ADDR_STRLEN];
	struct prefix prefix[ER2BC_PEER_MAX];
	unsigned int nprefix;
	uint32_t rate_limit;		/* responses/s to one source, 0: none */
};

/* one "key = value", from the command line (file NULL) or a file */
struct setting {
	const char *key;
	const char *val;
	const char *file;	/* NULL: the command line */
	unsigned int line;
};

/* the command line's settings, kept for reloads */
struct cli_settings {
	struct setting *v;
	unsigned int n;
};

/* 0 after adding --KEY VALUE (@key copied), -1 out of memory */
int cli_add(struct cli_settings *cli, const char *key, const char *val);
void cli_free(struct cli_settings *cli);

/* true if @key is a key of any role (so --KEY takes a value) */
bool conf_is_key(const char *key);

/*
 * The configuration of @role from the file @path (NULL: none) and the
 * command line's settings @cli, into @c. Returns 0, or EXIT_USAGE after
 * logging what is wrong: the key, and the file and line it came from.
 */
/*
 * the role a configuration file names (role = sender | responder): 0, or
 * -1 if it names none, or cannot be read (conf_load() says why)
 */
int conf_file_role(const char *path, enum role *role);

int conf_load(struct config *c, enum role role, const char *path,
	      const struct cli_settings *cli);

/* the keys of @role with their defaults, for --help */
void conf_help(FILE *f, enum role role);

/* the configuration as "key = value" lines (secrets not shown) */
void conf_print(FILE *f, const struct config *c);

/* the key bytes of @path into @key: 0, or -1 with *@why set */
int read_key_file(const char *path, struct wire_key *key, const char **why);

/* "10.0.0.0/8" or "2001:db8::/32" or an address: 0, or -1 with *@why set */
int parse_prefix(const char *s, struct prefix *p, const char **why);

/* alpha: a decimal >= 1 in millionths: 0, or -1 with *@why set */
int parse_millionths(const char *s, uint64_t *v, const char **why);

/* does @p (family AF_INET/AF_INET6, 4 or 16 bytes @addr) contain @addr */
bool prefix_match(const struct prefix *p, int family, const uint8_t *addr);

/* @sa as text, with a %scope for IPv6 link-local, v4-mapped as IPv4 */
char *fmt_addr(char *buf, size_t len, const struct sockaddr *sa);

#endif /* _ABWD_CONF_H */
