/* SPDX-License-Identifier: MIT */
/*
 * The e-paper update pipeline: pure functions from a frame's damage to the
 * panel updates that show it, one stage per file.
 *
 *   gray      XRGB8888 or RGB565 -> 8-bit luma, into a panel-sized gray shadow
 *   diff      damage -> the rects of pixels that differ from what was sent
 *   classify  a rect's content: black and white, few grays, or an image
 *   waveform  content + client hint + the device's table -> waveform, dither
 *   merge     fewer, aligned updates when one costs less than two
 *   ghost     ghost debt per area: flashing promotions and idle cleanup
 *   blink     small areas blinking at a steady period (carets), held inked
 *   anim      areas animated without input (spinners), driven at a pace
 *   dither    quantize a rect to the waveform's gray levels
 *   transform rotated output coordinates -> the panel's native ones
 *
 * Coordinates are pixels; boxes are pixman boxes (x2, y2 exclusive), as
 * wlroots hands damage in a pixman_region32_t. Every function clips the
 * boxes it is given to the images it works on, and treats a NULL pointer,
 * an invalid image or an empty box as "nothing to do" (false, 0 or an
 * empty result) unless its comment says otherwise.
 */
#ifndef VELLUM_EPD_PIPELINE_H
#define VELLUM_EPD_PIPELINE_H

#include <pixman.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vellum/epd-mode.h>

/* An 8-bit gray image, or a view of one: stride bytes a row. */
struct vl_epd_gray {
	uint8_t *data;
	int32_t width, height;
	int32_t stride;
};

/* True if gray has data, a positive size and stride >= width. */
bool vl_epd_gray_valid(const struct vl_epd_gray *gray);

/*
 * Clips box to [0, width) x [0, height). Returns false, and sets box to all
 * zeroes, when nothing is left (an inverted box is empty).
 */
bool vl_epd_box_clip(pixman_box32_t *box, int32_t width, int32_t height);

/* Area of a box; 0 for an empty or inverted one. */
uint64_t vl_epd_box_area(const pixman_box32_t *box);

/* The bounding box of two boxes. */
pixman_box32_t vl_epd_box_union(const pixman_box32_t *a, const pixman_box32_t *b);

/* gray.c */

/*
 * The luma of an XRGB8888 pixel: BT.601 weights in 8-bit fixed point,
 * y = (77 R + 150 G + 29 B) >> 8. The weights sum to 256, so white stays
 * 255; epdfb converts 32-bpp framebuffers with the same formula.
 */
static inline uint8_t
vl_epd_luma(uint32_t xrgb)
{
	return (uint8_t)((77 * ((xrgb >> 16) & 0xff) + 150 * ((xrgb >> 8) & 0xff) +
				 29 * (xrgb & 0xff)) >>
			 8);
}

/*
 * Converts box of an XRGB8888 image into gray, at the same coordinates.
 * xrgb holds at least gray->width x gray->height pixels, xrgb_stride bytes a
 * row; both must be 4-byte aligned. Returns false if nothing was converted.
 */
bool vl_epd_gray_convert(const struct vl_epd_gray *gray, const void *xrgb, int32_t xrgb_stride,
	const pixman_box32_t *box);

/* What the renderer draws the output in. */
enum vl_epd_pixel_format {
	VL_EPD_PIXEL_XRGB8888, /* also ARGB8888, whose alpha is ignored */
	VL_EPD_PIXEL_RGB565,
};

/*
 * Converts box of an RGB565 image into gray, at the same coordinates, as
 * vl_epd_gray_convert() converts the XRGB8888 image whose channels are the
 * RGB565 ones widened to 8 bits (their top bits repeated below them): both
 * give the same gray for the same picture. rgb565 and stride must be
 * 2-byte aligned. Returns false if nothing was converted.
 */
bool vl_epd_gray_convert_rgb565(const struct vl_epd_gray *gray, const void *rgb565, int32_t stride,
	const pixman_box32_t *box);

/*
 * Whether an image of format whose rows start stride bytes apart at pixels
 * can be converted into a gray image width pixels wide: alignment, and a
 * stride that holds a row and fits the converters' int32_t.
 */
bool vl_epd_gray_can_convert(
	const void *pixels, size_t stride, int32_t width, enum vl_epd_pixel_format format);

/*
 * vl_epd_gray_convert() or vl_epd_gray_convert_rgb565() on every rect of
 * damage (which lies within gray); false if any rect could not be converted.
 */
