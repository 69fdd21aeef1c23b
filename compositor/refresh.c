// SPDX-License-Identifier: MIT
/*
 * epaper-refresh-v1: a surface's refresh mode and dither, double-buffered
 * with its other state; one-shot full refreshes, at most one flash per
 * configured interval; and feedback objects, each of which gets refreshed
 * (when the panel settled, with the waveform that drew the surface) or
 * discarded, exactly once.
 *
 * A commit's feedback waits in its surface until the output's next commit,
 * which hands it to the backend with the surface's visible area; a surface
 * commit that comes first supersedes it. A surface has at most
 * MAX_WAITING_FEEDBACK of them waiting, requested or committed: each one
 * past that discards the oldest, so that a client cannot grow the
 * compositor without bound.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <vellum/epd-backend.h>
#include <vellum/epd-pipeline.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "epaper-refresh-v1-protocol.h"
#include "refresh.h"
#include "scale.h"
#include "server.h"

#define MANAGER_VERSION 1
/* as epaper-refresh-v1.xml says */
#define MAX_WAITING_FEEDBACK 64

struct vl_refresh_manager {
	struct vl_server *server;
	struct wl_global *global;
	struct wl_event_source *flash_timer; /* armed while a full refresh waits for the limit */
	uint64_t last_flash_ns;              /* 0: none yet */
	uint64_t next_owner;
	struct wl_list surfaces; /* struct vl_surface_refresh.link */
	struct wl_listener display_destroy;
};

/* Double-buffered state of a surface. */
struct vl_refresh_state {
	enum vl_epd_mode mode;
	enum vl_epd_dither dither; /* AUTO until the client sets one */
	bool full_refresh;         /* one-shot */
	struct wl_list feedbacks;  /* struct vl_refresh_feedback.link, one-shot */
};

/*
 * Lives as long as its surface, once a client asked for refresh control of
 * it: the protocol object may come and go.
 */
struct vl_surface_refresh {
	struct vl_refresh_manager *manager;
	struct wl_list link;
	struct wlr_surface *surface;
	struct wl_resource *resource; /* NULL: no refresh object now */
	struct wlr_addon addon;
	struct wlr_surface_synced synced;
	struct vl_refresh_state pending, current;
	struct wl_listener commit;
	uint64_t owner;           /* for the backend: whose area a feedback is */
	bool full_refresh_due;    /* committed, not flashed yet */
	bool changed;             /* committed since the output's last commit */
	bool shown;               /* on the output commit being prepared */
	struct wl_list committed; /* struct vl_refresh_feedback, for the output's next commit */
	/* struct vl_refresh_feedback.waiting_link: requested or committed, oldest first */
	struct wl_list waiting;
};

enum vl_feedback_stage {
	VL_FEEDBACK_REQUESTED, /* in a surface state, until its commit applies */
	VL_FEEDBACK_COMMITTED, /* in vl_surface_refresh.committed */
	VL_FEEDBACK_HANDED,    /* the backend holds it and will call back once */
	VL_FEEDBACK_DONE,      /* its event was sent: inert */
};

struct vl_refresh_feedback {
	struct wl_resource *resource; /* NULL once the client destroyed it */
	struct wl_list link;
	struct wl_list waiting_link; /* empty once handed to the backend or done */
	enum vl_feedback_stage stage;
};

static const struct xx_epaper_refresh_manager_v1_interface manager_impl;
static const struct xx_epaper_surface_refresh_v1_interface surface_refresh_impl;
static const struct xx_epaper_refresh_feedback_v1_interface feedback_impl;

static uint64_t
now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Feedback */

static void
feedback_stop_waiting(struct vl_refresh_feedback *feedback)
{
	wl_list_remove(&feedback->waiting_link);
	wl_list_init(&feedback->waiting_link);
}

static void
feedback_discard(struct vl_refresh_feedback *feedback)
{
	wl_list_remove(&feedback->link);
	wl_list_init(&feedback->link);
	feedback_stop_waiting(feedback);
	feedback->stage = VL_FEEDBACK_DONE;
	if (!feedback->resource) {
		free(feedback);
		return;
	}
	xx_epaper_refresh_feedback_v1_send_discarded(feedback->resource);
}

