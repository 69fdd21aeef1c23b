/* SPDX-License-Identifier: MIT */
/* The model's kernel header in userspace: see kernel-shim.h. */
#include "../kernel-shim.h"
