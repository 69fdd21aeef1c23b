/*
 * The image pipeline of the e-paper backend, one stage per file. Every stage
 * works on 8-bit gray images addressed by pixman boxes in panel coordinates.
 */
#ifndef VL_EPD_PIPELINE_H
#define VL_EPD_PIPELINE_H

#include <pixman.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vellum/epd-backend.h>

#define VL_EPD_TABLE_SIZE 16

enum vl_epd_content {
	VL_EPD_CONTENT_MONO,  /* black and white only */
	VL_EPD_CONTENT_GRAY,  /* a few flat grays: text and UI */
	VL_EPD_CONTENT_IMAGE, /* continuous tone */
};

struct vl_epd_waveform_entry {
	uint32_t id;
	uint32_t gray_levels;
};

struct vl_epd_waveform_table {
	struct vl_epd_waveform_entry entries[VL_EPD_TABLE_SIZE];
	size_t n;
};

struct vl_epd_choice {
	uint32_t waveform;
	enum vl_epd_dither dither; /* never AUTO */
};

struct vl_epd_plan {
	pixman_box32_t box;
	enum vl_epd_content content;
	struct vl_epd_choice choice;
	bool full;
};

struct vl_epd_merge_options {
	uint32_t panel_width, panel_height;
	uint32_t align;       /* x and width multiples the controller needs */
	uint64_t update_cost; /* fixed cost of one update, in pixels */
	size_t max_rects;
};

/* luma.c: y = (77 R + 150 G + 29 B) >> 8 for XRGB8888 pixels in box. */
void vl_epd_gray_convert(uint8_t *gray, uint32_t gray_stride, const void *xrgb, size_t xrgb_stride,
	const pixman_box32_t *box);

/* changes.c: the bounding box of the pixels in box that differ; false if none. */
bool vl_epd_diff_box(const uint8_t *gray, const uint8_t *sent, uint32_t stride,
	const pixman_box32_t *box, pixman_box32_t *changed);

/* content.c */
enum vl_epd_content vl_epd_classify(
	const uint8_t *gray, uint32_t stride, const pixman_box32_t *box);

/* policy.c */
struct vl_epd_choice vl_epd_choose_waveform(const struct vl_epd_waveform_table *table,
	enum vl_epd_content content, enum vl_epd_mode mode, enum vl_epd_dither dither);

/* coalesce.c: merges plans in place; returns how many remain. */
size_t vl_epd_merge(
	struct vl_epd_plan *plans, size_t n, const struct vl_epd_merge_options *options);

/* ghosting.c */
struct vl_epd_ghost;
struct vl_epd_ghost *vl_epd_ghost_create(uint32_t width, uint32_t height,
	unsigned int full_refresh_every, unsigned int idle_cleanup_ms);
void vl_epd_ghost_destroy(struct vl_epd_ghost *ghost);
/* Whether an update of box with waveform must become a flashing GC16 refresh. */
bool vl_epd_ghost_promote(
	struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t waveform, bool full);
void vl_epd_ghost_record(struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t waveform,
	bool full, bool flashing);
/*
 * The idle cleanup: when there is ghost debt, the bounding box of it and the
 * delay after the last update at which to clean it; false when clean.
 */
bool vl_epd_ghost_cleanup(
	const struct vl_epd_ghost *ghost, pixman_box32_t *box, unsigned int *delay_ms);

/* quantize.c: writes box of gray into a bpp 8 or 32 framebuffer at levels. */
void vl_epd_quantize(uint8_t *dst, uint32_t dst_stride, uint32_t bpp, const uint8_t *gray,
	uint32_t gray_stride, const pixman_box32_t *box, uint32_t levels,
	enum vl_epd_dither dither);

#endif
