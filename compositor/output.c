// SPDX-License-Identifier: MIT
/*
 * The panel's output: enabled at its one mode, rotated as configured, and
 * drawn whenever the backend asks for a frame, with the views' refresh
 * modes as hints.
 *
 * The panel keeps its image without power, and a kiosk shows it between
 * windows: the last window's last frame stays in the scene until the next
 * window maps, under whatever else is shown (layer surfaces, X11 menus),
 * and a scene with nothing in it at all (before the first window, or once
 * the last thing shown went) draws nothing on the panel. What is kept so
 * is bounded: a window's one last frame, two panels' worth of pixels for
 * them all, and a few dozen frames. Frames are still
 * committed, so that frame callbacks, feedback and screenshots are served.
 */
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vellum/epd-backend.h>
#include <vellum/epd-pipeline.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>

#include "preview.h"
#include "refresh.h"
#include "scale.h"
#include "server.h"

/*
 * A window's last frame, kept in views_tree in its place. It holds the
 * buffers the window showed, locked: the client may have let them go, and
 * they stay in memory while the frame is kept.
 */
struct vl_kept_frame {
	struct wl_list link; /* vl_server.kept_frames */
	struct wlr_scene_tree *tree;
	/* the pixels of the buffers it holds */
	uint64_t pixels;
	/* where its view keeps it, cleared when it is dropped; NULL once the view went */
	struct vl_kept_frame **owner;
	struct wl_listener tree_destroy;
};

/*
 * A kept frame is a picture, not a window: input goes through it to what is
 * below (a window under the one that went, until the next frame drops it).
 */
static bool
kept_frame_accepts_input(struct wlr_scene_buffer *buffer, double *sx, double *sy)
{
	return false;
}

/*
 * The buffers and rects under node, at sx,sy in kept's tree. By the time a window's
 * unmap is heard, wlroots has disabled its surfaces' nodes, so that
 * disabled nodes are walked too; a surface that shows nothing has no
 * buffer.
 */
static void
copy_buffers(struct vl_kept_frame *kept, struct wlr_scene_node *node, int sx, int sy)
{
	sx += node->x;
	sy += node->y;
	if (node->type == WLR_SCENE_NODE_TREE) {
		struct wlr_scene_node *child;
		wl_list_for_each (child, &wlr_scene_tree_from_node(node)->children, link)
			copy_buffers(kept, child, sx, sy);
		return;
	}
	if (node->type == WLR_SCENE_NODE_RECT) {
		/* a dialog's border */
		struct wlr_scene_rect *rect = wlr_scene_rect_from_node(node);
		struct wlr_scene_rect *copy =
			wlr_scene_rect_create(kept->tree, rect->width, rect->height, rect->color);
		if (copy)
			wlr_scene_node_set_position(&copy->node, sx, sy);
		return;
	}
	if (node->type != WLR_SCENE_NODE_BUFFER)
		return;
	struct wlr_scene_buffer *buffer = wlr_scene_buffer_from_node(node);
	if (!buffer->buffer)
		return;
	struct wlr_scene_buffer *copy = wlr_scene_buffer_create(kept->tree, buffer->buffer);
	if (!copy)
		return;
	kept->pixels += (uint64_t)buffer->buffer->width * (uint64_t)buffer->buffer->height;
	copy->point_accepts_input = kept_frame_accepts_input;
	wlr_scene_node_set_position(&copy->node, sx, sy);
	wlr_scene_buffer_set_source_box(copy, &buffer->src_box);
	wlr_scene_buffer_set_dest_size(copy, buffer->dst_width, buffer->dst_height);
	wlr_scene_buffer_set_transform(copy, buffer->transform);
	wlr_scene_buffer_set_opacity(copy, buffer->opacity);
	wlr_scene_buffer_set_opaque_region(copy, &buffer->opaque_region);
}

/* The frame is dropped, or the scene went with it at the end. */
static void
handle_kept_tree_destroy(struct wl_listener *listener, void *data)
{
	struct vl_kept_frame *kept = wl_container_of(listener, kept, tree_destroy);
	(void)data;

	if (kept->owner)
		*kept->owner = NULL;
	wl_list_remove(&kept->link);
	wl_list_remove(&kept->tree_destroy.link);
	free(kept);
}

static void
drop_kept_frame(struct vl_kept_frame *kept)
{
	wlr_scene_node_destroy(&kept->tree->node);
}

/* How many frames may be kept at once, however small: each costs a tree and its nodes. */
#define VL_KEPT_FRAMES_MAX 32

/*
 * What the kept frames may hold together: the pixels of two panels, in
 * VL_KEPT_FRAMES_MAX frames. A panel shows no more than one panel of them;
 * beyond that, the frames lowest in the stack, under the others, go first.
 */
