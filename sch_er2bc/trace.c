// SPDX-License-Identifier: GPL-2.0
/* sch_er2bc's tracepoints (trace.h), defined once for the files that fire them */
#define CREATE_TRACE_POINTS
#include "trace.h"
