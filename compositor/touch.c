// SPDX-License-Identifier: MIT
/*
 * Touchscreens: a touch goes to the surface it went down on and stays with
 * it wherever it moves, and ends when that surface goes. The touchscreen
 * is laminated to the panel (seat.c maps its points).
 */
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_touch.h>

#include "seat.h"
#include "server.h"

static struct vl_touch_origin *
touch_origin(struct vl_seat *seat, int32_t touch_id, bool add)
{
	for (size_t i = 0; i < VL_MAX_TOUCH_POINTS; i++)
		if (seat->touches[i].used && seat->touches[i].id == touch_id)
			return &seat->touches[i];
	for (size_t i = 0; add && i < VL_MAX_TOUCH_POINTS; i++)
		if (!seat->touches[i].used)
			return &seat->touches[i];
	return NULL;
}

static void
handle_touch_down(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_down);
	struct wlr_touch_down_event *event = data;
	double lx, ly, sx, sy;

	bool on_panel;
	bool mapped = vl_seat_maps_to_panel(seat, &event->touch->base) &&
		      vl_seat_device_to_layout(
			      seat, &event->touch->base, event->x, event->y, &lx, &ly, &on_panel);

	/* a touch on the desk around the preview's panel touches nothing */
	if (mapped && !on_panel)
		return;
	vl_seat_notify_activity(seat, VL_EPD_INPUT_TOUCH);
	if (!mapped)
		return;
	struct wlr_surface *surface = vl_seat_surface_at(seat, lx, ly, &sx, &sy);
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, true);
	if (!surface || !origin)
		return;
	*origin = (struct vl_touch_origin){
		.used = true, .id = event->touch_id, .x = lx - sx, .y = ly - sy};
	vl_layers_handle_press(seat->server, surface);
	wlr_seat_touch_notify_down(seat->seat, surface, event->time_msec, event->touch_id, sx, sy);
}

static void
handle_touch_up(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_up);
	struct wlr_touch_up_event *event = data;
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, false);

	if (origin)
		origin->used = false;
	if (wlr_seat_touch_get_point(seat->seat, event->touch_id))
		wlr_seat_touch_notify_up(seat->seat, event->time_msec, event->touch_id);
}

static void
handle_touch_motion(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_motion);
	struct wlr_touch_motion_event *event = data;
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, false);
	double lx, ly;

	bool on_panel;

	if (!origin || !wlr_seat_touch_get_point(seat->seat, event->touch_id) ||
		!vl_seat_device_to_layout(
			seat, &event->touch->base, event->x, event->y, &lx, &ly, &on_panel))
		return;
	/* A touch stays with the surface it went down on, wherever it moves. */
	wlr_seat_touch_notify_motion(
		seat->seat, event->time_msec, event->touch_id, lx - origin->x, ly - origin->y);
}

static void
handle_touch_frame(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_frame);
	(void)data;

	wlr_seat_touch_notify_frame(seat->seat);
}

static void
handle_touch_cancel(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_cancel);
	struct wlr_touch_cancel_event *event = data;
	struct wlr_touch_point *point = wlr_seat_touch_get_point(seat->seat, event->touch_id);
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, false);

	if (origin)
		origin->used = false;
	if (!point || !point->client)
		return;
	/*
	 * The client's touch session ends, each of its touches with it, though
	 * their fingers are still down: their origins are free again.
	 */
	struct wlr_touch_point *other;
	wl_list_for_each (other, &seat->seat->touch_state.touch_points, link) {
		origin = other->client == point->client ? touch_origin(seat, other->touch_id, false)
							: NULL;
		if (origin)
			origin->used = false;
	}
	wlr_seat_touch_notify_cancel(seat->seat, point->client);
}

/*
 * A surface under a finger goes: its client hears the touch end, as it
 * would otherwise wait for an up that never comes. Runs before wlroots
 * forgets the touch point, whose listener came later.
 */
void
vl_seat_end_touches_on(struct vl_seat *seat, struct wlr_surface *surface)
{
	struct wlr_touch_point *point, *tmp;
	bool ended = false;

	wl_list_for_each_safe (point, tmp, &seat->seat->touch_state.touch_points, link) {
		if (point->surface != surface)
			continue;
		struct vl_touch_origin *origin = touch_origin(seat, point->touch_id, false);
		if (origin)
			origin->used = false;
		wlr_seat_touch_notify_up(seat->seat, vl_seat_now_msec(), point->touch_id);
		ended = true;
	}
	if (ended)
		wlr_seat_touch_notify_frame(seat->seat);
}

void
vl_seat_listen_touch(struct vl_seat *seat)
{
	struct wlr_cursor *cursor = seat->cursor;

	LISTEN(&cursor->events.touch_down, &seat->touch_down, handle_touch_down);
	LISTEN(&cursor->events.touch_up, &seat->touch_up, handle_touch_up);
	LISTEN(&cursor->events.touch_motion, &seat->touch_motion, handle_touch_motion);
	LISTEN(&cursor->events.touch_frame, &seat->touch_frame, handle_touch_frame);
	LISTEN(&cursor->events.touch_cancel, &seat->touch_cancel, handle_touch_cancel);
}
