// SPDX-License-Identifier: MIT
#include "scene_harness.h"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_damage_ring.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>

#define SETTLE_TIMEOUT_MS 20000

uint64_t
scene_harness_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void
record(struct scene_harness *h, enum scene_harness_event_type type, uint32_t seq, bool presented)
{
	h->events[h->n_events++ % SCENE_HARNESS_EVENTS] = (struct scene_harness_event){
		.type = type,
		.seq = seq,
		.presented = presented,
		.ns = scene_harness_now_ns(),
	};
}

static void
handle_frame(struct wl_listener *listener, void *data)
{
	struct scene_harness *h = wl_container_of(listener, h, frame);
	(void)data;
	h->frame_ready = true;
	h->frames++;
	record(h, SCENE_HARNESS_FRAME, 0, false);
}

/* A frame event from before a commit does not make the next one due. */
static void
handle_commit(struct wl_listener *listener, void *data)
{
	struct scene_harness *h = wl_container_of(listener, h, commit);
	const struct wlr_output_event_commit *event = data;

	h->frame_ready = false;
	h->last_commit_seq = event->output->commit_seq;
	record(h, SCENE_HARNESS_COMMIT, h->last_commit_seq, false);
}

static void
handle_present(struct wl_listener *listener, void *data)
{
	struct scene_harness *h = wl_container_of(listener, h, present);
	const struct wlr_output_event_present *event = data;

	if (event->presented) {
		h->presented++;
		h->last_present = *event->when;
	} else {
		h->discarded++;
	}
	record(h, SCENE_HARNESS_PRESENT, event->commit_seq, event->presented);
}

/* Enabling the output is a commit too: the first frame due is the one after it. */
static void
handle_new_output(struct wl_listener *listener, void *data)
{
	struct scene_harness *h = wl_container_of(listener, h, new_output);
	struct wlr_output *output = data;
	struct wlr_output_state state;

	h->output = output;
	h->frame.notify = handle_frame;
	wl_signal_add(&output->events.frame, &h->frame);
	h->commit.notify = handle_commit;
	wl_signal_add(&output->events.commit, &h->commit);
	h->present.notify = handle_present;
	wl_signal_add(&output->events.present, &h->present);
	wlr_output_init_render(output, h->allocator, h->renderer);
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	wlr_output_commit_state(output, &state);
	wlr_output_state_finish(&state);
}

bool
scene_harness_start(struct scene_harness *h, const char *device, char *error, size_t error_size)
{
	struct vl_epd_backend_options options = {.device = device};

	return scene_harness_start_with(h, &options, error, error_size);
}

bool
scene_harness_start_with(struct scene_harness *h, const struct vl_epd_backend_options *options,
	char *error, size_t error_size)
{
	memset(h, 0, sizeof(*h));
	wlr_log_init(WLR_ERROR, NULL);
	h->display = wl_display_create();
	h->loop = wl_display_get_event_loop(h->display);
	h->backend = vl_epd_backend_create(h->loop, options, error, error_size);
	if (!h->backend) {
		wl_display_destroy(h->display);
		return false;
	}
	h->renderer = wlr_renderer_autocreate(h->backend);
	h->allocator = h->renderer ? wlr_allocator_autocreate(h->backend, h->renderer) : NULL;
	if (!h->allocator) {
		snprintf(error, error_size, "no renderer or allocator for the backend");
		return false;
	}
	h->new_output.notify = handle_new_output;
	wl_signal_add(&h->backend->events.new_output, &h->new_output);
	if (!wlr_backend_start(h->backend) || !h->output) {
		snprintf(error, error_size, "the backend did not start");
		return false;
	}
	h->scene = wlr_scene_create();
	h->scene_output = wlr_scene_output_create(h->scene, h->output);
	return true;
}

bool
scene_harness_set_transform(struct scene_harness *h, enum wl_output_transform transform)
{
	struct wlr_output_state state;

	wlr_output_state_init(&state);
	wlr_output_state_set_transform(&state, transform);
	bool ok = wlr_output_commit_state(h->output, &state);
	wlr_output_state_finish(&state);
	return ok;
}

void
scene_harness_finish(struct scene_harness *h)
{
	if (h->scene)
		wlr_scene_node_destroy(&h->scene->tree.node);
	if (h->output) {
		wl_list_remove(&h->frame.link);
		wl_list_remove(&h->commit.link);
		wl_list_remove(&h->present.link);
	}
	if (h->backend) {
		wl_list_remove(&h->new_output.link);
		wlr_backend_destroy(h->backend);
	}
	if (h->allocator)
		wlr_allocator_destroy(h->allocator);
	if (h->renderer)
		wlr_renderer_destroy(h->renderer);
	if (h->display)
		wl_display_destroy(h->display);
}

