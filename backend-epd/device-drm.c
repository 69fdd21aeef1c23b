// SPDX-License-Identifier: MIT
/*
 * DRM devices: epdrm, whose primary plane takes EPD_WAVEFORM, EPD_FULL and
 * EPD_SETTLE_FENCE_PTR (epdrm(4)), and any other atomic KMS driver, driven
 * with damage clips only (the generic path for mainline e-paper panels such
 * as repaper). The panel's pixels are one dumb buffer, mapped; each group of
 * a flush's updates that share a waveform is an atomic commit of that
 * buffer with the updates' rects as its damage clips, and with epdrm their
 * markers complete when the commit's settle fence signals, which the
 * backend polls on its event loop.
 */
#include <drm_fourcc.h>
#include <epdfb.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "device.h"

/* Settle fences not collected yet: more than the backend keeps in flight. */
#define DRM_FENCES_MAX 512
/*
 * A full update queue refuses commits: wait for an update to complete,
 * then try again, for at most this long (a stuck panel's waits end after
 * 5 s) before the backend is told the queue is still full.
 */
#define DRM_BUSY_TIMEOUT_MS 5000
/* epdrm(4) shows more clips than this as their bounding box */
#define EPDRM_CLIPS_MAX 4
/*
 * epdrm's queue: 16 updates running and 64 queued, and it refuses a commit
 * while fewer than 8 slots are free. The backend keeps fewer in flight.
 */
#define EPDRM_MAX_IN_FLIGHT 48
/* other drivers: as many as a flush has */
#define KMS_CLIPS_MAX 16

struct drm_props {
	uint32_t crtc_active, crtc_mode_id, conn_crtc_id;
	uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
	uint32_t damage_clips;
	/* epdrm's; 0 on other drivers */
	uint32_t waveform, full, settle_fence_ptr;
};

struct settle_fence {
	uint32_t marker;
	int fd;
};

struct drm_epd_device {
	struct vl_epd_device base;
	int fd;
	uint32_t crtc, connector, plane;
	drmModeModeInfo mode;
	uint32_t mode_blob, fb_id, handle;
	uint64_t auto_waveform;
	struct drm_props props;
	bool epd, modeset_done;
	uint8_t *map;
	size_t map_size;
	/* the kernel's device events, which tell when the device may be gone */
	int uevent_fd;
	/* cancel: written once, makes a submission's wait for room return */
	int cancel_fd;
	/* the fences, between the submit thread and the event loop */
	pthread_mutex_t lock;
	struct settle_fence fences[DRM_FENCES_MAX];
	size_t n_fences;
};

static struct drm_epd_device *
drm_from_device(struct vl_epd_device *dev)
{
	return (struct drm_epd_device *)dev;
}

