// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the e-paper backend on the in-process memory device.
 * Each input is a small panel size and a script: drawing into the frame,
 * commits with damage rects (out of range, inverted and huge ones too),
 * hints, feedback requests, rotation, disabling and enabling the output,
 * policy and latency changes, failures of the device (a gone device among
 * them) and runs of the event loop. Then one last frame is shown with full
 * damage. Checks:
 * - every update the device got lies inside the panel and is not empty;
 * - every feedback callback runs exactly once, by the backend's end;
 * - when the last frame settled and is black and white, the panel shows it
 *   exactly (what failed was sent again, nothing stale stayed).
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/swapchain.h>
#include <wlr/util/log.h>

#include "backend.h"
#include "scene_harness.h"

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

#define MAX_WIDTH     96
#define MAX_HEIGHT    64
#define MAX_FEEDBACKS 64
#define MAX_DAMAGE    4
/* Retries back off to 2 s at most; a few failures are injected at a time. */
#define SETTLE_TIMEOUT_MS 10000

struct input {
	const uint8_t *data;
	size_t size, pos;
};

struct feedback_slot {
	unsigned int calls;
	bool settled;
};

struct fuzz {
	struct scene_harness h;
	struct wl_listener output_destroy;
	struct vl_epd_device *device;
	uint32_t width, height;
	uint32_t *canvas; /* the next frame, XRGB8888 */
	struct feedback_slot feedbacks[MAX_FEEDBACKS];
	size_t n_feedbacks;
};

static uint8_t
next8(struct input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static bool
more(const struct input *in)
{
	return in->pos < in->size;
}

/*
 * A coordinate near [0, limit], now and then one far outside it: the
 * backend is handed whatever wlroots or a client computed.
 */
static int32_t
coordinate(struct input *in, uint32_t limit)
{
	static const int32_t extremes[] = {
		INT32_MIN, INT32_MIN + 1, -65536, -1, INT32_MAX / 2, INT32_MAX - 1, INT32_MAX};
	uint8_t b = next8(in);

	if (b >= 256 - sizeof(extremes) / sizeof(*extremes))
		return extremes[b - (256 - sizeof(extremes) / sizeof(*extremes))];
	return (int32_t)(b * (limit + 8) / 249) - 4;
}

static void
handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct fuzz *f = wl_container_of(listener, f, output_destroy);
	(void)data;

	/* A gone device takes the output with it: the harness lets go of it. */
	wl_list_remove(&f->output_destroy.link);
	wl_list_remove(&f->h.frame.link);
	wl_list_remove(&f->h.commit.link);
	wl_list_remove(&f->h.present.link);
	f->h.output = NULL;
	f->h.scene_output = NULL;
}

static void
handle_feedback(const struct vl_epd_feedback *feedback, void *data)
{
	struct feedback_slot *slot = data;

	slot->calls++;
	slot->settled = feedback->settled;
}

static struct feedback_slot *
add_feedback(struct fuzz *f)
{
	if (!f->h.output || f->n_feedbacks == MAX_FEEDBACKS)
		return NULL;
	struct feedback_slot *slot = &f->feedbacks[f->n_feedbacks];
	if (!vl_epd_output_add_feedback(f->h.output, handle_feedback, slot))
		return NULL;
	f->n_feedbacks++;
	return slot;
}

static void
draw(struct fuzz *f, struct input *in)
{
	uint32_t x = next8(in) % f->width, y = next8(in) % f->height;
	uint32_t w = 1 + next8(in) % (f->width - x), h = 1 + next8(in) % (f->height - y);
	uint8_t kind = next8(in), value = next8(in);

	for (uint32_t row = y; row < y + h; row++) {
		for (uint32_t col = x; col < x + w; col++) {
			uint32_t gray;
			switch (kind % 4) {
			case 0: /* flat gray */
				gray = value;
				break;
			case 1: /* black and white checks */
				gray = ((row ^ col) & 1) ? 0 : 255;
				break;
			case 2: /* a ramp */
				gray = (uint8_t)(value + col * 7 + row * 3);
				break;
			default: /* colour */
				f->canvas[row * f->width + col] =
					0xff000000u | (uint32_t)value << 16 |
					(uint32_t)(uint8_t)(value * 3 + col) << 8 |
					(uint8_t)(row * 5);
				continue;
			}
			f->canvas[row * f->width + col] = 0xff000000u | gray * 0x010101u;
		}
	}
}