struct wlr_scene_rect *
scene_harness_rect(struct scene_harness *h, int x, int y, int width, int height, uint8_t gray)
{
	const float value = gray / 255.0f;
	const float color[4] = {value, value, value, 1.0f};
	struct wlr_scene_rect *rect = wlr_scene_rect_create(&h->scene->tree, width, height, color);

	wlr_scene_node_set_position(&rect->node, x, y);
	return rect;
}

struct image_buffer {
	struct wlr_buffer base;
	uint32_t *pixels;
};

static void
image_destroy(struct wlr_buffer *buffer)
{
	struct image_buffer *image = wl_container_of(buffer, image, base);

	free(image->pixels);
	free(image);
}

static bool
image_begin_access(
	struct wlr_buffer *buffer, uint32_t flags, void **data, uint32_t *format, size_t *stride)
{
	struct image_buffer *image = wl_container_of(buffer, image, base);
	(void)flags;

	*data = image->pixels;
	*format = DRM_FORMAT_XRGB8888;
	*stride = (size_t)buffer->width * 4;
	return true;
}

static void
image_end_access(struct wlr_buffer *buffer)
{
	(void)buffer;
}

static const struct wlr_buffer_impl image_impl = {
	.destroy = image_destroy,
	.begin_data_ptr_access = image_begin_access,
	.end_data_ptr_access = image_end_access,
};

bool
scene_harness_gradient_with_block(
	struct scene_harness *h, uint32_t width, uint32_t height, uint8_t *image)
{
	for (uint32_t y = 0; y < height; y++)
		for (uint32_t x = 0; x < width; x++)
			image[y * width + x] = (uint8_t)((x + y) * 255 / (width + height - 2));
	if (!scene_harness_image(h, 0, 0, (int)width, (int)height, image))
		return false;
	scene_harness_rect(h, 100, 100, 50, 50, 0);
	for (uint32_t y = 100; y < 150; y++)
		memset(image + y * width + 100, 0, 50);
	return true;
}

struct wlr_scene_buffer *
scene_harness_image(
	struct scene_harness *h, int x, int y, int width, int height, const uint8_t *gray)
{
	struct image_buffer *image = calloc(1, sizeof(*image));

	if (!image || !(image->pixels = malloc((size_t)width * height * 4))) {
		free(image);
		return NULL;
	}
	for (size_t i = 0; i < (size_t)width * height; i++)
		image->pixels[i] = 0xff000000u | gray[i] * 0x010101u;
	wlr_buffer_init(&image->base, &image_impl, width, height);
	struct wlr_scene_buffer *node = wlr_scene_buffer_create(&h->scene->tree, &image->base);
	/* The node holds its own reference. */
	wlr_buffer_drop(&image->base);
	if (node)
		wlr_scene_node_set_position(&node->node, x, y);
	return node;
}

void
scene_harness_set_gray(struct wlr_scene_rect *rect, uint8_t gray)
{
	const float value = gray / 255.0f;
	const float color[4] = {value, value, value, 1.0f};

	wlr_scene_rect_set_color(rect, color);
}

static void
handle_feedback(const struct vl_epd_feedback *feedback, void *data)
{
	struct scene_harness *h = data;

	h->last_feedback = *feedback;
	h->feedback_received = true;
}

bool
scene_harness_run_until(struct scene_harness *h, bool *flag)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!*flag) {
		wl_display_flush_clients(h->display);
		if (wl_event_loop_dispatch(h->loop, 100) < 0)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >
			SETTLE_TIMEOUT_MS)
			return false;
	}
	return true;
}

void
scene_harness_damage_all(struct scene_harness *h)
{
	wlr_damage_ring_add_whole(&h->scene_output->damage_ring);
	wlr_output_schedule_frame(h->output);
}

bool
scene_harness_wait_frame(struct scene_harness *h)
{
	return scene_harness_run_until(h, &h->frame_ready);
}

bool
scene_harness_commit(struct scene_harness *h)
{
	if (!scene_harness_wait_frame(h))
		return false;
	uint32_t seq = h->output->commit_seq;
	return wlr_scene_output_commit(h->scene_output, NULL) && h->output->commit_seq != seq;
}

bool
scene_harness_show(struct scene_harness *h, struct vl_epd_feedback *feedback)
{
	h->feedback_received = false;
	vl_epd_output_add_feedback(h->output, handle_feedback, h);
	if (!scene_harness_commit(h))
		return false;
	if (!scene_harness_run_until(h, &h->feedback_received))
		return false;
	*feedback = h->last_feedback;
	return true;
}

