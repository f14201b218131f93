// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck: does this CPU, or the emulator it is, keep RFLAGS intact
 * across CMPXCHG16B?
 *
 * QEMU 7.2's TCG (Debian 12's qemu-system-x86) translates CMPXCHG16B as a
 * call to a helper that starts from cpu_cc_compute_all(env, env->cc_op)
 * without first storing the translator's pending cc_op (no
 * gen_update_cc_op()). When the instruction before it in the same
 * translation block set the flags (an ADD, a CMP: CC_SRC now holds its
 * operand) and the block began with cc_op = CC_OP_EFLAGS (after a POPF, an
 * IRET, another CMPXCHG16B, or any return to the CPU loop), the helper
 * takes that operand for the flags image and stores it, with ZF, as the
 * new flags. The next time the vCPU leaves the CPU loop (an interrupt, the
 * round-robin switch to the other vCPU), the garbage goes into the saved
 * EFLAGS for good: TF (a single-step trap no breakpoint owns), DF
 * (string instructions run backwards), NT, IF and the reserved bits 22-31,
 * which no real CPU ever sets. Linux's SLUB runs exactly this sequence on
 * every allocation (this_cpu_cmpxchg128 on the per-CPU freelist).
 *
 *   flagcheck             run the sequence; exit 1 if RFLAGS changed
 *                         beyond ZF, 0 if not or if CMPXCHG16B is not
 *                         offered (CPUID.1:ECX.CX16 = 0)
 *   flagcheck --watch S   for S seconds, on every CPU, read RFLAGS every
 *                         10 ms; exit 1 at the first reserved bit seen
 *   flagcheck --storm S   the same, while on every CPU a process sends
 *                         1-byte UDP datagrams to a closed port on
 *                         127.0.0.1 without pause (skbs allocated and
 *                         freed in SLUB's fast path) and another sleeps
 *                         10 us at a time with no timer slack (a timer
 *                         interrupt each, and with it a return to QEMU's
 *                         CPU loop): the two halves of the crash, on a
 *                         kernel with nothing of ours
 *   flagcheck --persist   leave the junk in the flags through a few
 *                         returns to the CPU loop; exit 1 if it stayed in
 *                         RFLAGS (--persist-tf: with TF, a SIGTRAP)
 *
 * Documentation/testing.rst tells the whole story.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <cpuid.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* bits 1 (always one), 3, 5, 15 and 22-63 of RFLAGS are reserved */
#define RESERVED_ONES	0x2UL
#define RESERVED_ZEROS	(~0x3f7fd7UL)
/* what the operand left in the emulator's CC_SRC carries: reserved bits
 * only, so that a broken emulator's flags stay harmless for this program
 */
#define JUNK		0x3fc00000UL
#define ZF		0x40UL
#define TF		0x100UL

static unsigned long rflags(void)
{
	unsigned long f;

	asm volatile("pushfq; pop %0" : "=r"(f));
	return f;
}

/* POPF ends QEMU's translation block with cc_op = CC_OP_EFLAGS; the ADD
 * then leaves JUNK in CC_SRC with its cc_op pending in the translator;
 * CMPXCHG16B succeeds (memory equals RDX:RAX) and sets ZF alone
 */
static unsigned long cmpxchg16b_flags(unsigned long junk)
{
	static unsigned long mem[2] __attribute__((aligned(16)));
	unsigned long before = rflags() & ~ZF, after, scratch = 0;

	mem[0] = 1;
	mem[1] = 2;
	asm volatile("push %[before]\n\t"
		     "popfq\n\t"
		     "add %[junk], %[scratch]\n\t"
		     "lock cmpxchg16b %[mem]\n\t"
		     "pushfq\n\t"
		     "pop %[after]\n\t"
		     : [after] "=&r"(after), [scratch] "+r"(scratch),
		       [mem] "+m"(mem)
		     : [before] "r"(before), [junk] "r"(junk),
		       "a"(1UL), "d"(2UL), "b"(3UL), "c"(4UL)
		     : "cc", "memory");
	return after ^ (before | ZF);
}

static int has_cx16(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	return !!(c & bit_CMPXCHG16B);
}

static int check(void)
{
	unsigned long f = rflags(), diff = 0;
	int i;

	if ((f & RESERVED_ZEROS) || !(f & RESERVED_ONES)) {
		printf("flagcheck: RFLAGS %#lx already has reserved bits wrong: this CPU's flags were corrupted before\n",
		       f);
		return 1;
	}
	if (!has_cx16()) {
		printf("flagcheck: CMPXCHG16B not offered (CPUID.1:ECX.CX16 = 0): the kernel cannot use it\n");
		return 0;
	}
	for (i = 0; i < 1000 && !diff; i++)
		diff = cmpxchg16b_flags(JUNK);
	if (diff) {
		printf("flagcheck: RFLAGS changed across a CMPXCHG16B that should set ZF alone: bits %#lx differ (the ADD before it had %#lx as operand): the emulator corrupts flags (QEMU 7.2 TCG); run it with CMPXCHG16B off (-cpu max,-cx16)\n",
		       diff, JUNK);
		return 1;
	}
	printf("flagcheck: CMPXCHG16B kept RFLAGS (1000 tries)\n");
	return 0;
}

enum role { WATCH, SEND, SLEEP };

/* a child pinned to CPU, in ROLE until the time END */
static void child(int cpu, enum role role, time_t end)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct sockaddr_in to = { .sin_family = AF_INET };
	char payload[1] = { 0 };
	unsigned long f, n = 0;
	cpu_set_t set;
	int fd = -1;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("flagcheck: sched_setaffinity");
		_exit(2);
	}
	if (role == SEND) {
		/* port 9 (discard) has no listener in the guest */
		to.sin_port = htons(9);
		to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0) {
			perror("flagcheck: socket");
			_exit(2);
		}
	}
	if (role == SLEEP) {
		tick.tv_nsec = 10 * 1000;
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	}
	while (role == SEND || time(NULL) < end) {
		if (role == SEND) {
			/* ECONNREFUSED from the last ICMP is expected */
			sendto(fd, payload, sizeof(payload), 0,
			       (struct sockaddr *)&to, sizeof(to));
			if (++n % 1024 || time(NULL) < end)
				continue;
			_exit(0);
		}
		if (role == WATCH) {
			f = rflags();
			if (f & RESERVED_ZEROS) {
				printf("flagcheck: CPU %d: RFLAGS %#lx has reserved bits %#lx set, seen at %ld\n",
				       cpu, f, f & RESERVED_ZEROS,
				       (long)time(NULL));
				fflush(stdout);
				_exit(1);
			}
		}
		nanosleep(&tick, NULL);
	}
	_exit(0);
}

