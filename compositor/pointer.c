// SPDX-License-Identifier: MIT
/*
 * Pointers: mice, touchpads, virtual pointers and the preview window's
 * pointer, and the pen for clients without tablet-v2 (tablet.c). The
 * surface under the pointer hears where it is, also when the surface moved
 * and the pointer did not; a drag stays with the surface its button went
 * down on.
 */
#include <linux/input-event-codes.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_seat.h>

#include "seat.h"
#include "server.h"

/*
 * Tells the surface under the pointer where the pointer is: an enter when
 * the surface changed, a motion when the pointer moved or the surface moved
 * under it.
 */
static void
update_pointer_focus(struct vl_seat *seat, uint32_t time_msec, bool moved)
{
	struct wlr_seat_pointer_state *state = &seat->seat->pointer_state;
	double sx, sy;
	struct wlr_surface *surface =
		vl_seat_surface_at(seat, seat->cursor->x, seat->cursor->y, &sx, &sy);

	/* A drag stays with the surface its button went down on, wherever it goes. */
	if (state->button_count > 0 && state->focused_surface) {
		if (moved)
			wlr_seat_pointer_notify_motion(seat->seat, time_msec,
				seat->cursor->x - seat->press_origin_x,
				seat->cursor->y - seat->press_origin_y);
		return;
	}
	/* an enter or leave comes with its frame; a motion ends in the device's */
	if (!surface) {
		wlr_seat_pointer_clear_focus(seat->seat);
	} else if (surface != state->focused_surface) {
		wlr_seat_pointer_notify_enter(seat->seat, surface, sx, sy);
	} else if (moved || sx != state->sx || sy != state->sy) {
		wlr_seat_pointer_notify_motion(seat->seat, time_msec, sx, sy);
		if (!moved)
			wlr_seat_pointer_notify_frame(seat->seat);
	}
}

void
vl_seat_pointer_moved(struct vl_seat *seat, uint32_t time_msec)
{
	vl_seat_notify_activity(seat, VL_EPD_INPUT_POINTER);
	update_pointer_focus(seat, time_msec, true);
}

/* What is under a pointer that stands still may have changed. */
void
vl_seat_update_standing_pointer(struct vl_seat *seat)
{
	/* without a pointer the cursor stands still at 0,0 and enters nothing */
	if (seat->seat->capabilities & WL_SEAT_CAPABILITY_POINTER)
		update_pointer_focus(seat, vl_seat_now_msec(), false);
}

static void
handle_pointer_update(void *data)
{
	struct vl_seat *seat = data;

	seat->pointer_update = NULL;
	vl_seat_update_standing_pointer(seat);
}

void
vl_seat_update_pointer_later(struct vl_seat *seat)
{
	if (!seat->pointer_update)
		seat->pointer_update =
			wl_event_loop_add_idle(seat->server->loop, handle_pointer_update, seat);
}

static void
handle_motion(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, motion);
	struct wlr_pointer_motion_event *event = data;

	seat->pointer_off_panel = false;
	wlr_cursor_move(seat->cursor, &event->pointer->base, event->delta_x, event->delta_y);
	vl_seat_pointer_moved(seat, event->time_msec);
}

static void
handle_motion_absolute(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, motion_absolute);
	struct wlr_pointer_motion_absolute_event *event = data;
	double lx, ly;
	bool on_panel;

	if (!vl_seat_device_to_layout(
		    seat, &event->pointer->base, event->x, event->y, &lx, &ly, &on_panel))
		return;
	seat->pointer_off_panel = !on_panel;
	wlr_cursor_warp_closest(seat->cursor, &event->pointer->base, lx, ly);
	vl_seat_pointer_moved(seat, event->time_msec);
}

/*
 * Whether a button belongs to a press on the desk around the preview's
 * panel: there is no panel there, so neither the press nor its release
 * reaches an application.
 */
static bool
off_panel_button(struct vl_seat *seat, const struct wlr_pointer_button_event *event)
{
	uint32_t index = event->button - BTN_MOUSE;
	uint32_t bit = index < 32 ? 1u << index : 0;

	if (event->state == WL_POINTER_BUTTON_STATE_PRESSED) {
		if (!seat->pointer_off_panel || !bit)
			return false;
		seat->off_panel_buttons |= bit;
		return true;
	}
	if (!(seat->off_panel_buttons & bit))
		return false;
	seat->off_panel_buttons &= ~bit;
	return true;
}

/*
 * A pointer button goes down, the mouse's or the pen's tip: the first one
 * starts a drag, whose motions go to the surface under the pointer relative
 * to where that surface was at the press.
 */
void
vl_seat_pointer_pressed(struct vl_seat *seat)
{
	struct wlr_seat_pointer_state *state = &seat->seat->pointer_state;

	vl_layers_handle_press(seat->server, state->focused_surface);
	if (state->button_count == 0) {
		seat->press_origin_x = seat->cursor->x - state->sx;
		seat->press_origin_y = seat->cursor->y - state->sy;
	}
}

static void
handle_button(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, button);
	struct wlr_pointer_button_event *event = data;
	struct wlr_seat_pointer_state *state = &seat->seat->pointer_state;

	if (off_panel_button(seat, event))
		return;
	vl_seat_notify_activity(seat, VL_EPD_INPUT_POINTER);
	if (event->state == WL_POINTER_BUTTON_STATE_PRESSED)
		vl_seat_pointer_pressed(seat);
	wlr_seat_pointer_notify_button(seat->seat, event->time_msec, event->button, event->state);
	/* the drag is over: the surface under the pointer now has it */
	if (event->state == WL_POINTER_BUTTON_STATE_RELEASED && state->button_count == 0)
		update_pointer_focus(seat, event->time_msec, false);
}

static void
handle_axis(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, axis);
	struct wlr_pointer_axis_event *event = data;

	vl_seat_notify_activity(seat, VL_EPD_INPUT_SCROLL);
	wlr_seat_pointer_notify_axis(seat->seat, event->time_msec, event->orientation, event->delta,
		event->delta_discrete, event->source, event->relative_direction);
}

static void
handle_frame(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, frame);
	(void)data;

	wlr_seat_pointer_notify_frame(seat->seat);
}

void
vl_seat_listen_pointer(struct vl_seat *seat)
{
	struct wlr_cursor *cursor = seat->cursor;

	LISTEN(&cursor->events.motion, &seat->motion, handle_motion);
	LISTEN(&cursor->events.motion_absolute, &seat->motion_absolute, handle_motion_absolute);
	LISTEN(&cursor->events.button, &seat->button, handle_button);
	LISTEN(&cursor->events.axis, &seat->axis, handle_axis);
	LISTEN(&cursor->events.frame, &seat->frame, handle_frame);
}
