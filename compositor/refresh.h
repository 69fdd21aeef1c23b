/* SPDX-License-Identifier: MIT */
/*
 * epaper-refresh-v1, the server side: per-surface refresh modes, full
 * refreshes and feedback on when the panel showed a commit.
 */
#ifndef VL_REFRESH_H
#define VL_REFRESH_H

#include <stdbool.h>

struct vl_server;
struct vl_output;
struct vl_refresh_manager;

/* The global; it goes with the display. NULL when out of memory. */
struct vl_refresh_manager *vl_refresh_manager_create(struct vl_server *server);

/* Whether the output owes a commit even without damage: a full refresh or feedback waits. */
bool vl_refresh_commit_owed(struct vl_refresh_manager *manager);
/*
 * Attaches the hints and feedback of the surfaces shown on output to its
 * next commit, after the views' own hints.
 */
void vl_refresh_prepare_commit(struct vl_refresh_manager *manager, struct vl_output *output);
/* The configuration was reloaded: full refreshes that wait follow the new limit. */
void vl_refresh_handle_reload(struct vl_refresh_manager *manager);

#endif
