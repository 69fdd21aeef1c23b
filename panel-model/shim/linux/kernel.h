/* SPDX-License-Identifier: MIT */
/*
 * The model's kernel header in userspace (see kernel-shim.h), and the uapi
 * one of the same name, for system headers that include it.
 */
#include "../kernel-shim.h"
#include_next <linux/kernel.h>
