/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The eR2BC controller (seed 000, section 3.1): from each ABW estimate, the
 * demand S_d of every class. Pure integer arithmetic on plain structures,
 * no locks, no skbs: the qdisc walks its classes in priority order and
 * calls these, KUnit calls them on arrays.
 *
 * One update, for estimate t:
 *
 *	er2bc_ctrl_begin(ctrl, params, W(t), R(t-1), sum of G(t-1) over F_r, |F_r|)
 *	for each class:
 *		sd = er2bc_ctrl_demand(ctrl, params, class)
 *	for each class, highest priority first (guarantee.c):
 *		g = er2bc_guarantee_next(&fill, params, class, rate, ceil, true)
 *		    eq. 1, then er2bc_ctrl_settle() (floor, convergence), within W
 *
 * A change of a class or of the qdisc runs the same round with estimate
 * false: er2bc_ctrl_keep() in place of er2bc_ctrl_settle().
 *
 * Rates are bits per second, u64, saturated at ER2BC_CTRL_RATE_MAX so that
 * sums and differences fit in s64. Ratios are millionths (ER2BC_RATIO_ONE).
 */
#ifndef _ER2BC_CTRL_H
#define _ER2BC_CTRL_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/er2bc.h>
#include <linux/er2bc_genl.h>

/*
 * The history's size is stated twice in uapi: by the family's spec (the ring
 * sizes below) and by the tc options' bound on C and M (the qdisc's policy)
 */
static_assert(ER2BC_HIST_MAX == ER2BC_CTRL_HIST_MAX);

/* rates above this are taken as this: 2^56 bit/s, beyond any link */
#define ER2BC_CTRL_RATE_MAX	BIT_ULL(56)

/* parameters (qdisc options); the paper's (Table 4) are the defaults */
#define ER2BC_CTRL_C_DEFAULT	10
#define ER2BC_CTRL_M_DEFAULT	10
#define ER2BC_CTRL_BLIM_DEFAULT	50000
/* gradual convergence: a decrease moves 1/ER2BC_CTRL_STEPS of the way */
#define ER2BC_CTRL_STEPS	4
/* gradual convergence: changes within this many millionths are ignored */
#define ER2BC_CTRL_DEADBAND	20000

struct er2bc_ctrl_params {
	u32 c;			/* updates summed in Delta, 1..ER2BC_HIST_MAX */
	u32 m;			/* updates s_p is the least of, 1..ER2BC_HIST_MAX */
	u64 blim;		/* B_lim */
	u64 floor;		/* no guarantee below this (classes with R_f > 0) */
	u8 converge;		/* enum er2bc_converge */
};

/* one class, as the controller keeps it */
struct er2bc_ctrl_class {
	/* from the class's configuration */
	u64 rf;			/* R_f */
	u8 type;		/* enum er2bc_class_type */
	u8 margin;		/* percent of the demand guaranteed above it */

	/* G(t-1) before an update, G(t) after */
	u64 g;
	/* the last update's figures, as ctrl-get reports them */
	u64 sd;			/* S_d */
	u64 re;			/* R_e (retransmitting classes) */
	s64 delta;		/* R_f - R_e */
	s64 delta_sum;		/* Delta: delta over the last C updates */

	/* delta of the last ER2BC_HIST_MAX updates, a ring */
	s64 hist[ER2BC_HIST_MAX];
	u8 hist_len;
	u8 hist_pos;		/* where the next delta goes */
};

/*
 * Whether a class is in F_r, the retransmitting classes whose average
 * guarantee eq. 2 takes: TCP with a necessary rate. A best-effort TCP class
 * (R_f 0) is guaranteed nothing, and would pull the average down.
 */
static inline bool er2bc_ctrl_in_fr(const struct er2bc_ctrl_class *k)
{
	return k->type == ER2BC_TYPE_TCP && k->rf;
}

/* the controller of one qdisc */
struct er2bc_ctrl {
	u64 w;			/* W(t-1) before an update, W(t) after */
	u64 recv;		/* R(t-1) of the last update */
	u32 s;			/* s(t) */
	u32 sp;			/* s_p(t+1) */
	u64 fr_avg;		/* sum of G(t-1) over F_r / |F_r| (0 if F_r empty) */
	u64 updates;

	/* s of the last ER2BC_HIST_MAX updates, a ring */
	u32 s_hist[ER2BC_HIST_MAX];
	u8 s_len;
	u8 s_pos;		/* where the next s goes */
};

void er2bc_ctrl_params_default(struct er2bc_ctrl_params *p);
void er2bc_ctrl_init(struct er2bc_ctrl *ctrl);
void er2bc_ctrl_class_init(struct er2bc_ctrl_class *k, u64 rf, u8 type);

void er2bc_ctrl_begin(struct er2bc_ctrl *ctrl, const struct er2bc_ctrl_params *p,
		      u64 w, u64 recv, u64 fr_sum, u32 fr_count);
u64 er2bc_ctrl_demand(const struct er2bc_ctrl *ctrl,
		      const struct er2bc_ctrl_params *p, struct er2bc_ctrl_class *k);
u64 er2bc_ctrl_keep(const struct er2bc_ctrl_params *p,
		    const struct er2bc_ctrl_class *k, u64 g);
u64 er2bc_ctrl_settle(const struct er2bc_ctrl_params *p,
		      struct er2bc_ctrl_class *k, u64 g);

/* the i-th newest s (0: s(t)), i < ctrl->s_len */
u32 er2bc_ctrl_s_hist(const struct er2bc_ctrl *ctrl, unsigned int i);

#endif /* _ER2BC_CTRL_H */
