// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr's control work. At the end of every interval it reads each
 * connection's RTT trend and adjusts the budget B (seed 004 section 3.1),
 * notes what each connection used (section 5), forgets idle and closed
 * connections, and assigns the windows (section 3.2, or the comparators'
 * rules; assign.c). Between intervals the datapath asks for a new
 * assignment, with the same B, when a connection starts carrying data,
 * resumes after a pause, becomes persistent or ends.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "assign.h"
#include "rcvmgr.h"
#include "table.h"
#include "trace.h"

/* a closed connection is forgotten once this quiet: its last ACKs passed */
#define RCVMGR_CLOSED_LINGER_NS	NSEC_PER_SEC
/*
 * one a reset may have ended (RCVMGR_F_RESET), once this quiet, not
 * idle-timeout: the gateway cannot tell whether the reset reached its end
 * (tcp_rcvmgr.rst, "Resets")
 */
#define RCVMGR_RESET_LINGER_NS	(10 * NSEC_PER_SEC)
/*
 * one first seen mid-stream (often the tail of one that just ended, in
 * flight when its FIN passed) is never rewritten: it holds its slot briefly
 */
#define RCVMGR_UNSCALED_IDLE_NS	(5 * NSEC_PER_SEC)

static bool rcvmgr_assignable(const struct rcvmgr_conn *c)
{
	return c->state == TCP_RCVMGR_STATE_INITIAL ||
	       c->state == TCP_RCVMGR_STATE_PERSISTENT;
}

/*
 * Whether @c takes a share of the budget now: only a connection whose
 * sender sends. Half-open ones (a SYN flood), ones still waiting for their
 * first byte and ones quiet for RCVMGR_ACTIVE_NS are left out of the
 * assignments made meanwhile (at the latest the next interval's);
 * their next data asks for a new one (rcvmgr_data()).
 */
static bool rcvmgr_active(const struct rcvmgr_conn *c, u64 now)
{
	return rcvmgr_assignable(c) && c->bytes && !rcvmgr_quiet(c, now);
}

/* the control work yields the CPU every this many connections */
#define RCVMGR_CONTROL_BATCH	256

/*
 * The walk before @c, which it has yet to see, gives the CPU up: the
 * entry before @c keeps its place (rn->walk_pos, which an unlink moves
 * back), and the walk goes on from the entry after that place, linked in
 * the new RCU read-side section; returns the entry at that place. NULL,
 * without yielding, if @c is already out of the list: the walk tries
 * again at the next entry.
 */
static struct rcvmgr_conn *rcvmgr_walk_yield(struct rcvmgr_net *rn, struct rcvmgr_conn *c)
{
	struct list_head *pos;

	spin_lock_bh(&rn->lock);
	if (c->unlinked) {
		spin_unlock_bh(&rn->lock);
		return NULL;
	}
	rn->walk_pos = c->list.prev;
	spin_unlock_bh(&rn->lock);
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	spin_lock_bh(&rn->lock);
	pos = rn->walk_pos;
	rn->walk_pos = NULL;
	spin_unlock_bh(&rn->lock);
	return list_entry(pos, struct rcvmgr_conn, list);
}

/*
 * Section 5: what a connection showed it can use over the interval, by the
 * most data that arrived in one RTT. One that delivered its window (within
 * two segments) may use more; one that did not is limited elsewhere and
 * keeps what it used, with a quarter to grow into; one that sent nothing
 * keeps two segments.
 */
static u32 rcvmgr_demand(const struct rcvmgr_conn *c)
{
	u32 f = c->flight_max, floor = 2 * c->mss;

	if (!f)
		return floor;
	if ((u64)f + floor >= c->window)
		return U32_MAX;
	return max_t(u64, floor, min_t(u64, (u64)f + f / 4, U32_MAX - 1));
}

/* the vote at an interval's end (rcvmgr_budget_trend()) */
struct rcvmgr_vote {
	unsigned int sampled;
	unsigned int increased;
	u32 srtt_max_us;		/* of those sampled */
};