static int64_t
now_ms(void)
{
	return (int64_t)(scene_harness_now_ns() / 1000000u);
}

/* The latest recorded events of type for seq: how many, and the index of the first. */
static size_t
find_events(const struct scene_harness *h, enum scene_harness_event_type type, uint32_t seq,
	size_t *first)
{
	size_t n = 0,
	       oldest = h->n_events > SCENE_HARNESS_EVENTS ? h->n_events - SCENE_HARNESS_EVENTS : 0;

	for (size_t i = oldest; i < h->n_events; i++) {
		const struct scene_harness_event *e = &h->events[i % SCENE_HARNESS_EVENTS];
		if (e->type != type || e->seq != seq)
			continue;
		if (n++ == 0)
			*first = i;
	}
	return n;
}

bool
scene_harness_check_present(
	struct scene_harness *h, uint32_t seq, bool *presented, char *error, size_t error_size)
{
	size_t commit = 0, present = 0;
	int64_t end = now_ms() + SETTLE_TIMEOUT_MS;

	while (find_events(h, SCENE_HARNESS_PRESENT, seq, &present) == 0) {
		if (now_ms() > end) {
			snprintf(error, error_size, "no present event for commit %u", seq);
			return false;
		}
		wl_event_loop_dispatch(h->loop, 100);
	}
	*presented = h->events[present % SCENE_HARNESS_EVENTS].presented;
	if (find_events(h, SCENE_HARNESS_COMMIT, seq, &commit) != 1) {
		snprintf(error, error_size, "no commit event for commit %u", seq);
		return false;
	}
	if (present < commit) {
		snprintf(error, error_size,
			"the present event for commit %u came before wlroots' commit event", seq);
		return false;
	}
	/* A second one could still be on its way: let pending events run. */
	wl_event_loop_dispatch(h->loop, 0);
	size_t n = find_events(h, SCENE_HARNESS_PRESENT, seq, &present);
	if (n != 1) {
		snprintf(error, error_size, "%zu present events for commit %u", n, seq);
		return false;
	}
	return true;
}

unsigned int
scene_harness_frames_between(struct scene_harness *h, uint64_t from_ns, uint64_t to_ns)
{
	size_t oldest = h->n_events > SCENE_HARNESS_EVENTS ? h->n_events - SCENE_HARNESS_EVENTS : 0;
	unsigned int n = 0;

	for (size_t i = oldest; i < h->n_events; i++) {
		const struct scene_harness_event *e = &h->events[i % SCENE_HARNESS_EVENTS];
		n += e->type == SCENE_HARNESS_FRAME && e->ns >= from_ns && e->ns < to_ns;
	}
	return n;
}

int
scene_harness_idle(struct scene_harness *h, int ms)
{
	int64_t end = now_ms() + ms;
	int early = 0;

	for (int64_t left = ms; left > 0; left = end - now_ms()) {
		wl_event_loop_dispatch(h->loop, (int)left);
		if (end - now_ms() > 5)
			early++;
	}
	return early;
}

bool
scene_harness_vfb(
	char *path, size_t size, uint32_t bpp, uint32_t xres_virtual, uint32_t yres_virtual)
{
	char name_path[64], name[64];

	if (system("modprobe vfb vfb_enable=1") != 0)
		return false;
	for (int i = 0; i < 32; i++) {
		snprintf(name_path, sizeof(name_path), "/sys/class/graphics/fb%d/name", i);
		FILE *f = fopen(name_path, "re");
		bool vfb = f && fgets(name, sizeof(name), f) && strstr(name, "Virtual FB");
		if (f)
			fclose(f);
		if (!vfb)
			continue;
		snprintf(path, size, "/dev/fb%d", i);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		struct fb_var_screeninfo var;
		bool ok = fd >= 0 && ioctl(fd, FBIOGET_VSCREENINFO, &var) == 0;
		if (ok) {
			var.bits_per_pixel = bpp;
			var.xres_virtual = xres_virtual ? xres_virtual : var.xres;
			var.yres_virtual = yres_virtual ? yres_virtual : var.yres;
			var.xoffset = 0;
			var.yoffset = 0;
			ok = ioctl(fd, FBIOPUT_VSCREENINFO, &var) == 0 &&
			     ioctl(fd, FBIOGET_VSCREENINFO, &var) == 0 &&
			     var.bits_per_pixel == bpp &&
			     (!xres_virtual || var.xres_virtual == xres_virtual) &&
			     (!yres_virtual || var.yres_virtual == yres_virtual);
		}
		if (fd >= 0)
			close(fd);
		return ok;
	}
	return false;
}
