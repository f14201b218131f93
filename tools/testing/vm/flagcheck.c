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
 * new flags. If the vCPU leaves the CPU loop before a later instruction
 * sets the flags again (an exit request, the round-robin switch to the
 * other vCPU), the garbage goes into its saved EFLAGS: the reserved bits
 * 22-31, which no real CPU ever sets, for good; TF (a single-step trap no
 * breakpoint owns), NT, IOPL, AC and IF until an IRET, POPF or SYSRET
 * loads them again; DF into the direction flag. An interrupt taken there
 * pushes the garbage in its frame, and its IRET loads all but the
 * reserved bits. Linux's SLUB per-CPU fast path has this shape (an ADD,
 * then this_cpu_cmpxchg128) and meets it when the block is entered from
 * an interrupt's return.
 *
 *   flagcheck             run the sequence; exit 1 if RFLAGS changed
 *                         beyond ZF (and the flags the ADD before it
 *                         sets), 0 if not or if CMPXCHG16B is not
 *                         offered (CPUID.1:ECX.CX16 = 0); 2 if this
 *                         program itself failed
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
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
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
/* CF, PF, AF, SF and OF: what the ADD sets, which CMPXCHG16B leaves */
#define ARITH		0x895UL
#define ZF		0x40UL
#define TF		0x100UL
/* what the operand left in the emulator's CC_SRC carries: reserved bits
 * only, so that a broken emulator's flags stay harmless for this program
 */
#define JUNK		0x3fc00000UL

/* exit statuses: 0 the flags are right, 1 corrupted, 2 this program failed */
enum { OK, CORRUPT, BROKEN };

/* The asm below pushes: step over the red zone first (LEA sets no flag). */
#define RED_ZONE_IN	"lea -128(%%rsp), %%rsp\n\t"
#define RED_ZONE_OUT	"lea 128(%%rsp), %%rsp\n\t"

static unsigned long rflags(void)
{
	unsigned long f;

	asm volatile(RED_ZONE_IN "pushfq\n\tpop %0\n\t" RED_ZONE_OUT : "=r"(f));
	return f;
}

/*
 * POPF ends QEMU's translation block with cc_op = CC_OP_EFLAGS; the ADD
 * then leaves @junk in CC_SRC with its cc_op pending in the translator;
 * CMPXCHG16B succeeds (memory equals RDX:RAX) and sets ZF. Returns the bits
 * of RFLAGS after it that differ from those before it, ZF set and the
 * arithmetic flags (the ADD's) left out: none on a correct CPU.
 */
static unsigned long cmpxchg16b_flags(unsigned long junk, int spin)
{
	static unsigned long mem[2] __attribute__((aligned(16)));
	unsigned long before = rflags() & ~ZF, after, scratch = 0;
	unsigned long rax = 1, rdx = 2, spins = spin ? 300UL * 1000 * 1000 : 1;

	mem[0] = rax;
	mem[1] = rdx;
	/* with @spin, LOOP (which writes no flag) through a few returns to
	 * QEMU's CPU loop: each stores the flags into the vCPU's saved EFLAGS
	 */
	asm volatile(RED_ZONE_IN
		     "push %[before]\n\t"
		     "popfq\n\t"
		     "add %[junk], %[scratch]\n\t"
		     "lock cmpxchg16b %[mem]\n\t"
		     "1: loop 1b\n\t"
		     "pushfq\n\t"
		     "pop %[after]\n\t"
		     RED_ZONE_OUT
		     : [after] "=&r"(after), [scratch] "+r"(scratch),
		       [mem] "+m"(mem), "+a"(rax), "+d"(rdx), "+c"(spins)
		     : [before] "r"(before), [junk] "r"(junk), "b"(3UL)
		     : "cc", "memory");
	return (after ^ (before | ZF)) & ~ARITH;
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
		return CORRUPT;
	}
	if (!has_cx16()) {
		printf("flagcheck: CMPXCHG16B not offered (CPUID.1:ECX.CX16 = 0): nothing can run it\n");
		return OK;
	}
	for (i = 0; i < 1000 && !diff; i++)
		diff = cmpxchg16b_flags(JUNK, 0);
	if (diff) {
		printf("flagcheck: RFLAGS changed across a CMPXCHG16B that should set ZF alone: bits %#lx differ (the ADD before it had %#lx as operand): the emulator corrupts flags (QEMU 7.2 TCG); run it with CMPXCHG16B off (-cpu max,-cx16)\n",
		       diff, JUNK);
		return CORRUPT;
	}
	printf("flagcheck: CMPXCHG16B kept RFLAGS (1000 tries)\n");
	return OK;
}