/* the interval ended for @c: its RTT trend, its demand; true if it expired */
static bool rcvmgr_conn_interval(struct rcvmgr_conn *c, const struct rcvmgr_cfg *cfg,
				 u64 now, struct rcvmgr_vote *v)
{
	u64 idle = rcvmgr_idle_ns(c, now);
	u32 mean;

	if (idle > (u64)cfg->idle_ms * NSEC_PER_MSEC ||
	    (c->state == TCP_RCVMGR_STATE_CLOSING && idle > RCVMGR_CLOSED_LINGER_NS) ||
	    ((c->flags & RCVMGR_F_RESET) && idle > RCVMGR_RESET_LINGER_NS) ||
	    (c->state == TCP_RCVMGR_STATE_UNSCALED && idle > RCVMGR_UNSCALED_IDLE_NS) ||
	    (!(c->flags & RCVMGR_F_ESTABLISHED) && idle > RCVMGR_OPENING_IDLE_NS))
		return true;
	mean = c->rtt_cnt ? div_u64(c->rtt_sum_us, c->rtt_cnt) : 0;
	/*
	 * Section 3.1's "RTT increased": above the least RTT the connection
	 * has shown. A queue that stopped growing holds RTTs up without a rise
	 * from one interval to the next, and the budget would grow until the
	 * router's buffer is full. A rise over the last interval's mean is
	 * also a rise over the least (that mean is not below it).
	 */
	if (rcvmgr_assignable(c) && mean && c->rtt_prev_us) {
		v->sampled++;
		if (rcvmgr_rtt_increased(c->rtt_min_us, mean, cfg->rtt_tolerance))
			v->increased++;
		v->srtt_max_us = max(v->srtt_max_us, c->srtt_us);
	}
	c->rtt_prev_us = mean;
	c->rtt_sum_us = 0;
	c->rtt_cnt = 0;
	c->demand = rcvmgr_demand(c);
	c->flight_max = 0;
	return false;
}

static void rcvmgr_share_of(struct rcvmgr_share *s, const struct rcvmgr_conn *c, u64 now)
{
	s->bytes = c->bytes;
	s->mss = c->mss;
	s->rtt_us = c->srtt_us;
	s->priority = c->priority;
	/* one created on another CPU while the walk ran may be newer than now */
	s->rtts = rcvmgr_rtts_since(div_u64(now > c->created_ns ? now - c->created_ns : 0,
					    NSEC_PER_USEC), c->srtt_us);
	s->demand = c->demand;
	s->state = c->state;
}

/*
 * After a split vote, maybe a probe (rcvmgr_probe_due()); a pass at its
 * end gives the connections B again (ctl_mutex)
 */
static void rcvmgr_probe_maybe(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
			       unsigned int conns, const struct rcvmgr_vote *v)
{
	unsigned long delay;
	u64 len;

	if (!conns) {
		/* the next connections start afresh */
		rn->splits = 0;
		rn->since_probe = RCVMGR_PROBE_GAP;
		return;
	}
	if (v->increased && v->increased < v->sampled)
		rn->splits = min(rn->splits + 1, U32_MAX - 1);
	else
		rn->splits = 0;
	rn->since_probe = min(rn->since_probe + 1, U32_MAX - 1);
	/* the other policies do not read RTTs: B is theirs to use whole */
	if (cfg->policy != TCP_RCVMGR_POLICY_AZUMA ||
	    !rcvmgr_probe_due(rn->splits, rn->since_probe))
		return;
	len = rcvmgr_probe_ns(v->srtt_max_us, cfg->interval_ms);
	/* jiffies, rounded up; an end of 0 would read as no probe */
	delay = nsecs_to_jiffies(len) + 1;
	WRITE_ONCE(rn->probe_end, (jiffies + delay) ?: 1);
	if (!READ_ONCE(rn->exiting))
		queue_delayed_work(system_dfl_wq, &rn->probe_done, delay);
	rn->splits = 0;
	rn->since_probe = 0;
	rn->probes++;
	trace_tcp_rcvmgr_probe(rn->budget, rcvmgr_probe_budget(rn->budget, cfg->budget_min),
			       div_u64(len, NSEC_PER_USEC), v->sampled, v->increased);
}