/* Commits the canvas; damage NULL: the whole frame without a damage field. */
static bool
commit(struct fuzz *f, const pixman_region32_t *damage)
{
	struct wlr_output *output = f->h.output;
	struct wlr_output_state state;
	bool ok = false;

	if (!output)
		return false;
	wlr_output_state_init(&state);
	if (!wlr_output_configure_primary_swapchain(output, &state, &output->swapchain))
		goto out;
	struct wlr_buffer *buffer = wlr_swapchain_acquire(output->swapchain, NULL);
	void *data;
	uint32_t format;
	size_t stride;
	if (!buffer)
		goto out;
	CHECK(wlr_buffer_begin_data_ptr_access(
		buffer, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride));
	for (uint32_t row = 0; row < f->height; row++)
		memcpy((uint8_t *)data + row * stride, f->canvas + row * f->width, f->width * 4);
	wlr_buffer_end_data_ptr_access(buffer);
	wlr_output_state_set_buffer(&state, buffer);
	wlr_buffer_unlock(buffer);
	if (damage)
		wlr_output_state_set_damage(&state, damage);
	ok = wlr_output_commit_state(output, &state);
out:
	wlr_output_state_finish(&state);
	return ok;
}

static void
commit_with_damage(struct fuzz *f, struct input *in)
{
	pixman_box32_t boxes[MAX_DAMAGE];
	size_t n = next8(in) % (MAX_DAMAGE + 1);
	pixman_region32_t damage;

	if (n == 0) {
		commit(f, NULL);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t x1 = coordinate(in, f->width), y1 = coordinate(in, f->height);
		int32_t x2 = coordinate(in, f->width), y2 = coordinate(in, f->height);
		/* pixman drops empty boxes but complains of a single inverted one. */
		boxes[i] = (pixman_box32_t){
			x1 < x2 ? x1 : x2, y1 < y2 ? y1 : y2, x1 < x2 ? x2 : x1, y1 < y2 ? y2 : y1};
	}
	pixman_region32_init_rects(&damage, boxes, (int)n);
	commit(f, &damage);
	pixman_region32_fini(&damage);
}

static void
hint(struct fuzz *f, struct input *in)
{
	struct vl_epd_hint hint = {
		.box = {coordinate(in, f->width), coordinate(in, f->height),
			coordinate(in, f->width), coordinate(in, f->height)},
	};
	uint8_t b = next8(in);

	/* Out-of-range enums too: the backend falls back to AUTO. */
	hint.mode = (enum vl_epd_mode)(b % 7);
	hint.dither = (enum vl_epd_dither)((b / 7) % 6);
	hint.full_refresh = b >= 128;
	if (f->h.output)
		vl_epd_output_add_hint(f->h.output, &hint);
}

static void
set_enabled(struct fuzz *f, bool enabled)
{
	struct wlr_output_state state;

	if (!f->h.output)
		return;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, enabled);
	wlr_output_commit_state(f->h.output, &state);
	wlr_output_state_finish(&state);
}

static void
fail_device(struct fuzz *f, struct input *in)
{
	static const int errors[] = {EIO, EBUSY, ETIMEDOUT, ENOMEM, EINVAL, ENODEV};
	uint8_t b = next8(in);
	int error = errors[b % (sizeof(errors) / sizeof(*errors))];

	/* A gone device is rarer than a failed update. */
	if (error == ENODEV && b < 128)
		error = EIO;
	vl_epd_memory_fail(f->device, b & 0x80 ? VL_EPD_MEMORY_WAIT : VL_EPD_MEMORY_SUBMIT,
		1 + next8(in) % 3, error);
}

static void
set_policy(struct fuzz *f, struct input *in)
{
	struct vl_epd_backend_options options = {
		.full_refresh_every = next8(in) % 5,
		.idle_cleanup_ms = next8(in) % 4,
	};

	if (f->h.output)
		vl_epd_output_set_policy(f->h.output, &options);
}

static void
dispatch(struct fuzz *f, int timeout_ms)
{
	wl_event_loop_dispatch(f->h.loop, timeout_ms);
}

static int64_t
now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void
run_until_called(struct fuzz *f, const struct feedback_slot *slot)
{
	int64_t deadline = now_ms() + SETTLE_TIMEOUT_MS;

	while (slot->calls == 0 && f->h.output) {
		CHECK(now_ms() < deadline);
		dispatch(f, 10);
	}
}

static void
run_script(struct fuzz *f, struct input *in)
{
	while (more(in)) {
		switch (next8(in) % 12) {
		case 0:
		case 1:
			draw(f, in);
			break;
		case 2:
		case 3:
			commit_with_damage(f, in);
			break;
		case 4:
			hint(f, in);
			break;
		case 5:
			add_feedback(f);
			break;
		case 6:
			dispatch(f, next8(in) % 3);
			break;
		case 7:
			if (f->h.output)
				scene_harness_set_transform(
					&f->h, (enum wl_output_transform)(next8(in) % 8));
			break;
		case 8:
			set_enabled(f, next8(in) & 1);
			break;
		case 9:
			fail_device(f, in);
			break;
		case 10:
			set_policy(f, in);
			break;
		case 11:
			vl_epd_memory_set_latency(f->device, next8(in) % 4);
			break;
		}
	}
}