bool vl_epd_gray_convert_region(const struct vl_epd_gray *gray, const void *pixels, int32_t stride,
	enum vl_epd_pixel_format format, const pixman_region32_t *damage);

/*
 * Writes box of gray into an XRGB8888 image as R = G = B, which a 32-bpp
 * epdfb converts back to the same gray exactly.
 */
bool vl_epd_gray_expand(
	void *xrgb, int32_t xrgb_stride, const struct vl_epd_gray *gray, const pixman_box32_t *box);

/* diff.c */

/*
 * Shrinks box to the bounding box of the pixels where cur and prev differ,
 * looking at no pixel outside box. Returns false, and leaves changed
 * untouched, when no pixel differs.
 */
bool vl_epd_diff_box(const struct vl_epd_gray *cur, const struct vl_epd_gray *prev,
	const pixman_box32_t *box, pixman_box32_t *changed);

/*
 * vl_epd_diff_box() on every rect of damage: writes the rects that changed
 * to out and returns how many. Rects without a change are dropped. When out
 * is full, the remaining changes are folded into its last rect (its bounding
 * box grows), so nothing that changed is ever lost.
 */
size_t vl_epd_diff(const struct vl_epd_gray *cur, const struct vl_epd_gray *prev,
	const pixman_region32_t *damage, pixman_box32_t *out, size_t capacity);

/* scroll.c */

/*
 * Whether box of cur shows box of prev moved up or down by whole rows (a
 * scroll, not a new page): most of cur's rows that are not one flat value
 * are rows of prev, the same number of rows away. On true, *shift is how
 * far content moved down (negative: up). Rows outside box are not looked at.
 */
bool vl_epd_detect_scroll(const struct vl_epd_gray *cur, const struct vl_epd_gray *prev,
	const pixman_box32_t *box, int32_t *shift);

/* classify.c */

enum vl_epd_content {
	VL_EPD_CONTENT_MONO,  /* every pixel 0 or 255 */
	VL_EPD_CONTENT_GRAY,  /* a few gray levels: text, UI */
	VL_EPD_CONTENT_IMAGE, /* continuous tone */
};

/* Gray levels whose share decides between GRAY and IMAGE. */
#define VL_EPD_CLASSIFY_LEVELS 16
/* Most pixels counted for that share. */
#define VL_EPD_CLASSIFY_SAMPLES 65536

/*
 * Classifies box of gray:
 * - MONO if every pixel in box is 0 or 255 (checked exactly);
 * - else GRAY if the VL_EPD_CLASSIFY_LEVELS most frequent values cover at
 *   least 7/8 of the pixels counted: flat fills, text and its antialiased
 *   edges, and anything with at most 16 distinct values;
 * - else IMAGE.
 * The share is counted on every k-th row of box, from its first, with
 * k = ceil(area / VL_EPD_CLASSIFY_SAMPLES): every row of small boxes, about
 * VL_EPD_CLASSIFY_SAMPLES pixels of large ones. An empty box is MONO.
 */
enum vl_epd_content vl_epd_classify(const struct vl_epd_gray *gray, const pixman_box32_t *box);

/* waveform.c */

#define VL_EPD_WAVEFORM_TABLE_SIZE 16

/* One of the device's waveforms, as EPDFB_GET_WAVEFORM reports it. */
struct vl_epd_waveform_entry {
	uint32_t id; /* waveform_mode of MXCFB_SEND_UPDATE */
	char name[16];
	uint32_t levels;    /* gray levels it shows */
	bool flashing;      /* flashes in every update mode (INIT) */
	bool flashing_full; /* flashes in UPDATE_MODE_FULL (GC16, GC4) */
};

struct vl_epd_waveform_table {
	struct vl_epd_waveform_entry entries[VL_EPD_WAVEFORM_TABLE_SIZE];
	size_t n;
};

/* Fills table with the NXP BSP's waveforms: INIT, DU, GC16, GC4, A2, GL16. */
void vl_epd_waveform_table_default(struct vl_epd_waveform_table *table);

/* The entry of id, or NULL. */
const struct vl_epd_waveform_entry *vl_epd_waveform_find(
	const struct vl_epd_waveform_table *table, uint32_t id);