static void
bound_kept_frames(struct vl_server *server, struct vl_kept_frame *newest)
{
	struct vl_output *output = vl_output_first(server);
	uint64_t budget = output ? 2 * (uint64_t)output->wlr_output->width *
					   (uint64_t)output->wlr_output->height
				 : 0;
	uint64_t total = 0;
	int count = wl_list_length(&server->kept_frames);
	struct vl_kept_frame *kept;

	wl_list_for_each (kept, &server->kept_frames, link)
		total += kept->pixels;
	while (total > budget || count > VL_KEPT_FRAMES_MAX) {
		struct wlr_scene_node *node;
		struct vl_kept_frame *lowest = NULL;
		/* the scene's children: the lowest first */
		wl_list_for_each (node, &server->views_tree->children, link) {
			wl_list_for_each (kept, &server->kept_frames, link) {
				if (kept != newest && &kept->tree->node == node) {
					lowest = kept;
					break;
				}
			}
			if (lowest)
				break;
		}
		/* the newest is kept, whatever it holds */
		if (!lowest)
			return;
		total -= lowest->pixels;
		count--;
		drop_kept_frame(lowest);
	}
}

void
vl_output_keep_frame(
	struct vl_server *server, struct wlr_scene_node *node, struct vl_kept_frame **owner)
{
	/*
	 * Every window that goes is kept, at its place in the stack: an
	 * application that exits unmaps all its windows at once, in any order.
	 * The next frame drops them again if a window is left. A window keeps
	 * one frame, its last.
	 */
	vl_output_drop_kept_frame(owner);
	if (!node->parent || !node->enabled)
		return;
	struct vl_kept_frame *kept = calloc(1, sizeof(*kept));
	if (!kept)
		return;
	kept->tree = wlr_scene_tree_create(node->parent);
	if (!kept->tree) {
		free(kept);
		return;
	}
	kept->tree_destroy.notify = handle_kept_tree_destroy;
	wl_signal_add(&kept->tree->node.events.destroy, &kept->tree_destroy);
	wl_list_insert(&server->kept_frames, &kept->link);
	wlr_scene_node_place_above(&kept->tree->node, node);
	/* the buffers the node shows now, locked: the client may let them go */
	copy_buffers(kept, node, 0, 0);
	kept->owner = owner;
	*owner = kept;
	bound_kept_frames(server, kept);
}

void
vl_output_drop_kept_frame(struct vl_kept_frame **owner)
{
	if (*owner)
		drop_kept_frame(*owner);
}

void
vl_output_disown_kept_frame(struct vl_kept_frame **owner)
{
	if (*owner)
		(*owner)->owner = NULL;
	*owner = NULL;
}

static void
drop_kept_frames(struct vl_server *server)
{
	struct vl_kept_frame *kept, *tmp;

	wl_list_for_each_safe (kept, tmp, &server->kept_frames, link)
		drop_kept_frame(kept);
}

static void
find_buffer(struct wlr_scene_buffer *buffer, int sx, int sy, void *data)
{
	bool *found = data;

	if (buffer->buffer)
		*found = true;
}

static bool
shows_anything(struct vl_output *output)
{
	bool found = false;

	wlr_scene_output_for_each_buffer(output->scene_output, find_buffer, &found);
	return found;
}

/*
 * The scene drawn, for screenshots and the surfaces' feedback, without
 * damage: the panel keeps what it shows.
 */
static void
commit_undamaged(struct vl_output *output)
{
	struct wlr_output_state state;
	pixman_region32_t none;

	wlr_output_state_init(&state);
	pixman_region32_init(&none);
	if (wlr_scene_output_build_state(output->scene_output, &state, NULL)) {
		wlr_output_state_set_damage(&state, &none);
		wlr_output_commit_state(output->wlr_output, &state);
	}
	pixman_region32_fini(&none);
	wlr_output_state_finish(&state);
}

static void
handle_frame(struct wl_listener *listener, void *data)
{
	struct vl_output *output = wl_container_of(listener, output, frame);
	struct vl_server *server = output->server;
	struct timespec now;
	(void)data;

	/* A window is shown: what it does not cover is the empty page. */
	if (!wl_list_empty(&server->views))
		drop_kept_frames(server);
	if (vl_output_is_epd(output->wlr_output)) {
		/* A full refresh or feedback is owed even when nothing was damaged. */
		if (vl_refresh_commit_owed(output->server->refresh))
			wlr_output_update_needs_frame(output->wlr_output);
		vl_views_add_hints(output->server, output);
		vl_layers_add_hints(output->server, output);
		vl_refresh_prepare_commit(output->server->refresh, output);
	}
	vl_output_scale_buffers(output);
	uint32_t seq = output->wlr_output->commit_seq;
	/*
	 * Nothing but the paper-white background: a boot splash before
	 * anything was shown, the last image after it went, not an empty page.
	 * Only a screenshot or owed feedback brings a commit then.
	 */
	if (shows_anything(output))
		wlr_scene_output_commit(output->scene_output, NULL);
	else if (output->wlr_output->needs_frame)
		commit_undamaged(output);
	/* Nothing changed, so no commit: the hints were for this frame only. */
	if (vl_output_is_epd(output->wlr_output) && output->wlr_output->commit_seq == seq)
		vl_epd_output_drop_hints(output->wlr_output);
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(output->scene_output, &now);
	vl_views_x11_frame_done(server);
}