/* The property name of object: its id (0: absent), and its value in *value when not NULL. */
static uint32_t
find_prop_value(int fd, uint32_t object, uint32_t type, const char *name, uint64_t *value)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, object, type);
	uint32_t id = 0;

	if (!props)
		return 0;
	for (uint32_t i = 0; i < props->count_props && !id; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);
		if (p && strcmp(p->name, name) == 0) {
			id = p->prop_id;
			if (value)
				*value = props->prop_values[i];
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

static uint32_t
find_prop(int fd, uint32_t object, uint32_t type, const char *name)
{
	return find_prop_value(fd, object, type, name, NULL);
}

/* The value EPD_WAVEFORM gives a waveform id: itself if listed, else auto. */
static uint64_t
waveform_value(struct drm_epd_device *drm, uint32_t waveform)
{
	return vl_epd_waveform_find(&drm->base.waveforms, waveform) ? waveform : drm->auto_waveform;
}

/* Whether EPD_FULL may go with this waveform: it flashes in full mode. */
static bool
flashes_full(struct drm_epd_device *drm, uint32_t waveform)
{
	const struct vl_epd_waveform_entry *wf =
		vl_epd_waveform_find(&drm->base.waveforms, waveform);

	return !wf || wf->flashing || wf->flashing_full;
}

static void
add_plane_setup(struct drm_epd_device *drm, drmModeAtomicReqPtr req)
{
	const struct drm_props *p = &drm->props;

	drmModeAtomicAddProperty(req, drm->crtc, p->crtc_active, 1);
	drmModeAtomicAddProperty(req, drm->crtc, p->crtc_mode_id, drm->mode_blob);
	drmModeAtomicAddProperty(req, drm->connector, p->conn_crtc_id, drm->crtc);
	drmModeAtomicAddProperty(req, drm->plane, p->crtc_id, drm->crtc);
	drmModeAtomicAddProperty(req, drm->plane, p->src_x, 0);
	drmModeAtomicAddProperty(req, drm->plane, p->src_y, 0);
	drmModeAtomicAddProperty(req, drm->plane, p->src_w, (uint64_t)drm->base.width << 16);
	drmModeAtomicAddProperty(req, drm->plane, p->src_h, (uint64_t)drm->base.height << 16);
	drmModeAtomicAddProperty(req, drm->plane, p->crtc_x, 0);
	drmModeAtomicAddProperty(req, drm->plane, p->crtc_y, 0);
	drmModeAtomicAddProperty(req, drm->plane, p->crtc_w, drm->base.width);
	drmModeAtomicAddProperty(req, drm->plane, p->crtc_h, drm->base.height);
}

/* One commit of the updates, which share their kind; 0 or a negative errno. */
static int
commit_updates(
	struct drm_epd_device *drm, const struct vl_epd_update *updates, size_t n, int *settle_fd)
{
	const struct vl_epd_update *update = &updates[0];
	const struct drm_props *p = &drm->props;
	struct drm_mode_rect clips[KMS_CLIPS_MAX];
	uint32_t clip_blob = 0, flags = 0;
	drmModeAtomicReqPtr req;
	int ret;

	for (size_t i = 0; i < n; i++) {
		const struct vl_epd_rect *r = &updates[i].rect;
		clips[i] = (struct drm_mode_rect){
			.x1 = (int32_t)r->left,
			.y1 = (int32_t)r->top,
			.x2 = (int32_t)(r->left + r->width),
			.y2 = (int32_t)(r->top + r->height),
		};
	}
	req = drmModeAtomicAlloc();
	if (!req)
		return -ENOMEM;
	ret = drmModeCreatePropertyBlob(drm->fd, clips, n * sizeof(clips[0]), &clip_blob);
	if (ret)
		goto out;
	if (!drm->modeset_done) {
		add_plane_setup(drm, req);
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	}
	drmModeAtomicAddProperty(req, drm->plane, p->fb_id, drm->fb_id);
	drmModeAtomicAddProperty(req, drm->plane, p->damage_clips, clip_blob);
	if (drm->epd) {
		bool full = update->full && flashes_full(drm, update->waveform);

		drmModeAtomicAddProperty(
			req, drm->plane, p->waveform, waveform_value(drm, update->waveform));
		drmModeAtomicAddProperty(req, drm->plane, p->full, full);
		drmModeAtomicAddProperty(
			req, drm->plane, p->settle_fence_ptr, (uint64_t)(uintptr_t)settle_fd);
	}
	ret = drmModeAtomicCommit(drm->fd, req, flags, NULL);
	if (ret == 0)
		drm->modeset_done = true;
out:
	if (clip_blob)
		drmModeDestroyPropertyBlob(drm->fd, clip_blob);
	drmModeAtomicFree(req);
	return ret;
}

/* Waits for a settle fence to signal, or for cancel. */
static void
wait_fence(struct drm_epd_device *drm, int fd)
{
	struct pollfd fds[2] = {
		{.fd = fd, .events = POLLIN},
		{.fd = drm->cancel_fd, .events = POLLIN},
	};

	while (poll(fds, 2, -1) < 0 && errno == EINTR)
		;
}

static bool
cancelled(struct drm_epd_device *drm)
{
	struct pollfd fd = {.fd = drm->cancel_fd, .events = POLLIN};

	return poll(&fd, 1, 0) > 0;
}

static int64_t
now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/*
 * Waits at most timeout_ms for room in the panel's queue: for one of the
 * settle fences that have not signalled yet to signal, or for cancel. A
 * signalled fence that the event loop has not collected yet frees nothing
 * more, so those are left out. Without a fence to wait for (the queue is
 * full of updates that are not the backend's, the fbdev emulation's say),
 * it waits a short while.
 */
static void
wait_for_room(struct drm_epd_device *drm, int timeout_ms)
{
	static const int idle_ms = 20;
	struct pollfd fds[DRM_FENCES_MAX + 1];
	size_t n = 0, running = 0;

	/* copies: the event loop may collect and close a fence meanwhile */
	pthread_mutex_lock(&drm->lock);
	for (size_t i = 0; i < drm->n_fences; i++) {
		int fd = fcntl(drm->fences[i].fd, F_DUPFD_CLOEXEC, 0);
		if (fd >= 0)
			fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	pthread_mutex_unlock(&drm->lock);
	if (n > 0 && poll(fds, n, 0) < 0)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		if (fds[i].revents)
			close(fds[i].fd);
		else
			fds[running++] = fds[i];
	}
	fds[running] = (struct pollfd){.fd = drm->cancel_fd, .events = POLLIN};
	if (running == 0 && timeout_ms > idle_ms)
		timeout_ms = idle_ms;
	while (poll(fds, running + 1, timeout_ms) < 0 && errno == EINTR)
		;
	for (size_t i = 0; i < running; i++)
		close(fds[i].fd);
}

static bool
drm_submit_group(struct vl_epd_device *dev, const struct vl_epd_update *updates, size_t n)
{
	struct drm_epd_device *drm = drm_from_device(dev);
	int settle_fd = -1, ret;

	if (n == 0 || n > dev->group_max) {
		errno = EINVAL;
		return false;
	}
	pthread_mutex_lock(&drm->lock);
	bool room = drm->n_fences + n <= DRM_FENCES_MAX;
	pthread_mutex_unlock(&drm->lock);
	if (!room) {
		/* the backend keeps fewer in flight: a fence it never collected */
		errno = ENOSPC;
		return false;
	}
	int64_t deadline = now_ms() + DRM_BUSY_TIMEOUT_MS;
	for (;;) {
		ret = commit_updates(drm, updates, n, drm->epd ? &settle_fd : NULL);
		int64_t left_ms = deadline - now_ms();
		if (ret != -EBUSY || left_ms <= 0 || cancelled(drm))
			break;
		/* the panel's queue is full: room comes as updates complete */
		wait_for_room(drm, (int)left_ms);
	}
	if (ret) {
		errno = -ret;
		return false;
	}
	if (settle_fd < 0)
		return true;
	/* each marker gets a descriptor of the commit's fence, polled and collected on its own */
	int fds[KMS_CLIPS_MAX] = {settle_fd};
	size_t n_fds = 1;
	while (n_fds < n && (fds[n_fds] = fcntl(settle_fd, F_DUPFD_CLOEXEC, 0)) >= 0)
		n_fds++;
	if (n_fds < n) {
		/* out of descriptors: the markers complete with the commit once it has settled */
		wait_fence(drm, settle_fd);
		while (n_fds > 0)
			close(fds[--n_fds]);
		return true;
	}
	pthread_mutex_lock(&drm->lock);
	for (size_t i = 0; i < n; i++)
		drm->fences[drm->n_fences++] = (struct settle_fence){updates[i].marker, fds[i]};
	pthread_mutex_unlock(&drm->lock);
	return true;
}

static bool
drm_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	return drm_submit_group(dev, update, 1);
}