/* the budget rule at the end of an interval (ctl_mutex) */
static void rcvmgr_budget_adjust(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
				 unsigned int conns, unsigned int sampled,
				 unsigned int increased)
{
	struct rcvmgr_budget_params bp = {
		.min = cfg->budget_min,
		.max = cfg->budget_max,
		.step = cfg->budget_step,
		.decrease = cfg->budget_decrease,
		.tolerance = cfg->rtt_tolerance,
	};
	enum rcvmgr_trend trend = rcvmgr_budget_trend(sampled, increased);
	u32 old = rn->budget, b;

	/* with no connection left, the next ones start afresh */
	b = conns ? rcvmgr_budget_next(old, trend, &bp) : cfg->budget_init;
	WRITE_ONCE(rn->budget, b);
	rn->intervals++;
	if (b > old)
		rn->budget_up++;
	else if (b < old)
		rn->budget_down++;
	trace_tcp_rcvmgr_budget(old, b, trend, conns, sampled, increased);
}

/*
 * One pass over the connections: at an interval's end also the RTT trend,
 * the budget and expiry; always the assignment. The walk that collects
 * the active connections is the only part under RCU (a copy of a few
 * fields each); the assignment and writing it back run outside it, on the
 * references the walk took. Both yield the CPU every batch. Without
 * memory for the assignment, the walk still votes and expires.
 */