static void
handle_backend_feedback(const struct vl_epd_feedback *result, void *data)
{
	struct vl_refresh_feedback *feedback = data;

	feedback->stage = VL_FEEDBACK_DONE;
	if (!feedback->resource) {
		free(feedback);
		return;
	}
	if (!result->settled) {
		xx_epaper_refresh_feedback_v1_send_discarded(feedback->resource);
		return;
	}
	uint64_t sec = (uint64_t)result->when.tv_sec;
	xx_epaper_refresh_feedback_v1_send_refreshed(feedback->resource, (uint32_t)(sec >> 32),
		(uint32_t)sec, (uint32_t)result->when.tv_nsec, result->waveform,
		result->flashed ? XX_EPAPER_REFRESH_FEEDBACK_V1_FLAGS_FLASHED : 0);
}

static void
handle_feedback_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct xx_epaper_refresh_feedback_v1_interface feedback_impl = {
	.destroy = handle_feedback_destroy_request,
};

static void
handle_feedback_resource_destroy(struct wl_resource *resource)
{
	struct vl_refresh_feedback *feedback = wl_resource_get_user_data(resource);

	feedback->resource = NULL;
	/* The backend calls back exactly once: it frees the feedback then. */
	if (feedback->stage == VL_FEEDBACK_HANDED)
		return;
	wl_list_remove(&feedback->link);
	wl_list_remove(&feedback->waiting_link);
	free(feedback);
}

/* Surface state */

static void
state_init(void *data)
{
	struct vl_refresh_state *state = data;

	*state = (struct vl_refresh_state){0};
	wl_list_init(&state->feedbacks);
}

static void
state_finish(void *data)
{
	struct vl_refresh_state *state = data;
	struct vl_refresh_feedback *feedback, *tmp;

	/* state that never becomes current: its commit is never shown */
	wl_list_for_each_safe (feedback, tmp, &state->feedbacks, link)
		feedback_discard(feedback);
}

static void
state_move(void *dst_data, void *src_data)
{
	struct vl_refresh_state *dst = dst_data, *src = src_data;

	dst->mode = src->mode;
	dst->dither = src->dither;
	dst->full_refresh |= src->full_refresh;
	src->full_refresh = false;
	wl_list_insert_list(dst->feedbacks.prev, &src->feedbacks);
	wl_list_init(&src->feedbacks);
}

static const struct wlr_surface_synced_impl synced_impl = {
	.state_size = sizeof(struct vl_refresh_state),
	.init_state = state_init,
	.finish_state = state_finish,
	.move_state = state_move,
};

static bool
flash_allowed(struct vl_refresh_manager *manager, uint64_t now, uint64_t *wait_ns)
{
	uint64_t interval = (uint64_t)manager->server->config.full_refresh_interval_ms * 1000000u;

	if (manager->last_flash_ns == 0 || now - manager->last_flash_ns >= interval)
		return true;
	*wait_ns = manager->last_flash_ns + interval - now;
	return false;
}

/* The output's next frame: a commit that brings what surfaces wait for. */
static void
schedule_commit(struct vl_refresh_manager *manager)
{
	struct vl_output *output = vl_output_first(manager->server);

	if (output)
		wlr_output_schedule_frame(output->wlr_output);
}

/* A full refresh that the limit holds back: the timer brings the frame for it. */
static void
schedule_flash(struct vl_refresh_manager *manager)
{
	uint64_t wait_ns = 0;

	if (flash_allowed(manager, now_ns(), &wait_ns)) {
		schedule_commit(manager);
		return;
	}
	/*
	 * Rounded up: a frame before the limit would be wasted. The timer
	 * takes an int, and a longer wait than it holds is made in steps.
	 */
	uint64_t wait_ms = (wait_ns + 999999) / 1000000;
	wl_event_source_timer_update(
		manager->flash_timer, wait_ms > INT_MAX ? INT_MAX : (int)wait_ms);
}

static int
handle_flash_timer(void *data)
{
	struct vl_refresh_manager *manager = data;

	/* the frame for the flash, or the next step of a long wait */
	schedule_flash(manager);
	return 0;
}

void
vl_refresh_handle_reload(struct vl_refresh_manager *manager)
{
	struct vl_surface_refresh *refresh;

	/* a full refresh held back by the old limit may be due now, or later */
	wl_list_for_each (refresh, &manager->surfaces, link) {
		if (refresh->full_refresh_due) {
			schedule_flash(manager);
			return;
		}
	}
}

