// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl's commands: the one table that both the command line (main.c)
 * and a batch's lines (batch.c) run a command through, and the help that
 * lists them.
 */
#include <stdio.h>
#include <string.h>

#include "er2bcctl.h"
#include "status.h"

void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [ -j | -p ] [ -n NETNS ] COMMAND [ ARGS ]\n"
		"       " PROG " [ -j | -p ] [ -n NETNS ] [ -force ] [ -stats ] -batch FILE\n"
		"\n"
		"  " PROG " abw-set { dev IFNAME | ifindex N } handle MAJ: abw RATE recv RATE\n"
		"                   [ sent N ] [ lost N ] [ seq N ] [ span TIME ]\n"
		"                   [ scavenger-hold TIME ]\n"
		"      Hand an ABW estimate to the er2bc qdisc MAJ: of IFNAME: it recomputes\n"
		"      its guarantees and takes the new ABW W (abw) as its cap; recv is the\n"
		"      rate R the far gateway received in the interval the estimate spans\n"
		"      (span; interval, its old name, is taken too); sent and lost count\n"
		"      packets of the interval, seq numbers the estimate. scavenger-hold:\n"
		"      its scavenger classes are lent nothing for this long (at most 60s).\n"
		"\n"
		"  " PROG " show { dev IFNAME | ifindex N } handle MAJ:\n"
		"      The controller's state: cap (W, the cap in force), recv-rate (R),\n"
		"      recv-ratio (s) and its minimum (s_p) with their history, the last\n"
		"      estimate's age, the parameters as tc takes them (window, history,\n"
		"      loss-headroom, ...), the sum of the guarantees, then one row per\n"
		"      class: rate (R_f), margin (percent of the demand above it),\n"
		"      guarantee (G), demand (S_d), expected (R_e), shortfall (delta) and\n"
		"      shortfall-sum (Delta).\n"
		"\n"
		"  " PROG " monitor [ dev IFNAME | ifindex N ] [ handle MAJ: ] [ count N ]\n"
		"                   [ timeout TIME ]\n"
		"      One line per recomputation, after its local time, with each class's\n"
		"      guarantee, until SIGINT or SIGTERM, N of them, or the timeout (exits\n"
		"      1 if count was not reached).\n"
		"\n"
		"  " PROG " metrics [ dev IFNAME | ifindex N ] [ dir DIR ] [ output FILE ]\n"
		"      Every er2bc qdisc of the network namespace, its classes,\n"
		"      tcp_rcvmgr's counters (or IFNAME's qdisc alone) and each\n"
		"      er2bc-abwd's counters (DIR/abwd-*.json, DIR /run/er2bc unless\n"
		"      given), in the Prometheus text format (rates in bytes per second,\n"
		"      times in seconds), for node_exporter's textfile collector; a\n"
		"      module not loaded has no metrics. To FILE (replaced whole, mode\n"
		"      644, or left as it was), not stdout, if given.\n"
		"\n"
		"  " PROG " status [ dir DIR | file FILE... ]\n"
		"      Is er2bc well here? Each er2bc-abwd status file (DIR/abwd-*.json, by\n"
		"      default in /run/er2bc): the daemon, how long ago it wrote, the peer's\n"
		"      answers; the er2bc qdisc each sender feeds; then what is wrong: a\n"
		"      daemon not writing, a peer not answering or not asking, a qdisc\n"
		"      missing or stale. Exit 1 if anything is wrong or no file is found.\n"
		"\n"
		"  " PROG " rcvmgr show\n"
		"      tcp_rcvmgr's configuration, in rcvmgr set's words: the policy, the WAN\n"
		"      devices, the LAN prefixes, the rules, the parameters.\n"
		"\n"
		"  " PROG " rcvmgr set [ policy { off | azuma | spring | equal } ]\n"
		"                   [ wan IFNAME ]... [ wan none ] [ lan PREFIX ]... [ lan none ]\n"
		"                   [ rule [ port N[-M] ] [ dscp N ] [ mark N[/MASK] ]\n"
		"                          priority P ]... [ rule none ]\n"
		"                   [ interval TIME ] [ max-conns N ] [ idle-timeout TIME ]\n"
		"                   [ budget-init SIZE ] [ budget-min SIZE ] [ budget-max SIZE ]\n"
		"                   [ budget-step SIZE ] [ budget-decrease PERMILLE ]\n"
		"                   [ rtt-tolerance PERCENT ] [ link-rate RATE ]\n"
		"                   [ spring-queue SIZE ] [ spring-interactive SIZE ]\n"
		"                   [ spring-short SIZE ] [ initial-window SEGMENTS ]\n"
		"      Change tcp_rcvmgr's configuration (CAP_NET_ADMIN); what is not given\n"
		"      stays. wan, lan and rule repeated make a list, which replaces the whole\n"
		"      list; none empties it. Connections whose data comes in through a WAN\n"
		"      device and whose receiver is in a LAN prefix are managed (with only\n"
		"      one of the lists, that one). A new connection gets the priority P\n"
		"      (1 to 1000) of the first rule all of whose matches hold: either port in\n"
		"      N-M, the DSCP (0 to 63), the mark under MASK (0x for hex). interval\n"
		"      (10ms to 3600s) and idle-timeout (1s at least) are whole milliseconds;\n"
		"      budget-decrease is per mille (1 to 999),\n"
		"      rtt-tolerance percent (0 to 1000, %% or not); initial-window, azuma's\n"
		"      first window of a new connection, 2 to 1024 segments.\n"
		"\n"
		"  " PROG " rcvmgr conns\n"
		"      One line per connection tracked: sender > receiver, state, priority,\n"
		"      bytes received, rtt and rtt-min, window (assigned), threshold,\n"
		"      advertised (the receiver's last window), wscale, mss, rewritten (ACKs\n"
		"      whose window was lowered), age.\n"
		"\n"
		"  " PROG " rcvmgr stats\n"
		"      tcp_rcvmgr's counters and its budget B.\n"
		"\n"
		"      The rcvmgr commands are about the network namespace " PROG " runs in\n"
		"      (-n NETNS, or ip netns exec NETNS " PROG " rcvmgr ...).\n"
		"\n"
		"Options:\n"
		"  -j, --json      JSON, each key naming its unit: rates in bytes/s as\n"
		"                  tc -j prints them (cap_bytes_per_second), times _us\n"
		"                  or _ns, sizes _bytes, ratios _ppm or _percent; rcvmgr's\n"
		"                  keys are the spec's names with their unit added\n"
		"  -p, --pretty    indented JSON (implies -j)\n"
		"  -n, -netns, --netns NETNS\n"
		"                  run in the network namespace NETNS that ip netns made\n"
		"                  (/run/netns/NETNS), as ip -n and tc -n do: every command\n"
		"                  is then about its devices, qdiscs and tcp_rcvmgr\n"
		"  -batch FILE     run the commands of FILE (- for stdin), one a line, as\n"
		"                  they would follow " PROG " on the command line (options\n"
		"                  not included; # starts a comment), in order, over one\n"
		"                  netlink socket; monitor is not for batches. The first\n"
		"                  line that fails ends the batch: \"line N: \" and the\n"
		"                  message, the command's exit status.\n"
		"  -force          with -batch: go on past lines that fail; exit 1 at the\n"
		"                  end if any did\n"
		"  -stats          with -batch: at the end, on stderr, how many commands ran\n"
		"                  and how many a second\n"
		"  -V, --version\n"
		"  -h, --help\n"
		"\n"
		"RATE  a number and a unit: bit, kbit, mbit, gbit, tbit (powers of 1000),\n"
		"      kibit, mibit, gibit, tibit (of 1024), or the same with bps instead\n"
		"      of bit for bytes per second; no unit: bit/s. 5mbit, 1.5Mbit, 400kbps\n"
		"TIME  a number and s, ms or us; no unit: us, as tc reads times. 100ms\n"
		"SIZE  bytes: a number and b, k, kb, kib, m, mb, mib, g, gb, gib (k, m, g are\n"
		"      powers of 1024 here, as tc takes sizes); no unit: bytes. 64k, 1.5m\n"
		"PREFIX  ADDR/LEN, IPv4 or IPv6; no /LEN: the address alone. 192.168.1.0/24\n"
		"MAJ:  a qdisc's handle as tc writes it, hex: 1:, 1:0, ffff:; or raw, 0x10000\n"
		"\n"
		"Exit status: 0 done, 1 failed (the kernel's reason is printed), 2 misused\n"
		"(nothing sent; in a batch: that line and those after it were not sent).\n");
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} cmds[] = {
	{ "abw-set",	do_abw_set },
	{ "show",	do_show },
	{ "monitor",	do_monitor },
	{ "metrics",	do_metrics },
	{ "status",	do_status },
	{ "rcvmgr",	do_rcvmgr },
};

int run_command(int argc, char **argv)
{
	size_t i;

	if (!strcmp(argv[0], "help")) {
		print_usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[0], cmds[i].name)) {
			cmd_name = cmds[i].name;
			return cmds[i].run(argc - 1, argv + 1);
		}
	}
	err_msg("unknown command \"%s\" (try " PROG " -h)", argv[0]);
	return EXIT_USAGE;
}