static void rcvmgr_control(struct rcvmgr_net *rn, bool interval_end)
{
	unsigned int n = 0, max, i, n_initial = 0, held = 0, walked = 0;
	struct rcvmgr_conn **conns, *c, *pos, *before;
	struct rcvmgr_assign_params ap;
	struct rcvmgr_vote vote = {};
	const struct rcvmgr_cfg *cfg;
	bool assign = true, more = false;
	struct rcvmgr_share *shares;
	u64 now, need = 0;
	u32 budget;

	mutex_lock(&rn->ctl_mutex);
	/* the kicks from now on wait for the gap (rcvmgr_kick()) */
	WRITE_ONCE(rn->reassign_next, jiffies + RCVMGR_REASSIGN_GAP);
	cfg = rcu_dereference_protected(rn->cfg, lockdep_is_held(&rn->ctl_mutex));
	max = atomic_read(&rn->count) + RCVMGR_ASSIGN_SLACK;
	shares = kvcalloc(max, sizeof(*shares), GFP_KERNEL);
	conns = kvcalloc(max, sizeof(*conns), GFP_KERNEL);
	if (!shares || !conns) {
		/* the assignment is not lost: again a little later */
		if (!READ_ONCE(rn->exiting))
			queue_delayed_work(system_dfl_wq, &rn->reassign, RCVMGR_NOMEM_RETRY);
		if (!interval_end)
			goto out;
		/* the interval's vote and expiry still run, on no memory */
		max = 0;
		assign = false;
	}

	now = ktime_get_ns();
	rcu_read_lock();
	pos = list_entry(&rn->conns, struct rcvmgr_conn, list);
	list_for_each_entry_continue_rcu(pos, &rn->conns, list) {
		bool expired = false;

		/* every batch, the CPU given up, the walk on from its place */
		if (++walked >= RCVMGR_CONTROL_BATCH) {
			before = rcvmgr_walk_yield(rn, pos);
			if (before) {
				walked = 0;
				pos = before;
				continue;
			}
		}
		c = pos;
		spin_lock_bh(&c->lock);
		if (interval_end)
			expired = rcvmgr_conn_interval(c, cfg, now, &vote);
		/* a pause does not restart the budget: held counts it */
		if (!expired && rcvmgr_assignable(c) && c->bytes)
			held++;
		if (!expired && rcvmgr_active(c, now)) {
			if (n == max) {
				more = true;
			} else if (refcount_inc_not_zero(&c->ref)) {
				rcvmgr_share_of(&shares[n], c, now);
				conns[n++] = c;
			}
		}
		spin_unlock_bh(&c->lock);
		if (expired)
			rcvmgr_conn_forget(rn, c, true, now);
	}
	rcu_read_unlock();
	if (interval_end) {
		rcvmgr_budget_adjust(rn, cfg, held, vote.sampled, vote.increased);
		rcvmgr_probe_maybe(rn, cfg, held, &vote);
	}
	if (!assign)
		goto out;
	/* connections that came during the walk beyond the arrays: soon */
	if (more && !READ_ONCE(rn->exiting))
		queue_delayed_work(system_dfl_wq, &rn->reassign, RCVMGR_REASSIGN_GAP);
	budget = rn->budget;
	if (rcvmgr_probing(rn))
		budget = rcvmgr_probe_budget(budget, cfg->budget_min);

	ap = (struct rcvmgr_assign_params) {
		.policy = cfg->policy,
		.link_rate = cfg->link_rate,
		.spring_queue = cfg->spring_queue,
		.spring_interactive = cfg->spring_interactive,
		.spring_short = cfg->spring_short,
		.initial_window = cfg->initial_window,
	};
	rcvmgr_assign(shares, n, budget, &ap);
	rn->assignments++;

	for (i = 0; i < n; i++) {
		struct rcvmgr_share *s = &shares[i];

		if (i % RCVMGR_CONTROL_BATCH == RCVMGR_CONTROL_BATCH - 1)
			cond_resched();
		c = conns[i];
		spin_lock_bh(&c->lock);
		if (rcvmgr_assignable(c)) {
			if (s->state == TCP_RCVMGR_STATE_PERSISTENT)
				c->state = s->state;
			WRITE_ONCE(c->window, s->window);
			WRITE_ONCE(c->threshold, s->threshold);
		}
		if (c->state == TCP_RCVMGR_STATE_INITIAL) {
			n_initial++;
			need += rcvmgr_slow_start_window(s->rtts, s->mss, cfg->initial_window);
		}
		spin_unlock_bh(&c->lock);
		rcvmgr_conn_put(c);
	}

	/* (1-a): initial connections may grow, live, as slow start would */
	WRITE_ONCE(rn->initial_fits, need <= budget);
	rn->n_initial = n_initial;
	rn->n_persistent = n - n_initial;
	WRITE_ONCE(rn->n_assigned, n);
out:
	kvfree(shares);
	kvfree(conns);
	if (interval_end && !READ_ONCE(rn->exiting))
		queue_delayed_work(system_dfl_wq, &rn->tick,
				   msecs_to_jiffies(cfg->interval_ms));
	mutex_unlock(&rn->ctl_mutex);
}

void rcvmgr_tick(struct work_struct *work)
{
	rcvmgr_control(container_of(to_delayed_work(work), struct rcvmgr_net, tick), true);
}

void rcvmgr_reassign_work(struct work_struct *work)
{
	rcvmgr_control(container_of(to_delayed_work(work), struct rcvmgr_net, reassign), false);
}

/* a probe's end: the connections' windows from B again (early: later) */
void rcvmgr_probe_done(struct work_struct *work)
{
	struct rcvmgr_net *rn = container_of(to_delayed_work(work), struct rcvmgr_net,
					     probe_done);
	unsigned long end = READ_ONCE(rn->probe_end);

	if (end && time_before(jiffies, end)) {
		if (!READ_ONCE(rn->exiting))
			queue_delayed_work(system_dfl_wq, &rn->probe_done, end - jiffies);
		return;
	}
	rcvmgr_control(rn, false);
}

void rcvmgr_control_start(struct rcvmgr_net *rn)
{
	const struct rcvmgr_cfg *cfg = rcu_dereference_protected(rn->cfg, true);

	queue_delayed_work(system_dfl_wq, &rn->tick, msecs_to_jiffies(cfg->interval_ms));
}
