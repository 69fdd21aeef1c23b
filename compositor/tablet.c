// SPDX-License-Identifier: MIT
/*
 * Pens: tablet tool events for clients that bound tablet-v2, the pointer for
 * the others (moved where the pen is, pressing while the tip touches). A pen
 * that went down on a surface stays with it until it is lifted, as a touch
 * does. The pen is laminated to the panel (seat.c maps its points).
 */
#include <linux/input-event-codes.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_tablet_tool.h>
#include <wlr/types/wlr_tablet_v2.h>

#include "seat.h"
#include "server.h"

static struct wlr_tablet_v2_tablet_tool *
tablet_tool(struct vl_seat *seat, struct wlr_tablet_tool *wlr_tool)
{
	/* freed by wlroots with the tool */
	if (!wlr_tool->data)
		wlr_tool->data =
			wlr_tablet_tool_create(seat->server->tablet_manager, seat->seat, wlr_tool);
	return wlr_tool->data;
}

/*
 * Moves the pen to where the seat last saw it: as a tablet tool onto the surface there when its
 * client takes tablet events, else as the pointer. Returns the tablet tool when the event went to a
 * surface as one.
 */
static struct wlr_tablet_v2_tablet_tool *
pen_moved(struct vl_seat *seat, struct wlr_tablet *tablet, struct wlr_tablet_tool *wlr_tool,
	uint32_t time_msec)
{
	struct wlr_tablet_v2_tablet_tool *tool = tablet_tool(seat, wlr_tool);
	struct wlr_tablet_v2_tablet *tablet_v2 = tablet->data;
	double lx, ly, sx, sy;

	if (!vl_seat_maps_to_panel(seat, &tablet->base) ||
		!vl_seat_panel_to_layout(seat, seat->pen_x, seat->pen_y, &lx, &ly))
		return NULL;
	vl_seat_notify_activity(seat, VL_EPD_INPUT_PEN);
	if (tool && tool->is_down && tool->focused_surface) {
		wlr_tablet_v2_tablet_tool_notify_motion(
			tool, lx - seat->pen_origin_x, ly - seat->pen_origin_y);
		return tool;
	}
	struct wlr_surface *surface = vl_seat_surface_at(seat, lx, ly, &sx, &sy);
	if (tool && tablet_v2 && surface && wlr_surface_accepts_tablet_v2(tablet_v2, surface)) {
		wlr_tablet_v2_tablet_tool_notify_proximity_in(tool, tablet_v2, surface);
		wlr_tablet_v2_tablet_tool_notify_motion(tool, sx, sy);
		seat->pen_origin_x = lx - sx;
		seat->pen_origin_y = ly - sy;
		return tool;
	}
	if (tool && tool->focused_surface)
		wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
	wlr_cursor_warp_closest(seat->cursor, NULL, lx, ly);
	vl_seat_pointer_moved(seat, time_msec);
	wlr_seat_pointer_notify_frame(seat->seat);
	return NULL;
}

static void
handle_tablet_proximity(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_proximity);
	struct wlr_tablet_tool_proximity_event *event = data;
	struct wlr_tablet_v2_tablet_tool *tool = tablet_tool(seat, event->tool);

	if (event->state == WLR_TABLET_TOOL_PROXIMITY_OUT) {
		if (tool && tool->focused_surface)
			wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
		return;
	}
	seat->pen_x = event->x;
	seat->pen_y = event->y;
	pen_moved(seat, event->tablet, event->tool, event->time_msec);
}

static void
handle_tablet_axis(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_axis);
	struct wlr_tablet_tool_axis_event *event = data;
	struct wlr_tablet_v2_tablet_tool *tool = NULL;

	/* an axis that did not change is not in the event */
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_X)
		seat->pen_x = event->x;
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_Y)
		seat->pen_y = event->y;
	if (event->updated_axes & (WLR_TABLET_TOOL_AXIS_X | WLR_TABLET_TOOL_AXIS_Y))
		tool = pen_moved(seat, event->tablet, event->tool, event->time_msec);
	else if (event->tool->data &&
		 ((struct wlr_tablet_v2_tablet_tool *)event->tool->data)->focused_surface)
		tool = event->tool->data;
	if (!tool)
		return;
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_PRESSURE)
		wlr_tablet_v2_tablet_tool_notify_pressure(tool, event->pressure);
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_DISTANCE)
		wlr_tablet_v2_tablet_tool_notify_distance(tool, event->distance);
	if (event->updated_axes & (WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y))
		wlr_tablet_v2_tablet_tool_notify_tilt(tool, event->tilt_x, event->tilt_y);
}

static void
handle_tablet_tip(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_tip);
	struct wlr_tablet_tool_tip_event *event = data;
	bool down = event->state == WLR_TABLET_TOOL_TIP_DOWN;

	seat->pen_x = event->x;
	seat->pen_y = event->y;
	struct wlr_tablet_v2_tablet_tool *tool =
		pen_moved(seat, event->tablet, event->tool, event->time_msec);
	if (tool) {
		if (down) {
			vl_layers_handle_press(seat->server, tool->focused_surface);
			wlr_tablet_v2_tablet_tool_notify_down(tool);
		} else {
			wlr_tablet_v2_tablet_tool_notify_up(tool);
		}
		return;
	}
	if (!vl_seat_maps_to_panel(seat, &event->tablet->base))
		return;
	if (down)
		vl_seat_pointer_pressed(seat);
	wlr_seat_pointer_notify_button(seat->seat, event->time_msec, BTN_LEFT,
		down ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
	wlr_seat_pointer_notify_frame(seat->seat);
}

static void
handle_tablet_button(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_button);
	struct wlr_tablet_tool_button_event *event = data;
	struct wlr_tablet_v2_tablet_tool *tool = tablet_tool(seat, event->tool);

	/* the pen's side buttons mean nothing to a pointer */
	if (tool && tool->focused_surface)
		wlr_tablet_v2_tablet_tool_notify_button(tool, event->button,
			event->state == WLR_BUTTON_PRESSED
				? ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED
				: ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
}

void
vl_seat_listen_tablet(struct vl_seat *seat)
{
	struct wlr_cursor *cursor = seat->cursor;

	LISTEN(&cursor->events.tablet_tool_proximity, &seat->tablet_proximity,
		handle_tablet_proximity);
	LISTEN(&cursor->events.tablet_tool_axis, &seat->tablet_axis, handle_tablet_axis);
	LISTEN(&cursor->events.tablet_tool_tip, &seat->tablet_tip, handle_tablet_tip);
	LISTEN(&cursor->events.tablet_tool_button, &seat->tablet_button, handle_tablet_button);
}
