/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * epdfb - e-paper framebuffer: userspace API
 *
 * The update ioctls use the numbers and structure layouts of NXP's
 * mxc_epdc_fb driver, so software written for those devices (Kobo,
 * reMarkable 1) drives epdfb unchanged. The EPDFB_* ioctls are extensions.
 */
#ifndef _UAPI_EPDFB_H
#define _UAPI_EPDFB_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Software for i.MX devices also includes NXP's <linux/mxcfb.h>, which
 * defines the structures, ioctls and constants of the guarded block below
 * with the same layouts and values but other spellings: two definitions of
 * a structure do not compile. So epdfb.h takes NXP's header when there is
 * one and defines the block only without it. Either header may come first,
 * as long as NXP's is found as <linux/mxcfb.h> or, under another name,
 * comes first.
 */
#if !defined(__KERNEL__) && defined(__has_include)
#if __has_include("linux/mxcfb.h")
#include <linux/mxcfb.h>
#endif
#endif

/*
 * Waveform ids of the simulated panel, as Kobos and other NTX boards number
 * them; NXP's header leaves these to devices. Loaded with waveform_ids=rm1,
 * epdfb takes the reMarkable 1's numbering instead (see epdfb(4)).
 */
#define WAVEFORM_MODE_INIT	0
#define WAVEFORM_MODE_DU	1
#define WAVEFORM_MODE_GC16	2
#define WAVEFORM_MODE_GC4	3
#define WAVEFORM_MODE_A2	4
#define WAVEFORM_MODE_GL16	5

/* NXP's include guard */
#ifndef __ASM_ARCH_MXCFB_H__

#define WAVEFORM_MODE_AUTO	257

#define UPDATE_MODE_PARTIAL	0
#define UPDATE_MODE_FULL	1

#define TEMP_USE_AMBIENT	0x1000

#define EPDC_FLAG_ENABLE_INVERSION	0x01
#define EPDC_FLAG_FORCE_MONOCHROME	0x02
#define EPDC_FLAG_USE_ALT_BUFFER	0x100
#define EPDC_FLAG_USE_DITHERING_Y1	0x2000
#define EPDC_FLAG_USE_DITHERING_Y4	0x4000

#define AUTO_UPDATE_MODE_REGION_MODE		0
#define AUTO_UPDATE_MODE_AUTOMATIC_MODE		1

#define UPDATE_SCHEME_SNAPSHOT		0
#define UPDATE_SCHEME_QUEUE		1
#define UPDATE_SCHEME_QUEUE_AND_MERGE	2

#define FB_POWERDOWN_DISABLE	-1

struct mxcfb_rect {
	__u32 top;
	__u32 left;
	__u32 width;
	__u32 height;
};

struct mxcfb_alt_buffer_data {
	__u32 phys_addr;
	__u32 width;
	__u32 height;
	struct mxcfb_rect alt_update_region;
};

struct mxcfb_update_data {
	struct mxcfb_rect update_region;
	__u32 waveform_mode;
	__u32 update_mode;
	__u32 update_marker;
	int temp;
	unsigned int flags;
	int dither_mode;
	int quant_bit;
	struct mxcfb_alt_buffer_data alt_buffer_data;
};

struct mxcfb_update_marker_data {
	__u32 update_marker;
	__u32 collision_test;
};

/* Waveform ids that WAVEFORM_MODE_AUTO chooses between. */
struct mxcfb_waveform_modes {
	int mode_init;
	int mode_du;
	int mode_gc4;
	int mode_gc8;
	int mode_gc16;
	int mode_gc32;
};

#define MXCFB_SET_WAVEFORM_MODES	_IOW('F', 0x2B, struct mxcfb_waveform_modes)
#define MXCFB_SET_TEMPERATURE		_IOW('F', 0x2C, __s32)
#define MXCFB_SET_AUTO_UPDATE_MODE	_IOW('F', 0x2D, __u32)
#define MXCFB_SEND_UPDATE		_IOW('F', 0x2E, struct mxcfb_update_data)
#define MXCFB_WAIT_FOR_UPDATE_COMPLETE	_IOWR('F', 0x2F, struct mxcfb_update_marker_data)
#define MXCFB_SET_PWRDOWN_DELAY		_IOW('F', 0x30, __s32)
#define MXCFB_GET_PWRDOWN_DELAY		_IOR('F', 0x31, __s32)
#define MXCFB_SET_UPDATE_SCHEME		_IOW('F', 0x32, __u32)

