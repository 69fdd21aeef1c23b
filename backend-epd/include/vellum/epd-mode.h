/* SPDX-License-Identifier: MIT */
/*
 * Refresh modes and dithering a client or the configuration asks for: the
 * enums of the epaper-refresh-v1 protocol, shared by the update pipeline and
 * the backend.
 */
#ifndef VELLUM_EPD_MODE_H
#define VELLUM_EPD_MODE_H

/* As the protocol's mode enum. */
enum vl_epd_mode {
	VL_EPD_MODE_AUTO,
	VL_EPD_MODE_QUALITY,
	VL_EPD_MODE_TEXT,
	VL_EPD_MODE_FAST,
	VL_EPD_MODE_ANIMATION,
};

/* As the protocol's dither enum, plus AUTO: the waveform policy decides. */
enum vl_epd_dither {
	VL_EPD_DITHER_AUTO,
	VL_EPD_DITHER_NONE,
	VL_EPD_DITHER_ORDERED,
	VL_EPD_DITHER_DIFFUSION,
};

#endif