struct vl_epd_waveform_choice {
	uint32_t waveform;         /* an id, or WAVEFORM_MODE_AUTO for a device without a table */
	uint32_t levels;           /* quantize to this many levels; 256 leaves pixels as they are */
	enum vl_epd_dither dither; /* never VL_EPD_DITHER_AUTO */
};

/*
 * The waveform policy. The wanted waveform:
 * - mode FAST or ANIMATION: A2;
 * - mode QUALITY: GC16;
 * - mode TEXT: DU for MONO content, else GL16;
 * - mode AUTO: DU for MONO, GL16 for GRAY, GC16 for IMAGE.
 * A waveform missing from table, or flashing in every update mode (the
 * IT8951's GC16), falls back along
 *   DU -> A2 -> GC4 -> GL16 -> GC16,    A2 -> DU -> GC4 -> GL16 -> GC16,
 *   GL16 -> GC16 -> GC4 -> DU -> A2,    GC16 -> GL16 -> GC4 -> DU -> A2,
 * then to the non-INIT entry with the most levels (INIT clears the panel
 * instead of showing content), then to WAVEFORM_MODE_AUTO with 256 levels.
 * Dither: an explicit request is kept; AUTO becomes NONE for MONO content
 * or 256 levels, ORDERED when the waveform has 2 levels (gray content on
 * DU or A2) or the content is an IMAGE, and NONE otherwise (crisp text).
 */
struct vl_epd_waveform_choice vl_epd_choose_waveform(const struct vl_epd_waveform_table *table,
	enum vl_epd_content content, enum vl_epd_mode mode, enum vl_epd_dither dither);

/*
 * The waveform of a flashing refresh (a ghost promotion, an idle cleanup,
 * a client's full refresh request), to send with UPDATE_MODE_FULL: GC16,
 * else the entry with the most levels that flashes in full mode, else what
 * vl_epd_choose_waveform() picks for an IMAGE in QUALITY mode. No dither.
 */
struct vl_epd_waveform_choice vl_epd_choose_flashing(const struct vl_epd_waveform_table *table);

/* waveform-map.c */

/*
 * The waveforms of an mxc_epdc_fb kernel come numbered as its waveform file
 * wants, which differs between devices; a map from configuration says which
 * number shows which of the NXP BSP's waveform kinds (WAVEFORM_MODE_INIT
 * .. WAVEFORM_MODE_GL16). The policy keeps choosing kinds; the map turns a
 * kind into the number sent in MXCFB_SEND_UPDATE.
 */
#define VL_EPD_WAVEFORM_KINDS 6 /* WAVEFORM_MODE_INIT .. WAVEFORM_MODE_GL16 */

struct vl_epd_waveform_map {
	int32_t id[VL_EPD_WAVEFORM_KINDS]; /* by kind; -1: the device lacks it */
};

/* Every kind numbered as in the BSP (WAVEFORM_MODE_*). */
void vl_epd_waveform_map_identity(struct vl_epd_waveform_map *map);

/*
 * Parses "KIND=ID" items separated by commas, e.g.
 * "init=0, du=1, gc16=2, gc4=3, a2=4, gl16=5"; blanks around items, kinds
 * and ids do not matter. KIND is init, du, gc16, gc4, a2 or gl16 (any
 * case), ID a decimal number below 2^31; kinds left out are missing on the
 * device. At least one kind other than init is needed.
 * On failure returns false, leaves map alone and writes a message naming
 * the offending item to error.
 */
bool vl_epd_waveform_map_parse(
	const char *text, struct vl_epd_waveform_map *map, char *error, size_t error_size);

/* The BSP's waveform entries (vl_epd_waveform_table_default) of the kinds map has. */
void vl_epd_waveform_table_from_map(
	struct vl_epd_waveform_table *table, const struct vl_epd_waveform_map *map);

/* The number to send for a waveform the policy chose; ids outside the kinds pass. */
uint32_t vl_epd_waveform_map_device_id(const struct vl_epd_waveform_map *map, uint32_t waveform);

/* merge.c */

/* One planned panel update. */
struct vl_epd_plan {
	pixman_box32_t box;
	enum vl_epd_content content;
	struct vl_epd_waveform_choice choice;
	bool full;     /* UPDATE_MODE_FULL */
	bool remember; /* drawn fast while the user works: the idle cleanup redraws it */
	bool scrolled; /* content that moved without input: fast, but flashes when due */
	bool animated; /* an animation nobody asked for: fast, paced, never merged with the rest */
	bool asked;    /* the client asked for its mode or a full refresh: no start rule */
};