static void
handle_surface_commit(struct wl_listener *listener, void *data)
{
	struct vl_surface_refresh *refresh = wl_container_of(listener, refresh, commit);
	struct vl_refresh_feedback *feedback, *tmp;
	(void)data;

	/* Newer content: what did not reach an output commit is superseded. */
	wl_list_for_each_safe (feedback, tmp, &refresh->committed, link)
		feedback_discard(feedback);
	wl_list_for_each (feedback, &refresh->current.feedbacks, link)
		feedback->stage = VL_FEEDBACK_COMMITTED;
	wl_list_insert_list(&refresh->committed, &refresh->current.feedbacks);
	wl_list_init(&refresh->current.feedbacks);
	refresh->changed = true;
	if (refresh->current.full_refresh) {
		refresh->current.full_refresh = false;
		refresh->full_refresh_due = true;
		schedule_flash(refresh->manager);
	}
	if (!wl_list_empty(&refresh->committed))
		schedule_commit(refresh->manager);
}

static void
surface_refresh_destroy(struct vl_surface_refresh *refresh)
{
	struct vl_refresh_feedback *feedback, *tmp;

	if (refresh->resource)
		wl_resource_set_user_data(refresh->resource, NULL);
	wl_list_for_each_safe (feedback, tmp, &refresh->committed, link)
		feedback_discard(feedback);
	/* which finishes the pending and current state too */
	wlr_surface_synced_finish(&refresh->synced);
	wl_list_remove(&refresh->commit.link);
	wl_list_remove(&refresh->link);
	wlr_addon_finish(&refresh->addon);
	free(refresh);
}

static void
handle_addon_destroy(struct wlr_addon *addon)
{
	struct vl_surface_refresh *refresh = wl_container_of(addon, refresh, addon);

	/* The surface goes: its refresh object, if any, becomes defunct. */
	surface_refresh_destroy(refresh);
}

static const struct wlr_addon_interface addon_impl = {
	.name = "xx_epaper_surface_refresh_v1",
	.destroy = handle_addon_destroy,
};

static struct vl_surface_refresh *
surface_refresh_find(struct vl_refresh_manager *manager, struct wlr_surface *surface)
{
	struct wlr_addon *addon = wlr_addon_find(&surface->addons, manager, &addon_impl);
	struct vl_surface_refresh *refresh;

	if (!addon)
		return NULL;
	return wl_container_of(addon, refresh, addon);
}

static struct vl_surface_refresh *
surface_refresh_create(struct vl_refresh_manager *manager, struct wlr_surface *surface)
{
	struct vl_surface_refresh *refresh = calloc(1, sizeof(*refresh));

	if (!refresh)
		return NULL;
	if (!wlr_surface_synced_init(&refresh->synced, surface, &synced_impl, &refresh->pending,
		    &refresh->current)) {
		free(refresh);
		return NULL;
	}
	refresh->manager = manager;
	refresh->surface = surface;
	refresh->owner = ++manager->next_owner;
	wl_list_init(&refresh->committed);
	wl_list_init(&refresh->waiting);
	wl_list_insert(&manager->surfaces, &refresh->link);
	wlr_addon_init(&refresh->addon, &surface->addons, manager, &addon_impl);
	refresh->commit.notify = handle_surface_commit;
	wl_signal_add(&surface->events.commit, &refresh->commit);
	return refresh;
}

/* Requests on a refresh object */

/* The object's state, or NULL after a protocol error: its surface is gone. */
static struct vl_surface_refresh *
refresh_from_resource(struct wl_resource *resource)
{
	struct vl_surface_refresh *refresh = wl_resource_get_user_data(resource);

	if (!refresh)
		wl_resource_post_error(resource, XX_EPAPER_SURFACE_REFRESH_V1_ERROR_NO_SURFACE,
			"the wl_surface of this xx_epaper_surface_refresh_v1 was destroyed");
	return refresh;
}

static void
handle_refresh_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
handle_set_mode(struct wl_client *client, struct wl_resource *resource, uint32_t mode)
{
	struct vl_surface_refresh *refresh = refresh_from_resource(resource);

	if (!refresh)
		return;
	if (!xx_epaper_surface_refresh_v1_mode_is_valid(mode, wl_resource_get_version(resource))) {
		wl_resource_post_error(resource, XX_EPAPER_SURFACE_REFRESH_V1_ERROR_INVALID_MODE,
			"mode %u is not in xx_epaper_surface_refresh_v1.mode", mode);
		return;
	}
	/* The protocol's values are vl_epd_mode's. */
	refresh->pending.mode = (enum vl_epd_mode)mode;
}