#endif /* __ASM_ARCH_MXCFB_H__ */

/*
 * The update calls of the NTX kernels of Kobos before the Mark 7 (and other
 * NTX boards): the update structure has no dither_mode and quant_bit, and
 * the marker wait takes the bare marker and gives no collision result.
 * Their headers call these MXCFB_SEND_UPDATE (later MXCFB_SEND_UPDATE_V1 and
 * MXCFB_SEND_UPDATE_V1_NTX) and MXCFB_WAIT_FOR_UPDATE_COMPLETE (later
 * _V1); the names here are epdfb's, so that they never clash with a
 * device's header. The alternate buffer stays refused (EPERM).
 */

/* struct mxcfb_update_data without the dither fields: 64 bytes */
struct epdfb_mxc_update_data_v1 {
	struct mxcfb_rect update_region;
	__u32 waveform_mode;
	__u32 update_mode;
	__u32 update_marker;
	__s32 temp;
	__u32 flags;
	struct mxcfb_alt_buffer_data alt_buffer_data;
};

/*
 * The NTX kernels' own variant, whose alternate buffer starts with a
 * pointer: 68 bytes as the devices' 32-bit software sends it, 80 bytes when
 * that software is built for a 64-bit machine. Only the fields up to @flags
 * are read, and they lie where they lie in struct epdfb_mxc_update_data_v1.
 */
#define EPDFB_MXC_UPDATE_DATA_V1_NTX_SIZE	68
#define EPDFB_MXC_UPDATE_DATA_V1_NTX_LP64_SIZE	80

#define EPDFB_MXC_SEND_UPDATE_V1 \
	_IOW('F', 0x2E, struct epdfb_mxc_update_data_v1)
#define EPDFB_MXC_SEND_UPDATE_V1_NTX \
	_IOC(_IOC_WRITE, 'F', 0x2E, EPDFB_MXC_UPDATE_DATA_V1_NTX_SIZE)
#define EPDFB_MXC_SEND_UPDATE_V1_NTX_LP64 \
	_IOC(_IOC_WRITE, 'F', 0x2E, EPDFB_MXC_UPDATE_DATA_V1_NTX_LP64_SIZE)
#define EPDFB_MXC_WAIT_FOR_UPDATE_COMPLETE_V1	_IOW('F', 0x2F, __u32)

/* Extension: waveform enumeration. */

/* The waveform always flashes (drives every pixel through black/white). */
#define EPDFB_WAVEFORM_FLASHING		0x1
/* The waveform flashes when used with UPDATE_MODE_FULL. */
#define EPDFB_WAVEFORM_FLASHING_FULL	0x2

#define EPDFB_WAVEFORM_NAME_LEN		16

/**
 * struct epdfb_waveform_info - one entry of the panel's waveform table
 * @index: in: 0 .. n-1; the ioctl fails with EINVAL past the last entry
 * @id: waveform_mode value to pass in struct mxcfb_update_data, in the
 *	numbering the module was loaded with (its waveform_ids parameter);
 *	entry i is the waveform of id i; a waveform that numbering has no
 *	id for is not enumerated
 * @gray_levels: number of gray levels the waveform reproduces
 * @flags: EPDFB_WAVEFORM_* flags
 * @duration_ms: duration of one update at the current ambient temperature,
 *	time_scale applied
 * @name: NUL-terminated name, such as "GC16"
 */
struct epdfb_waveform_info {
	__u32 index;
	__u32 id;
	__u32 gray_levels;
	__u32 flags;
	__u32 duration_ms;
	char name[EPDFB_WAVEFORM_NAME_LEN];
};

#define EPDFB_GET_WAVEFORM	_IOWR('F', 0x80, struct epdfb_waveform_info)

#endif /* _UAPI_EPDFB_H */