static bool
canvas_is_mono(const struct fuzz *f)
{
	for (size_t i = 0; i < (size_t)f->width * f->height; i++) {
		uint8_t gray = vl_epd_luma(f->canvas[i]);
		if (gray != 0 && gray != 255)
			return false;
	}
	return true;
}

/* What the device was sent, for the report of a wrong pixel. */
static void
print_updates(const struct fuzz *f, size_t wrong)
{
	const struct vl_epd_update *updates;
	size_t n = vl_epd_memory_updates(f->device, &updates);

	fprintf(stderr, "panel %ux%u: pixel %zu,%zu shows %u, the frame has %u; %zu updates:\n",
		f->width, f->height, wrong % f->width, wrong / f->width,
		vl_epd_memory_panel(f->device)[wrong], vl_epd_luma(f->canvas[wrong]), n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  marker %u: %u,%u %ux%u waveform %u%s\n", updates[i].marker,
			updates[i].rect.left, updates[i].rect.top, updates[i].rect.width,
			updates[i].rect.height, updates[i].waveform,
			updates[i].full ? " full" : "");
}

/* The last frame, with full damage, until the panel settled it. */
static void
show_last_frame(struct fuzz *f)
{
	pixman_region32_t damage;

	if (!f->h.output || !f->h.output->enabled)
		return;
	struct feedback_slot *slot = add_feedback(f);
	if (!slot)
		return;
	pixman_region32_init_rect(&damage, 0, 0, f->width, f->height);
	bool committed = commit(f, &damage);
	pixman_region32_fini(&damage);
	if (!committed)
		return;
	run_until_called(f, slot);
	if (!slot->settled || !canvas_is_mono(f))
		return;
	const uint8_t *panel = vl_epd_memory_panel(f->device);
	for (size_t i = 0; i < (size_t)f->width * f->height; i++) {
		if (panel[i] != vl_epd_luma(f->canvas[i]))
			print_updates(f, i);
		CHECK(panel[i] == vl_epd_luma(f->canvas[i]));
	}
}

static void
check_updates(struct fuzz *f)
{
	const struct vl_epd_update *updates;
	size_t n = vl_epd_memory_updates(f->device, &updates);

	for (size_t i = 0; i < n; i++) {
		const struct vl_epd_rect *r = &updates[i].rect;
		CHECK(r->width > 0 && r->height > 0);
		CHECK(r->left < f->width && r->width <= f->width - r->left);
		CHECK(r->top < f->height && r->height <= f->height - r->top);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz f;
	struct input in = {data, size, 0};
	char spec[64], error[256];

	memset(&f, 0, sizeof(f));
	f.width = 1 + next8(&in) % MAX_WIDTH;
	f.height = 1 + next8(&in) % MAX_HEIGHT;
	struct vl_epd_backend_options options = {
		.device = spec,
		.full_refresh_every = next8(&in) % 5,
		.idle_cleanup_ms = next8(&in) % 4,
	};
	snprintf(spec, sizeof(spec), "memory:%ux%u", f.width, f.height);
	f.canvas = malloc((size_t)f.width * f.height * 4);
	CHECK(f.canvas);
	for (size_t i = 0; i < (size_t)f.width * f.height; i++)
		f.canvas[i] = 0xffffffffu;

	if (!scene_harness_start_with(&f.h, &options, error, sizeof(error))) {
		fprintf(stderr, "%s\n", error);
		abort();
	}
	wlr_log_init(WLR_SILENT, NULL);
	struct vl_epd_backend *backend = wl_container_of(f.h.backend, backend, base);
	f.device = vl_epd_device_ref(backend->device);
	f.output_destroy.notify = handle_output_destroy;
	wl_signal_add(&f.h.output->events.destroy, &f.output_destroy);

	run_script(&f, &in);
	/* What was injected and not used up would fail the last frame too. */
	vl_epd_memory_fail(f.device, VL_EPD_MEMORY_SUBMIT, 0, 0);
	vl_epd_memory_fail(f.device, VL_EPD_MEMORY_WAIT, 0, 0);
	show_last_frame(&f);
	check_updates(&f);

	if (f.h.output)
		wl_list_remove(&f.output_destroy.link);
	scene_harness_finish(&f.h);
	for (size_t i = 0; i < f.n_feedbacks; i++)
		CHECK(f.feedbacks[i].calls == 1);
	vl_epd_device_unref(f.device);
	free(f.canvas);
	return 0;
}
