/* SPDX-License-Identifier: MIT */
/*
 * The size of the screens of the desktop the preview's window opens on.
 */
#ifndef VL_DESKTOP_SCREEN_H
#define VL_DESKTOP_SCREEN_H

#include <stdbool.h>
#include <wayland-client-core.h>

/*
 * The smallest screen of the Wayland desktop at display, in its logical
 * pixels (turned as the screen is, divided by its scale): false when the
 * desktop names no screen with a size.
 */
bool vl_desktop_screen_size(struct wl_display *display, int *width, int *height);

#endif
