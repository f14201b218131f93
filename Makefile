# SPDX-License-Identifier: GPL-2.0
#
# er2bc: bandwidth control for Linux gateways, as out-of-tree modules.
#
#   make [KVER=6.1|6.12|debug|trixie-bpo] [KDIR=...]	modules for one kernel, and the tools
#   make check [KVER=...] [T=filter[:case]]	build, boot each kernel in QEMU, run the suites
#   make check-kcsan [T=...]			the KCSAN kernel: the suites of the packet paths, meter, controllers
#   make demo					seed 000's DBHPF scenario, compressed, in the VM: Table 5
#   make experiments [FULL=1]			every scenario of tools/experiments/scenarios
#   make matrix [REALTIME=1] [CELLS=...] [SEEDS=...]	every contender under impairments, n seeds (hours, resumable)
#   make soak [KVER=] [HOURS=] [MINUTES=] [WORKLOAD=]  guests looping the workloads where guests died: deaths per guest-hour
#   make vm-shell [KVER=...]			interactive guest with the modules installed
#   make lint					checkpatch and sparse
#   make intree					the modules in a 6.12 tree, and a series of it
#   make bench-qdisc				per-packet cost beside htb and pfifo (QEMU -icount)
#   make bench-ctrl [KVER=...]			time to new guarantees: er2bc abw-set beside htb via tc
#   make bench-estimator [KVER=...]		the ABW estimator: overhead, false losses, tracking, cost
#   make bench-rcvmgr [KVER=...]		tcp_rcvmgr: scenario 1 (compressed) per policy, hook cost
#   make bench-meter [KVER=...]		the receiving meter: cost a frame, CPUs that receive (QEMU)
#   make install [KDIR=] [PREFIX=] [DESTDIR=]	for the running kernel, into /usr/local; no package installed
#   make deb					Debian packages er2bc-dkms and er2bc-tools, in build/deb
#
# The Kbuild file drives the kernel build; this file drives everything else.

KVER ?= 6.12
# the week of the other releases' roots (tools/testing/vm/mkroot.sh), once
# for everything a target runs
export ER2BC_ROOT_WEEK ?= $(shell date -u +%G-W%V)
VM := tools/testing/vm
BUILDMOD := tools/testing/build-modules.sh
# KDIR, when given, names the kernel tree to build against
KTARGET = $(if $(KDIR),$(KDIR),$(KVER))
# kernels `make check` covers unless KVER is given on the command line
CHECK_KERNELS = $(if $(filter command line,$(origin KVER)),$(KVER),6.1 6.12 debug trixie-bpo)

all: modules tools

deps:
	@tools/testing/setup-deps.sh

modules: deps
	@$(BUILDMOD) $(KTARGET) W=1 >/dev/null

tools: deps
	@$(MAKE) -s -C tools/tc
	@$(MAKE) -s -C tools/lib
	@$(MAKE) -s -C tools/er2bcctl
	@$(MAKE) -s -C tools/abwd
	@$(MAKE) -s -C selftests/tcp_rcvmgr synflood
	@$(MAKE) -s -C tools/testing/vm flagcheck

# checkpatch from Debian's linux-source, sparse through Kbuild (C=2 checks
# every file, built or not); both fail on any finding; then no file of a
# module or a tool calls back one that calls it (tools/testing/deps-check.py)
lint: deps tools
	@tools/testing/lint.sh
	@tools/testing/deps-check.py --tools

# installs what it needs and builds the tools itself, timing each stage
check:
	@$(VM)/check.sh $(if $(T),-T "$(T)") $(CHECK_KERNELS)

# the KCSAN kernel (built once, about 15 minutes) and the suites the
# manifest gives it; not part of make check
check-kcsan:
	@ER2BC_CHECK_REPORT=$${ER2BC_CHECK_REPORT:-$(CURDIR)/build/check-kcsan} \
		$(VM)/check.sh $(if $(T),-T "$(T)") kcsan

# the modules in a 6.12 tree: built there W=1 C=1, and a patch series of
# it that checkpatch --strict takes, in build/intree (tools/intree/series.sh)
intree: deps
	@tools/intree/series.sh

# the Debian packages er2bc-dkms and er2bc-tools (debian/), lintian-clean,
# in build/deb (tools/packaging/deb.sh); SUITE=trixie builds Debian 13's in
# a root of it, into build/deb-trixie
deb:
	@tools/packaging/deb.sh $(if $(filter command line,$(origin SUITE)),$(SUITE))