static void
handle_set_dither(struct wl_client *client, struct wl_resource *resource, uint32_t dither)
{
	struct vl_surface_refresh *refresh = refresh_from_resource(resource);

	if (!refresh)
		return;
	if (!xx_epaper_surface_refresh_v1_dither_is_valid(
		    dither, wl_resource_get_version(resource))) {
		wl_resource_post_error(resource, XX_EPAPER_SURFACE_REFRESH_V1_ERROR_INVALID_DITHER,
			"dither %u is not in xx_epaper_surface_refresh_v1.dither", dither);
		return;
	}
	/* vl_epd_dither has AUTO before the protocol's values. */
	refresh->pending.dither = (enum vl_epd_dither)(dither + 1);
}

static void
handle_request_full_refresh(struct wl_client *client, struct wl_resource *resource)
{
	struct vl_surface_refresh *refresh = refresh_from_resource(resource);

	if (refresh)
		refresh->pending.full_refresh = true;
}

static void
handle_get_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct vl_surface_refresh *refresh = refresh_from_resource(resource);

	if (!refresh)
		return;
	struct vl_refresh_feedback *feedback = calloc(1, sizeof(*feedback));
	if (!feedback) {
		wl_client_post_no_memory(client);
		return;
	}
	feedback->resource = wl_resource_create(client, &xx_epaper_refresh_feedback_v1_interface,
		wl_resource_get_version(resource), id);
	if (!feedback->resource) {
		free(feedback);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(
		feedback->resource, &feedback_impl, feedback, handle_feedback_resource_destroy);
	feedback->stage = VL_FEEDBACK_REQUESTED;
	wl_list_insert(refresh->pending.feedbacks.prev, &feedback->link);
	wl_list_insert(refresh->waiting.prev, &feedback->waiting_link);
	if (wl_list_length(&refresh->waiting) > MAX_WAITING_FEEDBACK) {
		struct vl_refresh_feedback *oldest =
			wl_container_of(refresh->waiting.next, oldest, waiting_link);
		feedback_discard(oldest);
	}
}

static const struct xx_epaper_surface_refresh_v1_interface surface_refresh_impl = {
	.destroy = handle_refresh_destroy_request,
	.set_mode = handle_set_mode,
	.set_dither = handle_set_dither,
	.request_full_refresh = handle_request_full_refresh,
	.get_feedback = handle_get_feedback,
};

static void
handle_refresh_resource_destroy(struct wl_resource *resource)
{
	struct vl_surface_refresh *refresh = wl_resource_get_user_data(resource);

	if (!refresh)
		return;
	/* From the next commit on, as if the surface never had one. */
	refresh->resource = NULL;
	refresh->pending.mode = VL_EPD_MODE_AUTO;
	refresh->pending.dither = VL_EPD_DITHER_AUTO;
	/* a full refresh not committed yet goes with the object; its feedback stays */
	refresh->pending.full_refresh = false;
}

/* The manager */

static void
handle_manager_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
handle_get_surface_refresh(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	struct wl_resource *surface_resource)
{
	struct vl_refresh_manager *manager = wl_resource_get_user_data(resource);
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
	struct vl_surface_refresh *refresh = surface_refresh_find(manager, surface);

	if (refresh && refresh->resource) {
		wl_resource_post_error(resource,
			XX_EPAPER_REFRESH_MANAGER_V1_ERROR_ALREADY_CONSTRUCTED,
			"wl_surface@%u already has an xx_epaper_surface_refresh_v1",
			wl_resource_get_id(surface_resource));
		return;
	}
	struct wl_resource *refresh_resource = wl_resource_create(client,
		&xx_epaper_surface_refresh_v1_interface, wl_resource_get_version(resource), id);
	if (!refresh_resource) {
		wl_client_post_no_memory(client);
		return;
	}
	if (!refresh)
		refresh = surface_refresh_create(manager, surface);
	if (!refresh) {
		wl_resource_destroy(refresh_resource);
		wl_client_post_no_memory(client);
		return;
	}
	refresh->resource = refresh_resource;
	wl_resource_set_implementation(
		refresh_resource, &surface_refresh_impl, refresh, handle_refresh_resource_destroy);
}

static const struct xx_epaper_refresh_manager_v1_interface manager_impl = {
	.destroy = handle_manager_destroy_request,
	.get_surface_refresh = handle_get_surface_refresh,
};

static void
bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct vl_refresh_manager *manager = data;
	struct wl_resource *resource =
		wl_resource_create(client, &xx_epaper_refresh_manager_v1_interface, version, id);

	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, manager, NULL);
}

