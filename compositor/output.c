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
 * the last thing shown went) draws nothing on the panel. Frames are still
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
 * The buffers under node, at sx,sy in tree. By the time a window's unmap
 * is heard, wlroots has disabled its surfaces' nodes, so that disabled
 * nodes are walked too; a surface that shows nothing has no buffer.
 */
static void
copy_buffers(struct wlr_scene_tree *tree, struct wlr_scene_node *node, int sx, int sy)
{
	sx += node->x;
	sy += node->y;
	if (node->type == WLR_SCENE_NODE_TREE) {
		struct wlr_scene_node *child;
		wl_list_for_each (child, &wlr_scene_tree_from_node(node)->children, link)
			copy_buffers(tree, child, sx, sy);
		return;
	}
	if (node->type != WLR_SCENE_NODE_BUFFER)
		return;
	struct wlr_scene_buffer *buffer = wlr_scene_buffer_from_node(node);
	if (!buffer->buffer)
		return;
	struct wlr_scene_buffer *copy = wlr_scene_buffer_create(tree, buffer->buffer);
	if (!copy)
		return;
	wlr_scene_node_set_position(&copy->node, sx, sy);
	wlr_scene_buffer_set_source_box(copy, &buffer->src_box);
	wlr_scene_buffer_set_dest_size(copy, buffer->dst_width, buffer->dst_height);
	wlr_scene_buffer_set_transform(copy, buffer->transform);
	wlr_scene_buffer_set_opacity(copy, buffer->opacity);
	wlr_scene_buffer_set_opaque_region(copy, &buffer->opaque_region);
}

/* What marks the trees of kept frames among the views. */
static char kept_frame_mark;

void
vl_output_keep_frame(struct vl_server *server, struct wlr_scene_node *node)
{
	/*
	 * Every window that goes is kept, at its place in the stack: an
	 * application that exits unmaps all its windows at once, in any order.
	 * The next frame drops them again if a window is left.
	 */
	if (!node->parent || !node->enabled)
		return;
	struct wlr_scene_tree *kept = wlr_scene_tree_create(node->parent);
	if (!kept)
		return;
	kept->node.data = &kept_frame_mark;
	wlr_scene_node_place_above(&kept->node, node);
	/* the buffers the node shows now, locked: the client may let them go */
	copy_buffers(kept, node, 0, 0);
	server->frames_kept = true;
}

static void
drop_kept_frames(struct vl_server *server)
{
	struct wlr_scene_node *node, *tmp;

	wl_list_for_each_safe (node, tmp, &server->views_tree->children, link)
		if (node->data == &kept_frame_mark)
			wlr_scene_node_destroy(node);
	server->frames_kept = false;
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
	if (server->frames_kept && !wl_list_empty(&server->views))
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

void
vl_output_hint_box(struct vl_server *server, struct vl_output *output, const struct wlr_box *box,
	const struct vl_epd_hint *how)
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
	/* hints are in the output buffer's coordinates: scaled, rotation undone */
	if (!vl_output_box_to_native(wlr_output, &local, &native))
		return;
	struct vl_epd_hint hint = *how;

	hint.box = (struct wlr_box){
		native.x1, native.y1, native.x2 - native.x1, native.y2 - native.y1};
	vl_epd_output_add_hint(wlr_output, &hint);
}