/* on every CPU, a watcher and, with STORM, a sender and a sleeper */
static int watch(int seconds, int storm)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, status, bad = 0, n = 0, i;
	time_t end = time(NULL) + seconds;
	pid_t pid, kids[3 * CPU_SETSIZE];
	enum role role;

	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		for (role = WATCH; role <= (storm ? SLEEP : WATCH); role++) {
			pid = fork();
			if (pid < 0) {
				perror("flagcheck: fork");
				return 2;
			}
			if (pid == 0)
				child(cpu, role, end);
			kids[n++] = pid;
		}
	}
	while ((pid = wait(&status)) > 0) {
		if (!bad && (!WIFEXITED(status) || WEXITSTATUS(status))) {
			/* the first report is enough: stop the others */
			bad = 1;
			for (i = 0; i < n; i++)
				if (kids[i] != pid)
					kill(kids[i], SIGTERM);
		}
	}
	return bad;
}

static void sigtrap(int sig)
{
	static const char msg[] = "flagcheck: SIGTRAP: a single-step trap no debugger asked for\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(4);
	_exit(3);
}

/*
 * The second half: leave the junk in the flags and spin on LOOP (which
 * writes no flags) through a few returns to QEMU's CPU loop; each one
 * stores the junk into the vCPU's saved EFLAGS, where it stays. Then
 * print RFLAGS as any later program on this CPU sees it. With TF in the
 * junk, the process takes a trap instead.
 */
static int persist(unsigned long junk)
{
	static unsigned long mem[2] __attribute__((aligned(16)));
	unsigned long before = rflags() & ~ZF, scratch = 0;
	unsigned long spins = 300UL * 1000 * 1000;

	signal(SIGTRAP, sigtrap);
	mem[0] = 1;
	mem[1] = 2;
	asm volatile("push %[before]\n\t"
		     "popfq\n\t"
		     "add %[junk], %[scratch]\n\t"
		     "lock cmpxchg16b %[mem]\n\t"
		     "1: loop 1b\n\t"
		     : [scratch] "+r"(scratch), [mem] "+m"(mem), "+c"(spins)
		     : [before] "r"(before), [junk] "r"(junk),
		       "a"(1UL), "d"(2UL), "b"(3UL)
		     : "cc", "memory");
	/* an ADD replaces the flags the emulator computes lazily: what is
	 * left beyond them is in the vCPU's saved EFLAGS
	 */
	asm volatile("add $0, %0" : "+r"(scratch) : : "cc");
	scratch = rflags();
	printf("flagcheck: after the spin RFLAGS is %#lx%s\n", scratch,
	       scratch & RESERVED_ZEROS ? ": reserved bits set for good" : "");
	return !!(scratch & RESERVED_ZEROS);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--watch"))
		return watch(atoi(argv[2]), 0);
	if (argc == 3 && !strcmp(argv[1], "--storm"))
		return watch(atoi(argv[2]), 1);
	if (argc == 2 && !strcmp(argv[1], "--persist"))
		return persist(JUNK);
	if (argc == 2 && !strcmp(argv[1], "--persist-tf"))
		return persist(JUNK | TF);
	if (argc != 1) {
		fprintf(stderr, "usage: flagcheck [--watch SECONDS | --storm SECONDS | --persist | --persist-tf]\n");
		return 2;
	}
	return check();
}