enum role { WATCH, SEND, SLEEP };

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* a child pinned to @cpu, in @role until @end (CLOCK_MONOTONIC) */
static void child(int cpu, enum role role, double end)
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
		_exit(BROKEN);
	}
	if (role == SEND) {
		/* port 9 (discard) has no listener in the guest: each datagram
		 * is freed on receive, with an ICMP error (rate-limited) that
		 * an unconnected socket never reports
		 */
		to.sin_port = htons(9);
		to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0) {
			perror("flagcheck: socket");
			_exit(BROKEN);
		}
	}
	if (role == SLEEP) {
		tick.tv_nsec = 10 * 1000;
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	}
	/* each role acts at least once, however late it starts */
	do {
		if (role == SEND) {
			sendto(fd, payload, sizeof(payload), 0,
			       (struct sockaddr *)&to, sizeof(to));
			if (++n % 1024)
				continue;
		} else if (role == WATCH) {
			f = rflags();
			if (f & RESERVED_ZEROS) {
				printf("flagcheck: CPU %d: RFLAGS %#lx has reserved bits %#lx set, seen at %ld\n",
				       cpu, f, f & RESERVED_ZEROS,
				       (long)time(NULL));
				fflush(stdout);
				_exit(CORRUPT);
			}
			nanosleep(&tick, NULL);
		} else {
			nanosleep(&tick, NULL);
		}
	} while (now() < end);
	_exit(OK);
}

static pid_t kids[3 * CPU_SETSIZE];
static int nkids;

static void stop_kids(int sig)
{
	int i;

	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGTERM);
	if (sig)
		_exit(BROKEN);
}

/* on every CPU, a watcher and, with @storm, a sender and a sleeper */
static int watch(int seconds, int storm)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, status, rc = OK;
	double end = now() + seconds;
	enum role role;
	pid_t pid;

	/* stopped from outside (soak-guest.sh), stop the children too */
	signal(SIGTERM, stop_kids);
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		for (role = WATCH; role <= (storm ? SLEEP : WATCH); role++) {
			pid = fork();
			if (pid < 0) {
				perror("flagcheck: fork");
				stop_kids(0);
				return BROKEN;
			}
			if (pid == 0)
				child(cpu, role, end);
			kids[nkids++] = pid;
		}
	}
	while ((pid = wait(&status)) > 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == OK)
			continue;
		if (rc == OK) {
			/* the first report is enough: stop the others */
			signal(SIGTERM, SIG_IGN);
			stop_kids(0);
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == CORRUPT)
			rc = CORRUPT;
		else if (rc == OK)
			rc = BROKEN;
	}
	return rc;
}

static void sigtrap(int sig)
{
	static const char msg[] = "flagcheck: SIGTRAP: a single-step trap no debugger asked for\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(BROKEN);
	_exit(3);
}

/*
 * The second half: leave the junk in the flags through a few returns to
 * QEMU's CPU loop, then print RFLAGS as any later program on this CPU
 * sees it, once an ADD has replaced the flags the emulator computes
 * lazily. With TF in the junk, the process takes a trap instead.
 */
static int persist(unsigned long junk)
{
	unsigned long f, scratch = 0;

	signal(SIGTRAP, sigtrap);
	cmpxchg16b_flags(junk, 1);
	asm volatile("add $0, %0" : "+r"(scratch) : : "cc");
	f = rflags();
	printf("flagcheck: after the spin RFLAGS is %#lx%s\n", f,
	       f & RESERVED_ZEROS ? ": reserved bits set for good" : "");
	return f & RESERVED_ZEROS ? CORRUPT : OK;
}

static int seconds_arg(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg && !*end && v > 0 && v <= 24 * 3600)
		return v;
	fprintf(stderr, "flagcheck: illegal seconds \"%s\": 1 to 86400\n", arg);
	exit(BROKEN);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--watch"))
		return watch(seconds_arg(argv[2]), 0);
	if (argc == 3 && !strcmp(argv[1], "--storm"))
		return watch(seconds_arg(argv[2]), 1);
	if (argc == 2 && !strcmp(argv[1], "--persist"))
		return persist(JUNK);
	if (argc == 2 && !strcmp(argv[1], "--persist-tf"))
		return persist(JUNK | TF);
	if (argc != 1) {
		fprintf(stderr, "usage: flagcheck [--watch SECONDS | --storm SECONDS | --persist | --persist-tf]\n");
		return BROKEN;
	}
	return check();
}