static void
handle_display_destroy(struct wl_listener *listener, void *data)
{
	struct vl_refresh_manager *manager = wl_container_of(listener, manager, display_destroy);
	(void)data;

	wl_list_remove(&manager->display_destroy.link);
	wl_event_source_remove(manager->flash_timer);
	wl_global_destroy(manager->global);
	free(manager);
}

struct vl_refresh_manager *
vl_refresh_manager_create(struct vl_server *server)
{
	struct vl_refresh_manager *manager = calloc(1, sizeof(*manager));

	if (!manager)
		return NULL;
	manager->server = server;
	wl_list_init(&manager->surfaces);
	manager->flash_timer = wl_event_loop_add_timer(server->loop, handle_flash_timer, manager);
	manager->global = wl_global_create(server->display, &xx_epaper_refresh_manager_v1_interface,
		MANAGER_VERSION, manager, bind_manager);
	if (!manager->flash_timer || !manager->global) {
		if (manager->flash_timer)
			wl_event_source_remove(manager->flash_timer);
		if (manager->global)
			wl_global_destroy(manager->global);
		free(manager);
		return NULL;
	}
	manager->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(server->display, &manager->display_destroy);
	return manager;
}

/* The output's commit */

struct shown_surface {
	struct wlr_scene_buffer *buffer;
	struct vl_surface_refresh *refresh; /* NULL: the surface has no refresh state */
	struct wlr_box box;                 /* layout coordinates */
};

struct shown_surfaces {
	struct vl_refresh_manager *manager;
	struct wl_array list; /* struct shown_surface, in rendering order */
};

static void
collect_surface(struct wlr_scene_buffer *buffer, int sx, int sy, void *data)
{
	struct shown_surfaces *shown = data;
	struct wlr_scene_surface *scene_surface = wlr_scene_surface_try_from_buffer(buffer);
	struct shown_surface *entry;

	if (!scene_surface)
		return;
	entry = wl_array_add(&shown->list, sizeof(*entry));
	if (!entry)
		return;
	*entry = (struct shown_surface){
		.buffer = buffer,
		.refresh = surface_refresh_find(shown->manager, scene_surface->surface),
		.box = {sx, sy, buffer->dst_width, buffer->dst_height},
	};
	if (wlr_box_empty(&entry->box) && buffer->buffer)
		entry->box =
			(struct wlr_box){sx, sy, buffer->buffer->width, buffer->buffer->height};
}

/*
 * What of a surface can be seen on the output, in output buffer
 * coordinates: its box on the output, less the surfaces drawn over it.
 */
static void
visible_region(pixman_region32_t *visible, const struct wlr_box *box,
	const pixman_region32_t *above, struct wlr_output *output, const struct wlr_box *output_box)
{
	pixman_region32_t region;
	int n;

	pixman_region32_init_rect(&region, box->x, box->y, box->width, box->height);
	pixman_region32_subtract(&region, &region, above);
	pixman_region32_intersect_rect(&region, &region, output_box->x, output_box->y,
		output_box->width, output_box->height);
	pixman_region32_translate(&region, -output_box->x, -output_box->y);
	pixman_region32_clear(visible);
	const pixman_box32_t *rects = pixman_region32_rectangles(&region, &n);
	for (int i = 0; i < n; i++) {
		pixman_box32_t native;
		if (vl_output_box_to_native(output, &rects[i], &native))
			pixman_region32_union_rect(visible, visible, native.x1, native.y1,
				native.x2 - native.x1, native.y2 - native.y1);
	}
	pixman_region32_fini(&region);
}

/* The surface's hints, one per rect of what is visible; true for a full refresh. */
static bool
add_hints(struct vl_server *server, struct vl_output *output, const struct shown_surface *shown,
	const pixman_region32_t *visible, bool flash)
{
	struct vl_surface_refresh *refresh = shown->refresh;
	struct vl_epd_hint hint = {.full_refresh = flash};
	int n;

	/* What the view would get without the protocol, where the protocol says auto. */
	vl_view_hint_for_node(server, &shown->buffer->node, &hint);
	if (refresh->current.mode != VL_EPD_MODE_AUTO)
		hint.mode = refresh->current.mode;
	if (refresh->current.dither != VL_EPD_DITHER_AUTO)
		hint.dither = refresh->current.dither;
	if (!flash && hint.mode == VL_EPD_MODE_AUTO && hint.dither == VL_EPD_DITHER_AUTO &&
		!hint.show_blinking)
		return false;
	const pixman_box32_t *rects = pixman_region32_rectangles(visible, &n);
	for (int i = 0; i < n; i++) {
		hint.box = (struct wlr_box){rects[i].x1, rects[i].y1, rects[i].x2 - rects[i].x1,
			rects[i].y2 - rects[i].y1};
		vl_epd_output_add_hint(output->wlr_output, &hint);
	}
	return flash && n > 0;
}

