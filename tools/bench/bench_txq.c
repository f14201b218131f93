// SPDX-License-Identifier: GPL-2.0
/*
 * bench_txq: a device slower than the offered load, for make bench-qdisc
 * (tools/bench/qdisc-cost-guest.sh). Not part of er2bc; only the benchmark
 * loads it, in the VM.
 *
 *   echo dum0 >/sys/module/bench_txq/parameters/stop
 *	halts the device's transmit queues, as a driver does when its ring
 *	is full: the root qdisc keeps what is sent to it and is not asked to
 *	dequeue (dequeue_skb() checks the queue first)
 *   echo dum0 >/sys/module/bench_txq/parameters/drain
 *	restarts them and runs the root qdisc at once, in this context, as a
 *	driver's wake-up would from its completion interrupt; then
 *   cat /sys/module/bench_txq/parameters/drain
 *	"NS BEFORE AFTER": how long the drain took (ktime, ns), the root
 *	qdisc's queue length before and after it
 *
 * The drain runs in the softirq that local_bh_enable() runs: the whole
 * backlog goes out in one net_tx_action() if the transmit quota allows it
 * (the benchmark raises net.core.dev_weight_tx_bias), with nothing else
 * scheduled in between. Under QEMU -icount shift=0 the time it takes is
 * the instructions it executed.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>

static u64 drain_ns;
static u32 drain_before, drain_after;

static struct net_device *bench_dev(const char *val)
{
	char name[IFNAMSIZ];

	strscpy(name, val, sizeof(name));
	strreplace(name, '\n', '\0');
	return dev_get_by_name(&init_net, name);
}

static u32 root_qlen(struct net_device *dev)
{
	struct Qdisc *q;
	u32 qlen;

	rcu_read_lock();
	q = rcu_dereference(netdev_get_tx_queue(dev, 0)->qdisc);
	qlen = READ_ONCE(q->q.qlen);
	rcu_read_unlock();
	return qlen;
}

static int stop_set(const char *val, const struct kernel_param *kp)
{
	struct net_device *dev = bench_dev(val);
	unsigned int i;

	if (!dev)
		return -ENODEV;
	for (i = 0; i < dev->num_tx_queues; i++)
		netif_tx_stop_queue(netdev_get_tx_queue(dev, i));
	dev_put(dev);
	return 0;
}

static int drain_set(const char *val, const struct kernel_param *kp)
{
	struct net_device *dev = bench_dev(val);
	unsigned int i;
	u64 t0, t1;
	u32 before;

	if (!dev)
		return -ENODEV;
	before = root_qlen(dev);
	t0 = ktime_get_ns();
	/* the softirq is raised with bh off, so no ksoftirqd is woken for it */
	local_bh_disable();
	for (i = 0; i < dev->num_tx_queues; i++)
		netif_tx_wake_queue(netdev_get_tx_queue(dev, i));
	local_bh_enable();
	t1 = ktime_get_ns();
	drain_ns = t1 - t0;
	drain_before = before;
	drain_after = root_qlen(dev);
	dev_put(dev);
	return 0;
}

static int drain_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu %u %u\n", drain_ns, drain_before, drain_after);
}

static const struct kernel_param_ops stop_ops = {
	.set = stop_set,
};

static const struct kernel_param_ops drain_ops = {
	.set = drain_set,
	.get = drain_get,
};

module_param_cb(stop, &stop_ops, NULL, 0200);
MODULE_PARM_DESC(stop, "device whose transmit queues to stop");
module_param_cb(drain, &drain_ops, NULL, 0600);
MODULE_PARM_DESC(drain, "device whose queues to restart and drain (write); last drain (read)");

MODULE_DESCRIPTION("er2bc benchmark helper: stop a device's queues, then drain its qdisc");
MODULE_LICENSE("GPL");