struct vl_epd_merge_options {
	int32_t panel_width, panel_height; /* plans are clipped to the panel */
	int32_t align_x, align_y;          /* boxes grow to multiples of these; 0 or 1: none */
	uint64_t update_cost;              /* fixed cost of one update, in pixels */
	size_t max_rects;                  /* at most this many plans; 0: no cap */
	bool mixed; /* may merge plans of different content, waveform, dither or mode */
};

/*
 * Aligns and clips plans (dropping those left empty), then merges them in
 * place and returns how many are left, in their original order.
 *
 * An update costs update_cost + its area. Two plans merge into their
 * bounding box when that costs no more than both: area(union) <=
 * update_cost + area(a) + area(b); the best saving goes first, until no pair
 * qualifies. Then, while more than max_rects are left, the pair whose union
 * costs least extra merges.
 *
 * Only compatible plans merge: the same content, waveform choice, full and
 * remember flags. With mixed, any two may; the union takes the content and
 * choice of the richer member (IMAGE > GRAY > MONO; the larger area on a
 * tie) and is full, or remembered, if either was. So without mixed the result exceeds max_rects
 * only when more than max_rects kinds of plans are present.
 */
size_t vl_epd_merge(
	struct vl_epd_plan *plans, size_t n, const struct vl_epd_merge_options *options);

/* ghost.c */

struct vl_epd_ghost_options {
	int32_t panel_width, panel_height;
	int32_t cell_size; /* side of a square cell, in pixels */
	/* Partial updates on a cell before its next update flashes; 0: no limit. */
	uint32_t full_refresh_every;
	/* Debt on a cell before its next update flashes; 0: no limit. */
	uint32_t debt_threshold;
	/* Debt from which the idle cleanup flashes a remembered cell, not just redraws it; 0:
	 * never. */
	uint32_t cleanup_debt;
	/* A cleanup this long after the last update; 0: none. */
	uint32_t idle_cleanup_ms;
	/* Debt a non-flashing update adds to each cell it touches. */
	uint32_t debt_a2, debt_du, debt_gc4, debt_gl16, debt_gc16, debt_other;
};

/*
 * Defaults: 64-px cells, a flash after 40 debt whatever the count of
 * partials, a cleanup flash from 4 debt (two DU updates, one A2), no idle
 * cleanup, debt A2 4, DU 2, GC4 2, GL16 1, GC16 1, other waveforms 2. A
 * minute of a clock ticking every second in GL16 flashes once.
 */
void vl_epd_ghost_options_default(
	struct vl_epd_ghost_options *options, int32_t panel_width, int32_t panel_height);

struct vl_epd_ghost;

/* NULL on a bad size or no memory. */
struct vl_epd_ghost *vl_epd_ghost_create(const struct vl_epd_ghost_options *options);
void vl_epd_ghost_destroy(struct vl_epd_ghost *ghost);
/* Changes the flash policy; the debt recorded so far stays. */
void vl_epd_ghost_set_policy(
	struct vl_epd_ghost *ghost, uint32_t full_refresh_every, uint32_t idle_cleanup_ms);

/*
 * Whether an update of box must flash: true when a cell it touches reached
 * full_refresh_every partials or debt_threshold. Then *promoted is box grown
 * to cover those cells (clipped to the panel), so the flashing update clears
 * them whole; the caller sends it with vl_epd_choose_flashing() in
 * UPDATE_MODE_FULL. A caller may put a promotion off (during an animation,
 * say): the debt stays until a flash covers it.
 */
bool vl_epd_ghost_promote(
	const struct vl_epd_ghost *ghost, const pixman_box32_t *box, pixman_box32_t *promoted);

/*
 * Accounts for an update of box sent at now_ms: a flashing one clears the
 * cells it covers entirely; any other adds one partial and the waveform's
 * debt to every cell it touches.
 */
void vl_epd_ghost_record(struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t waveform,
	bool flashing, uint64_t now_ms);

/*
 * The cells box touches owe no flash for their ghost: their debt drops
 * below the cleanup's flash threshold (cleanup_debt), so that the idle
 * cleanup redraws them without a flash. For a held caret, whose blinks
 * drove only its own pixels between two levels.
 */
void vl_epd_ghost_settle(struct vl_epd_ghost *ghost, const pixman_box32_t *box);