/* Hands the surface's committed feedback to the output's next commit. */
static void
hand_feedback(struct vl_output *output, struct vl_surface_refresh *refresh,
	const pixman_region32_t *visible)
{
	const pixman_box32_t *extents = pixman_region32_extents(visible);
	struct wlr_box area = {
		extents->x1, extents->y1, extents->x2 - extents->x1, extents->y2 - extents->y1};
	struct vl_refresh_feedback *feedback, *tmp;

	/* Newer content without feedback still supersedes older feedback. */
	if (refresh->changed && wl_list_empty(&refresh->committed))
		vl_epd_output_add_area_feedback(
			output->wlr_output, &area, refresh->owner, NULL, NULL);
	refresh->changed = false;
	wl_list_for_each_safe (feedback, tmp, &refresh->committed, link) {
		if (!vl_epd_output_add_area_feedback(output->wlr_output, &area, refresh->owner,
			    handle_backend_feedback, feedback)) {
			feedback_discard(feedback);
			continue;
		}
		wl_list_remove(&feedback->link);
		wl_list_init(&feedback->link);
		feedback_stop_waiting(feedback);
		feedback->stage = VL_FEEDBACK_HANDED;
	}
}

bool
vl_refresh_commit_owed(struct vl_refresh_manager *manager)
{
	struct vl_surface_refresh *refresh;
	uint64_t wait_ns;
	bool allowed = flash_allowed(manager, now_ns(), &wait_ns);

	wl_list_for_each (refresh, &manager->surfaces, link)
		if (!wl_list_empty(&refresh->committed) || (refresh->full_refresh_due && allowed))
			return true;
	return false;
}

void
vl_refresh_prepare_commit(struct vl_refresh_manager *manager, struct vl_output *output)
{
	struct vl_server *server = manager->server;
	struct shown_surfaces shown = {.manager = manager};
	struct wlr_box output_box;
	pixman_region32_t above, visible;
	uint64_t now = now_ns(), wait_ns;
	bool allowed = flash_allowed(manager, now, &wait_ns), flashed = false;
	struct shown_surface *entry;
	struct vl_surface_refresh *refresh, *tmp;

	wl_list_for_each (refresh, &manager->surfaces, link)
		refresh->shown = false;
	wl_array_init(&shown.list);
	wlr_scene_output_for_each_buffer(output->scene_output, collect_surface, &shown);
	wlr_output_layout_get_box(server->output_layout, output->wlr_output, &output_box);
	pixman_region32_init(&above);
	pixman_region32_init(&visible);
	/* From the top down, so that each surface knows what covers it. */
	size_t n_shown = shown.list.size / sizeof(*entry);
	/* an empty array has no data pointer to step back from */
	for (size_t i = n_shown; i-- > 0;) {
		entry = (struct shown_surface *)shown.list.data + i;
		refresh = entry->refresh;
		if (refresh) {
			refresh->shown = true;
			visible_region(
				&visible, &entry->box, &above, output->wlr_output, &output_box);
			bool flash = refresh->full_refresh_due && allowed;
			if (add_hints(server, output, entry, &visible, flash))
				flashed = true;
			if (flash)
				refresh->full_refresh_due = false;
			if (pixman_region32_not_empty(&visible))
				hand_feedback(output, refresh, &visible);
			else
				refresh->shown = false;
		}
		pixman_region32_union_rect(&above, &above, entry->box.x, entry->box.y,
			entry->box.width, entry->box.height);
	}
	pixman_region32_fini(&above);
	pixman_region32_fini(&visible);
	wl_array_release(&shown.list);
	/* Hidden surfaces: there is nothing to flash, and their commits are never shown. */
	wl_list_for_each_safe (refresh, tmp, &manager->surfaces, link) {
		struct vl_refresh_feedback *feedback, *next;
		if (refresh->shown)
			continue;
		refresh->full_refresh_due = false;
		wl_list_for_each_safe (feedback, next, &refresh->committed, link)
			feedback_discard(feedback);
	}
	if (flashed)
		manager->last_flash_ns = now;
}
