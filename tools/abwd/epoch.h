/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sender's epoch: what makes a restarted sender's requests newer than
 * any it sent before, at the responder and at the meter (both take only
 * a newer epoch, or a newer seq within the same one). The clock alone is
 * not enough: before NTP has set it after a reboot, or after a step back,
 * it is behind. So the last epoch used is kept in a file, and the next is
 * newer than both it and the clock (Documentation/er2bc-estimator.rst,
 * "Authentication and replay").
 */
#ifndef _ABWD_EPOCH_H
#define _ABWD_EPOCH_H

#include <stdint.h>

/*
 * The epoch of a sender starting at CLOCK_REALTIME @now_ns: the larger of
 * @now_ns and one more than the epoch in @path (none, or no file: @now_ns),
 * written to @path before it is used (a file of this process's, synced,
 * renamed over the old, the directory synced; the directory made if it is
 * missing). Returns 0; or -1 with *@why set if @path could not be read (it
 * is then written anew from the clock) or written (*@epoch is still the
 * larger of the clock and what was read).
 */
int epoch_next(const char *path, uint64_t now_ns, uint64_t *epoch, const char **why);

#endif /* _ABWD_EPOCH_H */
