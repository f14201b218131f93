/* SPDX-License-Identifier: GPL-2.0 */
/* The er2bc generic netlink commands (genl.c), registered by the module (main.c). */
#ifndef _ER2BC_GENL_H
#define _ER2BC_GENL_H

int er2bc_genl_register(void);
void er2bc_genl_unregister(void);

#endif /* _ER2BC_GENL_H */
