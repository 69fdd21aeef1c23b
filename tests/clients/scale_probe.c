// SPDX-License-Identifier: MIT
/*
 * A client of wp-fractional-scale-v1 and viewporter, as foot and GTK are:
 * a fullscreen window that learns the output's scale, then draws its
 * buffer at that scale, a viewport giving its logical size.
 *
 *   scale_probe
 *
 * Prints "configure WxH" (logical), "preferred_scale at configure N" (what
 * it was told before its first frame, 0 if nothing), "preferred_scale N"
 * (in 120ths) and "buffer WxH", and draws 1-pixel vertical stripes, black on odd columns,
 * which come out on the panel as they are only when nothing rescales the
 * buffer; then a black block of a tenth of its height, its side that far
 * from the bottom right corner, changing nothing else.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "fractional-scale-v1-client-protocol.h"
#include "viewporter-client-protocol.h"

static uint32_t preferred_scale; /* 120ths; 0: not told yet */

static void
handle_preferred_scale(void *data, struct wp_fractional_scale_v1 *fractional_scale, uint32_t scale)
{
	(void)data;
	(void)fractional_scale;
	preferred_scale = scale;
}

static const struct wp_fractional_scale_v1_listener fractional_scale_listener = {
	.preferred_scale = handle_preferred_scale,
};

int
main(void)
{
	struct vt_client client, *c = &client;

	vt_client_connect(c);
	struct wp_fractional_scale_manager_v1 *manager =
		vt_client_bind(c, &wp_fractional_scale_manager_v1_interface, 1);
	struct wp_viewporter *viewporter = vt_client_bind(c, &wp_viewporter_interface, 1);
	if (!manager || !viewporter)
		vt_die("no wp_fractional_scale_manager_v1 or wp_viewporter");

	vt_client_create_toplevel(c, "scale_probe");
	struct wp_fractional_scale_v1 *fractional_scale =
		wp_fractional_scale_manager_v1_get_fractional_scale(manager, c->surface);
	wp_fractional_scale_v1_add_listener(fractional_scale, &fractional_scale_listener, NULL);
	struct wp_viewport *viewport = wp_viewporter_get_viewport(viewporter, c->surface);
	xdg_toplevel_set_fullscreen(c->toplevel, NULL);
	vt_client_wait_configure(c);
	vt_say("configure %dx%d", c->width, c->height);
	/* what a client knows of the scale when it draws its first frame */
	vt_say("preferred_scale at configure %u", preferred_scale);

	/* The scene tells the scale again, if need be, once the surface is on the output. */
	struct vt_buffer *first = vt_buffer_create(c, VT_WHITE);
	vt_client_commit(c, first);
	for (int frames = 0; !preferred_scale && frames < 10; frames++) {
		vt_client_wait_frame(c);
		if (wl_display_roundtrip(c->display) < 0)
			vt_die("roundtrip failed");
		if (!preferred_scale)
			vt_client_commit(c, first);
	}
	if (!preferred_scale)
		vt_die("no preferred_scale after 10 frames");
	vt_say("preferred_scale %u", preferred_scale);

	/* As the protocol says: the logical size times the scale, rounded half away from 0. */
	int32_t width = (int32_t)lround(c->width * preferred_scale / 120.0);
	int32_t height = (int32_t)lround(c->height * preferred_scale / 120.0);
	struct vt_buffer *drawn = vt_buffer_create_sized(c, width, height, VT_WHITE);
	for (int32_t x = 1; x < width; x += 2)
		vt_buffer_fill(drawn, x, 0, 1, height, VT_BLACK);
	wp_viewport_set_destination(viewport, c->width, c->height);
	vt_client_commit(c, drawn);
	vt_client_wait_frame(c);
	vt_say("buffer %dx%d", width, height);

	/* Then only a block near the far corner changes: the panel updates that alone. */
	int32_t block = height / 10;
	vt_buffer_fill(drawn, width - 2 * block, height - 2 * block, block, block, VT_BLACK);
	vt_client_commit_rect(c, drawn, width - 2 * block, height - 2 * block, block, block);
	vt_client_wait_frame(c);

	wp_viewport_destroy(viewport);
	wp_fractional_scale_v1_destroy(fractional_scale);
	wp_viewporter_destroy(viewporter);
	wp_fractional_scale_manager_v1_destroy(manager);
	vt_buffer_destroy(first);
	vt_buffer_destroy(drawn);
	vt_client_disconnect(c);
	return 0;
}
