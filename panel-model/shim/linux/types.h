/* SPDX-License-Identifier: MIT */
/* The uapi types, and the kernel's own: see kernel-shim.h. */
#include "../kernel-shim.h"
#include_next <linux/types.h>