/* With the lock held: the index of the marker's fence, or -1. */
static ssize_t
find_fence(const struct drm_epd_device *drm, uint32_t marker)
{
	for (size_t i = 0; i < drm->n_fences; i++) {
		if (drm->fences[i].marker == marker)
			return (ssize_t)i;
	}
	return -1;
}

static int
drm_completion_fd(struct vl_epd_device *dev, uint32_t marker)
{
	struct drm_epd_device *drm = drm_from_device(dev);

	pthread_mutex_lock(&drm->lock);
	ssize_t i = find_fence(drm, marker);
	/* a driver without settle fences: the commit is all there is to know */
	int fd = i < 0 ? -1 : drm->fences[i].fd;
	pthread_mutex_unlock(&drm->lock);
	return fd;
}

/* The fence has signalled (or there is none): its status, and it is closed. */
static int
drm_collect_completion(struct vl_epd_device *dev, uint32_t marker)
{
	struct drm_epd_device *drm = drm_from_device(dev);
	struct sync_file_info info = {0};
	int fd = -1;

	pthread_mutex_lock(&drm->lock);
	ssize_t i = find_fence(drm, marker);
	if (i >= 0) {
		fd = drm->fences[i].fd;
		memmove(drm->fences + i, drm->fences + i + 1,
			(drm->n_fences - (size_t)i - 1) * sizeof(drm->fences[0]));
		drm->n_fences--;
	}
	pthread_mutex_unlock(&drm->lock);
	if (fd < 0)
		return 0;
	int ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0 ? -errno : info.status;
	close(fd);
	/* status 1: signalled; 0 would be a fence still running, never polled readable */
	return ret < 0 ? ret : 0;
}

