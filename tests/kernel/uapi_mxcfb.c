// SPDX-License-Identifier: MIT
/*
 * epdfb.h together with NXP's <linux/mxcfb.h> (here a stand-in with the same
 * names and values, found as <linux/mxcfb.h>): built once with each header
 * first. The build fails on a redefinition (-Werror) or a conflict; the
 * assertions check that the shared names keep the ABI epdfb implements and
 * that the names of each header stay available.
 */
#ifdef EPDFB_FIRST
#include <epdfb.h>
#include <linux/mxcfb.h>
#else
#include <epdfb.h>
#include <linux/mxcfb.h>
#endif

#include <assert.h>
#include <stdio.h>

#ifndef VELLUM_MXCFB_STANDIN
#error "<linux/mxcfb.h> is not the test's stand-in"
#endif

/* the layouts and ioctl numbers of NXP's 4.x BSP, as epdfb implements them */
static_assert(sizeof(struct mxcfb_rect) == 16, "struct mxcfb_rect");
static_assert(sizeof(struct mxcfb_update_data) == 72, "struct mxcfb_update_data");
static_assert(sizeof(struct mxcfb_update_marker_data) == 8, "struct mxcfb_update_marker_data");
static_assert(MXCFB_SEND_UPDATE == 0x4048462e, "MXCFB_SEND_UPDATE");
static_assert(MXCFB_WAIT_FOR_UPDATE_COMPLETE == 0xc008462f, "MXCFB_WAIT_FOR_UPDATE_COMPLETE");
static_assert(MXCFB_SET_TEMPERATURE == 0x4004462c, "MXCFB_SET_TEMPERATURE");
static_assert(MXCFB_GET_PWRDOWN_DELAY == 0x80044631, "MXCFB_GET_PWRDOWN_DELAY");
static_assert(UPDATE_MODE_FULL == 1 && WAVEFORM_MODE_AUTO == 257, "update constants");
static_assert(TEMP_USE_AMBIENT == 0x1000, "TEMP_USE_AMBIENT");

/* epdfb's own names: the waveform ids NXP leaves to devices, the extension */
static_assert(WAVEFORM_MODE_GC16 == 2 && WAVEFORM_MODE_GL16 == 5, "waveform ids");
static_assert(sizeof(struct epdfb_waveform_info) == 36, "struct epdfb_waveform_info");
static_assert(EPDFB_GET_WAVEFORM == 0xc0244680, "EPDFB_GET_WAVEFORM");

/* the update calls of the NTX kernels before the Mark 7, under epdfb's names */
static_assert(sizeof(struct epdfb_mxc_update_data_v1) == 64, "struct epdfb_mxc_update_data_v1");
static_assert(EPDFB_MXC_SEND_UPDATE_V1 == 0x4040462e, "EPDFB_MXC_SEND_UPDATE_V1");
static_assert(EPDFB_MXC_SEND_UPDATE_V1_NTX == 0x4044462e, "EPDFB_MXC_SEND_UPDATE_V1_NTX");
static_assert(EPDFB_MXC_SEND_UPDATE_V1_NTX_LP64 == 0x4050462e, "EPDFB_MXC_SEND_UPDATE_V1_NTX_LP64");
static_assert(EPDFB_MXC_WAIT_FOR_UPDATE_COMPLETE_V1 == 0x4004462f,
	"EPDFB_MXC_WAIT_FOR_UPDATE_COMPLETE_V1");

/* NXP's own names */
static_assert(EPDC_FLAG_TEST_COLLISION == 0x200 && WAVEFORM_MODE_GLR16 == 4, "NXP names");

int
main(void)
{
	struct mxcfb_update_data upd = {
		.update_region = {.width = 1, .height = 1},
		.waveform_mode = WAVEFORM_MODE_GC16,
		.update_mode = UPDATE_MODE_PARTIAL,
		.temp = TEMP_USE_AMBIENT,
	};

	printf("epdfb.h and <linux/mxcfb.h>: update of %ux%u with waveform %u, ioctl 0x%lx\n",
		upd.update_region.width, upd.update_region.height, upd.waveform_mode,
		(unsigned long)MXCFB_SEND_UPDATE);
	return 0;
}