/*
 * Remembers the cells box touches for the idle cleanup: they were drawn
 * with a fast waveform while the user worked, and want a redraw for quality.
 */
void vl_epd_ghost_remember(struct vl_epd_ghost *ghost, const pixman_box32_t *box);
/* Forgets the cells box covers entirely: a redraw cleaned them up. */
void vl_epd_ghost_forget(struct vl_epd_ghost *ghost, const pixman_box32_t *box);

/*
 * Idle cleanup. When idle_cleanup_ms is set and some cell is remembered or
 * due for a flash (a promotion put off), sets *deadline_ms to the last
 * update's time + idle_cleanup_ms and returns the milliseconds left until
 * it (0: due now); otherwise returns -1. flash and redraw (initialized
 * regions, or NULL) get those cells: flash the ones due or with at least
 * cleanup_debt, redraw the other remembered ones. The caller runs flash as
 * a flashing update, redraw as a non-flashing quality one (GL16), records
 * both and forgets the redrawn cells.
 */
int64_t vl_epd_ghost_cleanup(const struct vl_epd_ghost *ghost, uint64_t now_ms,
	uint64_t *deadline_ms, pixman_region32_t *flash, pixman_region32_t *redraw);

/* The partials and debt of the cell holding pixel (x, y); false outside the panel. */
bool vl_epd_ghost_cell(
	const struct vl_epd_ghost *ghost, int32_t x, int32_t y, uint32_t *partials, uint32_t *debt);

/* blink.c */

/*
 * Blinking carets: a small area (at most 96 pixels a side, 4096 in all),
 * changed alone (no other change of the flush within 48 pixels), whose
 * pixels alternate between the same two pictures, four times in a row at
 * a steady period of 150 ms to 2 s, is held: the panel keeps the picture
 * with more ink, and the other is not sent.
 */
struct vl_epd_blink;

struct vl_epd_blink *vl_epd_blink_create(void);
void vl_epd_blink_destroy(struct vl_epd_blink *blink);
/*
 * Follows the changed boxes (vl_epd_diff's, of cur against sent: what the
 * panel was sent) and removes those of held areas, but not boxes whose
 * exempt entry is set (exempt may be NULL); returns how many are left,
 * in their order. damage is the region the boxes came from, which tells
 * that a held area was drawn inked again. now_ms is a monotonic clock.
 */
size_t vl_epd_blink_filter(struct vl_epd_blink *blink, const struct vl_epd_gray *cur,
	const struct vl_epd_gray *sent, const pixman_region32_t *damage, pixman_box32_t *boxes,
	size_t n, const bool *exempt, uint64_t now_ms);
/*
 * Ends the hold of areas whose blinking stopped (not drawn inked for two
 * periods and a quarter of a second), adding to release those that do not
 * show what the panel keeps (with release NULL, none ends). Returns the
 * milliseconds until the next area may stop, or -1 when none is held.
 */
int64_t vl_epd_blink_expire(struct vl_epd_blink *blink, const struct vl_epd_gray *cur,
	uint64_t now_ms, pixman_region32_t *release);
/* Ends every hold, for input: adds the held areas to release, and starts anew. */
void vl_epd_blink_release_all(struct vl_epd_blink *blink, pixman_region32_t *release);
/*
 * Copies the areas that went back or forth between their two pictures
 * (held_only: those held) into boxes, at most capacity (VL_EPD_BLINK_AREAS
 * are ever followed); returns how many.
 */
#define VL_EPD_BLINK_AREAS 8
size_t vl_epd_blink_boxes(
	const struct vl_epd_blink *blink, bool held_only, pixman_box32_t *boxes, size_t capacity);
/*
 * Whether the area of box (exactly as the changed box was) went back or
 * forth between its two pictures, held or not yet: a blinker.
 */
bool vl_epd_blink_alternates(const struct vl_epd_blink *blink, const pixman_box32_t *box);
/* Whether the area of box is held (box exactly as the changed box was). */
bool vl_epd_blink_held(const struct vl_epd_blink *blink, const pixman_box32_t *box);

/* anim.c */

/*
 * Animations: the panel in cells of 16x16 pixels. A cell whose pixels
 * changed six times within 4 s while nobody worked is animated until it
 * rests for 1.5 s; so is one that changed in a row or column of cells
 * that changed six times (a progress bar's sliding block).
 */
struct vl_epd_anim;

