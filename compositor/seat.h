/* SPDX-License-Identifier: MIT */
/*
 * The seat's internals, shared by seat.c (the seat, keyboard focus, devices
 * coming and going) and the files of each kind of input: keyboard.c,
 * pointer.c, touch.c and tablet.c.
 */
#ifndef VL_SEAT_H
#define VL_SEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <vellum/epd-backend.h>
#include <wayland-server-core.h>

struct vl_server;
struct wlr_input_device;
struct wlr_keyboard;
struct wlr_surface;

#define VL_MAX_TOUCH_POINTS 16

/* Where the surface a touch went down on was, in layout coordinates. */
struct vl_touch_origin {
	bool used;
	int32_t id;
	double x, y;
};

struct vl_seat {
	struct vl_server *server;
	struct wlr_seat *seat;
	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *xcursor_manager; /* only while the cursor is shown */
	struct wl_list keyboards;                    /* struct vl_keyboard */
	struct wl_list devices;                      /* struct vl_device: pointers, touch, pens */
	struct vl_touch_origin touches[VL_MAX_TOUCH_POINTS];
	/* the keyboard goes to the layer surface when there is one, else to the view */
	struct wlr_surface *view_focus, *layer_focus;
	/* where the pen is, as fractions of the panel, and the surface it is down on */
	double pen_x, pen_y, pen_origin_x, pen_origin_y;
	/* where the surface a button went down on was, in layout coordinates */
	double press_origin_x, press_origin_y;
	/* the pointer is on the desk around the preview's panel, and the buttons pressed there */
	bool pointer_off_panel;
	uint32_t off_panel_buttons; /* bit N: BTN_MOUSE + N */
	/* a pointer update waiting for the scene to settle (vl_seat_update_pointer_later) */
	struct wl_event_source *pointer_update;

	struct wl_listener motion, motion_absolute, button, axis, frame;
	struct wl_listener touch_down, touch_up, touch_motion, touch_frame, touch_cancel;
	struct wl_listener tablet_proximity, tablet_axis, tablet_tip, tablet_button;
	struct wl_listener request_set_cursor, request_set_selection, request_set_primary_selection;
	struct wl_listener new_surface;
};

#define LISTEN(signal, listener, handler)            \
	do {                                         \
		(listener)->notify = (handler);      \
		wl_signal_add((signal), (listener)); \
	} while (0)

/* seat.c */
/* The panel's refresh policy goes fast while the user works, by the kind of input. */
void vl_seat_notify_activity(struct vl_seat *seat, enum vl_epd_input kind);
uint32_t vl_seat_now_msec(void);
/* The surface under a point in layout coordinates, and the point in its own. */
struct wlr_surface *vl_seat_surface_at(
	struct vl_seat *seat, double lx, double ly, double *sx, double *sy);
/*
 * A point given in the panel's native orientation, as fractions of its
 * size, to layout coordinates.
 */
bool vl_seat_panel_to_layout(struct vl_seat *seat, double x, double y, double *lx, double *ly);
/*
 * An absolute position from device in layout coordinates; *on_panel is
 * false on the desk around the preview's panel.
 */
bool vl_seat_device_to_layout(struct vl_seat *seat, struct wlr_input_device *device, double x,
	double y, double *lx, double *ly, bool *on_panel);
/* Whether the config maps this touchscreen or pen to the panel. */
bool vl_seat_maps_to_panel(struct vl_seat *seat, struct wlr_input_device *device);

/* keyboard.c */
/* uses_config_keymap: a device's; a virtual keyboard brings its own keymap. */
void vl_seat_add_keyboard(
	struct vl_seat *seat, struct wlr_keyboard *wlr_keyboard, bool uses_config_keymap);
/* Gives the keyboards that take the config's keymap that keymap again. */
void vl_seat_apply_keymaps(struct vl_seat *seat);

/*
 * The cursor's events of each kind of input: each file listens to its own,
 * and vl_seat_destroy stops listening to them all.
 */
/* pointer.c */
void vl_seat_listen_pointer(struct vl_seat *seat);
/* The pointer moved, the mouse or the pen for a client without tablet-v2. */
void vl_seat_pointer_moved(struct vl_seat *seat, uint32_t time_msec);
/* A pointer button goes down, the mouse's or the pen's tip. */
void vl_seat_pointer_pressed(struct vl_seat *seat);
/* What is under a pointer that stands still may have changed: it is told now. */
void vl_seat_update_standing_pointer(struct vl_seat *seat);
/* touch.c */
void vl_seat_listen_touch(struct vl_seat *seat);
/* A surface under a finger goes: its client hears the touch end. */
void vl_seat_end_touches_on(struct vl_seat *seat, struct wlr_surface *surface);
/* tablet.c */
void vl_seat_listen_tablet(struct vl_seat *seat);

#endif