static void
drm_cancel(struct vl_epd_device *dev)
{
	uint64_t one = 1;

	if (write(drm_from_device(dev)->cancel_fd, &one, sizeof(one)) < 0)
		return;
}

static int
drm_removal_fd(struct vl_epd_device *dev)
{
	return drm_from_device(dev)->uevent_fd;
}

/* An unplugged DRM device answers every ioctl with ENODEV. */
static bool
drm_removed(struct vl_epd_device *dev)
{
	struct drm_epd_device *drm = drm_from_device(dev);
	struct drm_mode_card_res res = {0};

	vl_epd_drain_uevents(drm->uevent_fd);
	return drmIoctl(drm->fd, DRM_IOCTL_MODE_GETRESOURCES, &res) < 0 && errno == ENODEV;
}

static void
drm_destroy(struct vl_epd_device *dev)
{
	struct drm_epd_device *drm = drm_from_device(dev);
	struct drm_mode_destroy_dumb destroy = {.handle = drm->handle};

	for (size_t i = 0; i < drm->n_fences; i++)
		close(drm->fences[i].fd);
	if (drm->map)
		munmap(drm->map, drm->map_size);
	if (drm->fb_id)
		drmModeRmFB(drm->fd, drm->fb_id);
	if (drm->handle)
		drmIoctl(drm->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	if (drm->mode_blob)
		drmModeDestroyPropertyBlob(drm->fd, drm->mode_blob);
	if (drm->uevent_fd >= 0)
		close(drm->uevent_fd);
	if (drm->cancel_fd >= 0)
		close(drm->cancel_fd);
	if (drm->fd >= 0)
		close(drm->fd);
	pthread_mutex_destroy(&drm->lock);
	free(drm);
}

static const struct vl_epd_device_impl epdrm_impl = {
	.name = "epdrm",
	.submit = drm_submit,
	.submit_group = drm_submit_group,
	.completion_fd = drm_completion_fd,
	.collect_completion = drm_collect_completion,
	.cancel = drm_cancel,
	.removal_fd = drm_removal_fd,
	.removed = drm_removed,
	.destroy = drm_destroy,
};

static const struct vl_epd_device_impl kms_impl = {
	.name = "drm",
	.submit = drm_submit,
	.submit_group = drm_submit_group,
	.completion_fd = drm_completion_fd,
	.collect_completion = drm_collect_completion,
	.cancel = drm_cancel,
	.removal_fd = drm_removal_fd,
	.removed = drm_removed,
	.destroy = drm_destroy,
};

/* The index of a CRTC the connector's encoders can drive, or -1. */
static int
crtc_index_for(int fd, const drmModeRes *res, const drmModeConnector *conn)
{
	uint32_t possible = 0;

	for (int e = 0; e < conn->count_encoders; e++) {
		drmModeEncoderPtr enc = drmModeGetEncoder(fd, conn->encoders[e]);
		if (enc)
			possible |= enc->possible_crtcs;
		drmModeFreeEncoder(enc);
	}
	for (int c = 0; c < res->count_crtcs; c++)
		if (possible & (1u << c))
			return c;
	return -1;
}

/* The primary plane of the CRTC of index crtc_index; R8 makes the device 8 bpp. */
static bool
find_primary_plane(struct drm_epd_device *drm, int crtc_index)
{
	drmModePlaneResPtr planes = drmModeGetPlaneResources(drm->fd);
	bool found = false;

	for (uint32_t p = 0; planes && p < planes->count_planes && !found; p++) {
		drmModePlanePtr plane = drmModeGetPlane(drm->fd, planes->planes[p]);
		uint64_t type = UINT64_MAX;

		find_prop_value(drm->fd, planes->planes[p], DRM_MODE_OBJECT_PLANE, "type", &type);
		if (plane && (plane->possible_crtcs & (1u << crtc_index)) &&
			type == DRM_PLANE_TYPE_PRIMARY) {
			drm->plane = plane->plane_id;
			found = true;
			for (uint32_t f = 0; f < plane->count_formats; f++)
				if (plane->formats[f] == DRM_FORMAT_R8)
					drm->base.bpp = 8;
		}
		drmModeFreePlane(plane);
	}
	drmModeFreePlaneResources(planes);
	return found;
}

/* Takes conn, its preferred mode, a CRTC and its primary plane, if it has them. */
static bool
use_connector(struct drm_epd_device *drm, const drmModeRes *res, const drmModeConnector *conn)
{
	if (conn->connection != DRM_MODE_CONNECTED || conn->count_modes == 0)
		return false;
	int crtc_index = crtc_index_for(drm->fd, res, conn);
	if (crtc_index < 0 || !find_primary_plane(drm, crtc_index))
		return false;
	drm->crtc = res->crtcs[crtc_index];
	drm->connector = conn->connector_id;
	drm->mode = conn->modes[0];
	for (int m = 0; m < conn->count_modes; m++)
		if (conn->modes[m].type & DRM_MODE_TYPE_PREFERRED)
			drm->mode = conn->modes[m];
	drm->base.width_mm = conn->mmWidth;
	drm->base.height_mm = conn->mmHeight;
	return true;
}

/* The first connected connector with a mode, a CRTC for it and its primary plane. */
static bool
find_pipeline(struct drm_epd_device *drm, char *error, size_t error_size, const char *path)
{
	drmModeResPtr res = drmModeGetResources(drm->fd);
	bool found = false;

	if (!res) {
		snprintf(error, error_size, "%s: no KMS resources: %s", path, strerror(errno));
		return false;
	}
	for (int i = 0; i < res->count_connectors && !found; i++) {
		drmModeConnectorPtr conn = drmModeGetConnector(drm->fd, res->connectors[i]);
		found = conn && use_connector(drm, res, conn);
		drmModeFreeConnector(conn);
	}
	drmModeFreeResources(res);
	if (!found)
		snprintf(error, error_size,
			"%s: no connected connector with a mode, a CRTC and a primary plane", path);
	return found;
}

static bool
find_props(struct drm_epd_device *drm)
{
	struct drm_props *p = &drm->props;
	int fd = drm->fd;

	p->crtc_active = find_prop(fd, drm->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE");
	p->crtc_mode_id = find_prop(fd, drm->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID");
	p->conn_crtc_id = find_prop(fd, drm->connector, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	p->fb_id = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "FB_ID");
	p->crtc_id = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID");
	p->src_x = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "SRC_X");
	p->src_y = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "SRC_Y");
	p->src_w = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "SRC_W");
	p->src_h = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "SRC_H");
	p->crtc_x = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "CRTC_X");
	p->crtc_y = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "CRTC_Y");
	p->crtc_w = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "CRTC_W");
	p->crtc_h = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "CRTC_H");
	p->damage_clips = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "FB_DAMAGE_CLIPS");
	p->waveform = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "EPD_WAVEFORM");
	p->full = find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "EPD_FULL");
	p->settle_fence_ptr =
		find_prop(fd, drm->plane, DRM_MODE_OBJECT_PLANE, "EPD_SETTLE_FENCE_PTR");
	drm->epd = p->waveform && p->full && p->settle_fence_ptr;
	return p->crtc_active && p->crtc_mode_id && p->conn_crtc_id && p->fb_id && p->crtc_id &&
	       p->src_x && p->src_y && p->src_w && p->src_h && p->crtc_x && p->crtc_y &&
	       p->crtc_w && p->crtc_h && p->damage_clips;
}