# the packages as an image builder installs them (dpkg -i in a chroot of
# the host, DKMS building for each kernel with headers), booted in 6.12
# and 6.1 guests with their headers, and Debian 13's in a Debian 13 guest
# (its kernel on its root): the README's quick start is followed, the
# packages are removed (tools/packaging/test-deb.sh)
check-deb: deps
	@tools/packaging/test-deb.sh $(if $(filter command line environment,$(origin KVER)),$(KVER))

# the tests that need no kernel (the tools', the fuzzers', the harness's),
# as make check runs them; logs in build/check-host
check-host: deps tools
	@tools/testing/host-tests.sh build/check-host

demo: deps tools
	@$(VM)/demo.sh $(KVER)

# seed 000's evaluation (and every scenario tools/experiments/scenarios
# lists), time-compressed unless FULL=1; tables and plots in Documentation/results/
experiments: deps modules tools
	@KVER=$(KVER) EXP_COMMAND="make experiments$(if $(FULL), FULL=$(FULL))" \
		tools/experiments/run.sh $(if $(filter 1,$(FULL)),--full) all

# the robustness matrix: seed 000's scenarios under impairments with every
# contender (pfifo; htb, cake, er2bc static with the default rule; er2bc
# with each rule), seeds 1-5; each run into Documentation/results/matrix/runs,
# the report into Documentation/results/matrix/{report.json,matrix.md,matrix.png}
matrix: deps modules tools
	@KVER=$(KVER) EXP_COMMAND="make matrix$(if $(filter 1,$(REALTIME)), REALTIME=1)" \
		tools/experiments/matrix.sh $(if $(filter 1,$(REALTIME)),--realtime)

# guests in turn on the workloads at whose steps guests died, until HOURS
# of guest time (default 1, counting earlier runs); deaths and corrupted
# flags per guest-hour (tools/testing/vm/soak.sh, Documentation/testing.rst)
soak: deps
	@$(VM)/soak.sh -k $(KVER) $(if $(HOURS),-h $(HOURS)) $(if $(MINUTES),-g $(MINUTES)) \
		$(if $(WORKLOAD),-w "$(WORKLOAD)")

vm-shell: deps tools
	@mods=$$($(BUILDMOD) $(KVER) 2>/dev/null) && \
	$(VM)/run.sh -i -k $(KVER) -- $(VM)/guest-install.sh "$$mods"

# er2bc beside htb and pfifo, 1-4096 classes (QEMU -icount), and its rate
# accuracy; writes Documentation/results/bench-qdisc.json
bench-qdisc: deps tools
	@tools/bench/qdisc-cost.sh $(KVER)

# er2bc's abw-set to its ACK beside htb re-rated by tc (QEMU); writes Documentation/results/bench-ctrl.json
bench-ctrl: deps tools
	@tools/bench/ctrl-bench.sh $(KVER)

# the ABW estimator between two gateways (QEMU); writes Documentation/results/bench-estimator.json
bench-estimator: deps modules tools
	@tools/bench/estimator-bench.sh $(KVER)

# tcp_rcvmgr: the thesis' scenario 1, time-compressed, per policy, and the
# hooks' per-packet cost (QEMU); writes Documentation/results/bench-rcvmgr.json
bench-rcvmgr: deps modules tools
	@tools/bench/rcvmgr-bench.sh $(KVER)

# the receiving gateway's meter: instructions a received frame (QEMU -icount)
# and frames a second on 1-4 CPUs; writes Documentation/results/bench-meter.json
bench-meter: deps modules tools
	@tools/bench/meter-bench.sh $(KVER)

# for the running kernel (or KDIR) into PREFIX (/usr/local), installing no
# package; unsigned (Debian's signing key is not on the machine): with
# Secure Boot, use make deb, whose DKMS signs with the machine-owner key
install:
	@tools/packaging/install.sh

clean:
	rm -rf build
	$(MAKE) -s -C tools/tc clean
	$(MAKE) -s -C tools/lib clean
	$(MAKE) -s -C tools/er2bcctl clean
	$(MAKE) -s -C tools/abwd clean
	$(MAKE) -s -C tools/testing/vm clean

.PHONY: check-deb check-kcsan all deps modules tools lint intree check check-host deb demo experiments matrix soak vm-shell bench-qdisc bench-ctrl bench-estimator bench-rcvmgr bench-meter install clean