static void
handle_request_state(struct wl_listener *listener, void *data)
{
	struct vl_output *output = wl_container_of(listener, output, request_state);
	const struct wlr_output_event_request_state *event = data;

	wlr_output_commit_state(output->wlr_output, event->state);
	vl_views_arrange(output->server);
}

static void
handle_destroy(struct wl_listener *listener, void *data)
{
	struct vl_output *output = wl_container_of(listener, output, destroy);
	struct vl_server *server = output->server;
	struct wlr_output *wlr_output = output->wlr_output;
	(void)data;

	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->request_state.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->link);
	free(output);
	/* The panel is gone (unplugged or failed): a kiosk without it has nothing to do. */
	if (wl_list_empty(&server->outputs) && !server->shutting_down) {
		fprintf(stderr, "vellum: the panel %s is gone; exiting\n",
			wlr_output->description ? wlr_output->description : wlr_output->name);
		server->panel_gone = true;
		wl_display_terminate(server->display);
	}
}

static enum wl_output_transform
transform_for_rotation(int degrees)
{
	switch (degrees) {
	case 90:
		return WL_OUTPUT_TRANSFORM_90;
	case 180:
		return WL_OUTPUT_TRANSFORM_180;
	case 270:
		return WL_OUTPUT_TRANSFORM_270;
	default:
		return WL_OUTPUT_TRANSFORM_NORMAL;
	}
}

void
vl_output_handle_new(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_output);
	struct wlr_output *wlr_output = data;
	struct wlr_output_state state;

	if (vl_preview_handle_output(server, wlr_output))
		return;
	/* Only the panel is an output; other backends bring input only. */
	if (!vl_output_is_epd(wlr_output) || !wl_list_empty(&server->outputs))
		return;
	if (!wlr_output_init_render(wlr_output, server->allocator, server->renderer)) {
		wlr_log(WLR_ERROR, "cannot render to %s", wlr_output->name);
		return;
	}
	struct vl_output *output = calloc(1, sizeof(*output));
	if (!output)
		return;
	output->server = server;
	output->wlr_output = wlr_output;

	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	wlr_output_state_set_transform(&state, transform_for_rotation(server->config.rotation));
	wlr_output_state_set_scale(&state, vl_output_scale(server, wlr_output));
	/* the panel's 16 grays in half the memory of XRGB8888; the backend reads both */
	wlr_output_state_set_render_format(&state, DRM_FORMAT_RGB565);
	bool ok = wlr_output_commit_state(wlr_output, &state);
	wlr_output_state_finish(&state);
	if (!ok) {
		wlr_log(WLR_ERROR, "cannot enable %s", wlr_output->name);
		free(output);
		return;
	}

	output->frame.notify = handle_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->request_state.notify = handle_request_state;
	wl_signal_add(&wlr_output->events.request_state, &output->request_state);
	output->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	wl_list_insert(&server->outputs, &output->link);

	struct wlr_output_layout_output *layout_output =
		wlr_output_layout_add_auto(server->output_layout, wlr_output);
	output->scene_output = wlr_scene_output_create(server->scene, wlr_output);
	if (layout_output && output->scene_output)
		wlr_scene_output_layout_add_output(
			server->scene_layout, layout_output, output->scene_output);
	vl_views_arrange(server);
}

struct vl_output *
vl_output_first(struct vl_server *server)
{
	struct vl_output *output;

	wl_list_for_each (output, &server->outputs, link)
		return output;
	return NULL;
}

/* box, in layout coordinates, in the output buffer's: false when it is not on the output. */
static bool
native_box(struct vl_server *server, struct vl_output *output, const struct wlr_box *box,
	struct wlr_box *out)
{
	struct wlr_output *wlr_output = output->wlr_output;
	struct wlr_box output_box;
	pixman_box32_t native;

	wlr_output_layout_get_box(server->output_layout, wlr_output, &output_box);
	pixman_box32_t local = {
		box->x - output_box.x,
		box->y - output_box.y,
		box->x - output_box.x + box->width,
		box->y - output_box.y + box->height,
	};
	/* scaled, rotation undone */
	if (!vl_output_box_to_native(wlr_output, &local, &native))
		return false;
	*out = (struct wlr_box){native.x1, native.y1, native.x2 - native.x1, native.y2 - native.y1};
	return true;
}

void
vl_output_hint_box(struct vl_server *server, struct vl_output *output, const struct wlr_box *box,
	const struct vl_epd_hint *how)
{
	struct vl_epd_hint hint = *how;

	/* hints are in the output buffer's coordinates */
	if (native_box(server, output, box, &hint.box))
		vl_epd_output_add_hint(output->wlr_output, &hint);
}

void
vl_output_end_hold(struct vl_server *server, struct vl_output *output, const struct wlr_box *box)
{
	struct wlr_box native;

	if (vl_output_is_epd(output->wlr_output) && native_box(server, output, box, &native))
		vl_epd_output_end_hold(output->wlr_output, &native);
}