/*
 * epdrm's waveforms are the enum's entries by epdfb's names: their levels
 * and flashes are those of the BSP's table, their ids the enum's values.
 */
static void
discover_waveforms(struct drm_epd_device *drm)
{
	struct vl_epd_waveform_table defaults, *table = &drm->base.waveforms;
	drmModePropertyPtr prop = drmModeGetProperty(drm->fd, drm->props.waveform);

	vl_epd_waveform_table_default(&defaults);
	table->n = 0;
	drm->auto_waveform = WAVEFORM_MODE_AUTO;
	for (int i = 0; prop && i < prop->count_enums; i++) {
		if (strcmp(prop->enums[i].name, "auto") == 0) {
			drm->auto_waveform = prop->enums[i].value;
			continue;
		}
		for (size_t d = 0; d < defaults.n && table->n < VL_EPD_WAVEFORM_TABLE_SIZE; d++) {
			if (strcmp(defaults.entries[d].name, prop->enums[i].name) != 0)
				continue;
			table->entries[table->n] = defaults.entries[d];
			table->entries[table->n].id = (uint32_t)prop->enums[i].value;
			table->n++;
		}
	}
	drmModeFreeProperty(prop);
	if (table->n == 0)
		vl_epd_waveform_table_default(table);
}

static bool
create_buffer(struct drm_epd_device *drm, const char *path, char *error, size_t error_size)
{
	struct drm_mode_create_dumb create = {
		.width = drm->base.width,
		.height = drm->base.height,
		.bpp = drm->base.bpp,
	};
	struct drm_mode_map_dumb map = {0};
	uint32_t handles[4] = {0}, pitches[4] = {0}, offsets[4] = {0};
	uint32_t format = drm->base.bpp == 8 ? DRM_FORMAT_R8 : DRM_FORMAT_XRGB8888;

	if (drmIoctl(drm->fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0) {
		snprintf(
			error, error_size, "%s: cannot create a buffer: %s", path, strerror(errno));
		return false;
	}
	drm->handle = create.handle;
	handles[0] = create.handle;
	pitches[0] = create.pitch;
	if (drmModeAddFB2(drm->fd, drm->base.width, drm->base.height, format, handles, pitches,
		    offsets, &drm->fb_id, 0) != 0) {
		snprintf(error, error_size, "%s: cannot add a framebuffer: %s", path,
			strerror(errno));
		return false;
	}
	map.handle = create.handle;
	if (drmIoctl(drm->fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0) {
		snprintf(error, error_size, "%s: cannot map the buffer: %s", path, strerror(errno));
		return false;
	}
	drm->map = mmap(
		NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, drm->fd, (off_t)map.offset);
	if (drm->map == MAP_FAILED) {
		drm->map = NULL;
		snprintf(error, error_size, "%s: cannot map the buffer: %s", path, strerror(errno));
		return false;
	}
	drm->map_size = create.size;
	drm->base.pixels = drm->map;
	drm->base.stride = create.pitch;
	/* what a panel shows before anything is drawn */
	memset(drm->map, 0xff, create.size);
	return true;
}

/* Opens "drm:/dev/dri/cardN". */
struct vl_epd_device *
vl_epd_drm_open(const char *path, char *error, size_t error_size)
{
	struct drm_epd_device *drm = calloc(1, sizeof(*drm));

	if (!drm) {
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&drm->lock, NULL);
	drm->uevent_fd = -1;
	drm->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	drm->base.impl = &kms_impl;
	drm->base.bpp = 32;
	drm->fd = open(path, O_RDWR | O_CLOEXEC);
	if (drm->fd < 0) {
		snprintf(error, error_size, "cannot open %s: %s", path, strerror(errno));
		goto err;
	}
	if (drmSetClientCap(drm->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) != 0 ||
		drmSetClientCap(drm->fd, DRM_CLIENT_CAP_ATOMIC, 1) != 0) {
		snprintf(error, error_size, "%s is not an atomic KMS device", path);
		goto err;
	}
	if (!find_pipeline(drm, error, error_size, path))
		goto err;
	if (!find_props(drm)) {
		snprintf(error, error_size, "%s: its primary plane takes no damage clips", path);
		goto err;
	}
	drm->base.width = drm->mode.hdisplay;
	drm->base.height = drm->mode.vdisplay;
	if (drmModeCreatePropertyBlob(drm->fd, &drm->mode, sizeof(drm->mode), &drm->mode_blob) !=
		0) {
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
		goto err;
	}
	if (!create_buffer(drm, path, error, error_size))
		goto err;
	if (drm->epd) {
		drm->base.impl = &epdrm_impl;
		discover_waveforms(drm);
	} else {
		vl_epd_waveform_table_default(&drm->base.waveforms);
	}
	drm->base.has_update_ioctls = drm->epd;
	drm->base.retargets_fast = drm->epd;
	drm->base.group_max = drm->epd ? EPDRM_CLIPS_MAX : KMS_CLIPS_MAX;
	drm->base.max_in_flight = drm->epd ? EPDRM_MAX_IN_FLIGHT : 0;
	snprintf(drm->base.description, sizeof(drm->base.description), "%s (%s, %ux%u, %u bpp)",
		path, drm->base.impl->name, drm->base.width, drm->base.height, drm->base.bpp);
	drm->uevent_fd = vl_epd_open_uevent_socket();
	return &drm->base;

err:
	drm_destroy(&drm->base);
	return NULL;
}

/* The first epdrm device: its /dev/dri/cardN path, or false. */
bool
vl_epd_drm_find_epdrm(char *path, size_t path_size)
{
	for (int i = 0; i < 16; i++) {
		snprintf(path, path_size, "/dev/dri/card%d", i);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		drmVersionPtr version = drmGetVersion(fd);
		bool epdrm = version && strcmp(version->name, "epdrm") == 0;
		drmFreeVersion(version);
		close(fd);
		if (epdrm)
			return true;
	}
	return false;
}
