/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tcp_rcvmgr: receive-window management, on a gateway, of the TCP
 * connections that cross it.
 */
#ifndef _UAPI_LINUX_TCP_RCVMGR_H
#define _UAPI_LINUX_TCP_RCVMGR_H

#define TCP_RCVMGR_FAMILY_NAME		"tcp_rcvmgr"
#define TCP_RCVMGR_FAMILY_VERSION	1

#endif /* _UAPI_LINUX_TCP_RCVMGR_H */