struct vl_epd_anim *vl_epd_anim_create(int32_t width, int32_t height);
void vl_epd_anim_destroy(struct vl_epd_anim *anim);
/*
 * Notes a commit at now_ms (a monotonic clock): the cells of gray (the
 * whole panel's, after the commit) that damage touches. user_works: input
 * came lately, and the changes do not count toward an animation.
 */
void vl_epd_anim_note(struct vl_epd_anim *anim, const struct vl_epd_gray *gray,
	const pixman_region32_t *damage, uint64_t now_ms, bool user_works);
/* The side of the cells animation is followed in, in pixels. */
#define VL_EPD_ANIM_CELL 16
/* Adds the animated cells to region. */
void vl_epd_anim_region(const struct vl_epd_anim *anim, uint64_t now_ms, pixman_region32_t *region);
/*
 * Whether box is animated: it touches an animated cell, and every cell it
 * touches that changed lately is animated (others rest).
 */
bool vl_epd_anim_covers(const struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms);
/*
 * Whether an animation runs beside box, in its rows or its columns, up to
 * 16 cells away: what changes there is no reason to flash while it runs.
 */
bool vl_epd_anim_beside(const struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms);
/* How long box waits until its cells may be driven again, interval_ms after the last time. */
uint32_t vl_epd_anim_wait(const struct vl_epd_anim *anim, const pixman_box32_t *box,
	uint64_t now_ms, uint32_t interval_ms);
/* An update drove the cells of box at now_ms. */
void vl_epd_anim_driven(struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms);

/* dither.c */

/*
 * The nearest of levels evenly spaced gray levels, as the panel quantizes:
 * index = (v (levels - 1) + 127) / 255, value = index 255 / (levels - 1).
 */
static inline uint8_t
vl_epd_quantize_value(uint8_t v, uint32_t levels)
{
	if (levels < 2 || levels >= 256)
		return v;
	uint32_t index = (v * (levels - 1) + 127) / 255;
	return (uint8_t)(index * 255 / (levels - 1));
}

/*
 * Quantizes box of src to levels gray levels (2..256) into dst at the same
 * coordinates; dst may be src (in place) or an image of the same size.
 * Every pixel written is one of the levels of vl_epd_quantize_value().
 * - NONE (and AUTO): the nearest level.
 * - ORDERED: a 4x4 Bayer threshold anchored to absolute coordinates, so a
 *   pixel dithers the same whatever rect it is updated in and flat areas do
 *   not crawl between updates. Pixels already on a level stay as they are.
 * - DIFFUSION: Floyd-Steinberg, serpentine (rows of even y left to right,
 *   odd y right to left), error kept inside box. Better for stills; a pixel
 *   depends on the rect, so repeated partial updates may shimmer.
 * Returns false on bad arguments or (DIFFUSION only) no memory.
 */
bool vl_epd_dither(const struct vl_epd_gray *dst, const struct vl_epd_gray *src,
	const pixman_box32_t *box, uint32_t levels, enum vl_epd_dither method);

/* transform.c */

/* Output rotations; the values of wl_output_transform. */
enum vl_epd_transform {
	VL_EPD_TRANSFORM_NORMAL = 0,
	VL_EPD_TRANSFORM_90 = 1,
	VL_EPD_TRANSFORM_180 = 2,
	VL_EPD_TRANSFORM_270 = 3,
};

/*
 * Maps box, in the coordinates of an output showing a panel_width x
 * panel_height panel rotated by transform (counter-clockwise, as
 * wl_output_transform), to panel coordinates; as wlroots maps output damage
 * to the buffer: wlr_box_transform() with the inverse transform. box is
 * clipped to the output first. False if nothing is left or transform is not
 * a rotation (flipped transforms are not supported).
 */
bool vl_epd_transform_box(pixman_box32_t *native, const pixman_box32_t *box,
	enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height);

/*
 * vl_epd_transform_box() on every rect of region, into native: an
 * initialized region, which may be region itself.
 */
bool vl_epd_transform_region(pixman_region32_t *native, const pixman_region32_t *region,
	enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height);

/*
 * Copies a whole output-oriented image into native, the panel-oriented
 * image: native is panel sized, image has the rotated size.
 */
bool vl_epd_transform_gray(const struct vl_epd_gray *native, const struct vl_epd_gray *image,
	enum vl_epd_transform transform);

#endif
