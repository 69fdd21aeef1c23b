/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for NXP's <linux/mxcfb.h> (the i.MX BSP's uapi header, which
 * Kobo and reMarkable software includes), for the test that epdfb.h can be
 * included with it. It has the include guard NXP's header has and defines
 * the names the two headers share with NXP's values and spellings (hex
 * constants, int32_t ioctl arguments), plus a few names only NXP's header
 * has. Written for this test; the real header has much more.
 */
#ifndef __ASM_ARCH_MXCFB_H__
#define __ASM_ARCH_MXCFB_H__

#include <linux/types.h>
#include <stdint.h>

/* Lets the test see which header's definitions it got. */
#define VELLUM_MXCFB_STANDIN 1

struct mxcfb_rect {
	__u32 top;
	__u32 left;
	__u32 width;
	__u32 height;
};

#define AUTO_UPDATE_MODE_REGION_MODE    0
#define AUTO_UPDATE_MODE_AUTOMATIC_MODE 1

#define UPDATE_SCHEME_SNAPSHOT        0
#define UPDATE_SCHEME_QUEUE           1
#define UPDATE_SCHEME_QUEUE_AND_MERGE 2

#define UPDATE_MODE_PARTIAL 0x0
#define UPDATE_MODE_FULL    0x1

/* NXP's own waveform names; the device-specific ones are not defined here. */
#define WAVEFORM_MODE_GLR16 4
#define WAVEFORM_MODE_GLD16 5
#define WAVEFORM_MODE_AUTO  257

#define TEMP_USE_AMBIENT 0x1000

#define EPDC_FLAG_ENABLE_INVERSION 0x01
#define EPDC_FLAG_FORCE_MONOCHROME 0x02
#define EPDC_FLAG_USE_CMAP         0x04
#define EPDC_FLAG_USE_ALT_BUFFER   0x100
#define EPDC_FLAG_TEST_COLLISION   0x200
#define EPDC_FLAG_GROUP_UPDATE     0x400
#define EPDC_FLAG_USE_DITHERING_Y1 0x2000
#define EPDC_FLAG_USE_DITHERING_Y4 0x4000

#define FB_POWERDOWN_DISABLE -1

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

struct mxcfb_waveform_modes {
	int mode_init;
	int mode_du;
	int mode_gc4;
	int mode_gc8;
	int mode_gc16;
	int mode_gc32;
};

#define MXCFB_SET_WAVEFORM_MODES       _IOW('F', 0x2B, struct mxcfb_waveform_modes)
#define MXCFB_SET_TEMPERATURE          _IOW('F', 0x2C, int32_t)
#define MXCFB_SET_AUTO_UPDATE_MODE     _IOW('F', 0x2D, __u32)
#define MXCFB_SEND_UPDATE              _IOW('F', 0x2E, struct mxcfb_update_data)
#define MXCFB_WAIT_FOR_UPDATE_COMPLETE _IOWR('F', 0x2F, struct mxcfb_update_marker_data)
#define MXCFB_SET_PWRDOWN_DELAY        _IOW('F', 0x30, int32_t)
#define MXCFB_GET_PWRDOWN_DELAY        _IOR('F', 0x31, int32_t)
#define MXCFB_SET_UPDATE_SCHEME        _IOW('F', 0x32, __u32)
#define MXCFB_GET_WORK_BUFFER          _IOWR('F', 0x34, unsigned long)

#endif
