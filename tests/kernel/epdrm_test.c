// SPDX-License-Identifier: MIT
#include "epdrm_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xf86drm.h>

void
epdrm_load(const char *params)
{
	const char *epdfb_ko = getenv("EPDFB_KO");
	char path[4096], dir[4096];
	int rc;

	REQUIRE_MSG(epdfb_ko && *epdfb_ko, "EPDFB_KO is not set");
	snprintf(dir, sizeof(dir), "%s", epdfb_ko);
	snprintf(path, sizeof(path), "%s/epdrm.ko", dirname(dir));
	rc = epdrm_try_unload();
	if (rc && rc != -ENOENT)
		printf("note: rmmod epdrm before loading: %s\n", epd_errname(-rc));
	/* what modprobe would load first: the DRM core and its helpers */
	REQUIRE_MSG(system("modprobe -a drm drm_kms_helper drm_shmem_helper drm_ttm_helper") == 0,
		"modprobe of the DRM modules failed");
	epd_insmod(path, params);
}

int
epdrm_try_unload(void)
{
	if (syscall(SYS_delete_module, "epdrm", O_NONBLOCK) == 0)
		return 0;
	return -errno;
}

static int
open_epdrm_card(char *node, size_t len)
{
	for (int i = 0; i < 16; i++) {
		snprintf(node, len, "/dev/dri/card%d", i);
		int fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		drmVersionPtr version = drmGetVersion(fd);
		bool ours = version && !strcmp(version->name, "epdrm");
		drmFreeVersion(version);
		if (ours)
			return fd;
		close(fd);
	}
	return -1;
}

static uint32_t
prop_id(int fd, uint32_t object, uint32_t type, const char *name)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, object, type);
	uint32_t id = 0;

	REQUIRE(props);
	for (uint32_t i = 0; i < props->count_props && !id; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);
		if (p && !strcmp(p->name, name))
			id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	REQUIRE_MSG(id, "object %u has no property %s", object, name);
	return id;
}

void
epdrm_open(struct epdrm *e)
{
	char node[64];

	memset(e, 0, sizeof(*e));
	e->fd = open_epdrm_card(node, sizeof(node));
	REQUIRE_MSG(e->fd >= 0, "no /dev/dri/card* of epdrm");
	snprintf(e->devnode, sizeof(e->devnode), "%s", node);
	printf("device: %s\n", node);
	REQUIRE_OK(drmSetClientCap(e->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1));
	REQUIRE_OK(drmSetClientCap(e->fd, DRM_CLIENT_CAP_ATOMIC, 1));

	drmModeResPtr res = drmModeGetResources(e->fd);
	REQUIRE(res);
	REQUIRE_EQ(res->count_crtcs, 1);
	REQUIRE_EQ(res->count_connectors, 1);
	e->crtc = res->crtcs[0];
	e->connector = res->connectors[0];
	drmModeFreeResources(res);

	drmModeConnectorPtr conn = drmModeGetConnector(e->fd, e->connector);
	REQUIRE(conn);
	REQUIRE_EQ(conn->connection, DRM_MODE_CONNECTED);
	REQUIRE_EQ(conn->count_modes, 1);
	e->mode = conn->modes[0];
	drmModeFreeConnector(conn);
	REQUIRE_OK(drmModeCreatePropertyBlob(e->fd, &e->mode, sizeof(e->mode), &e->mode_blob));

	drmModePlaneResPtr planes = drmModeGetPlaneResources(e->fd);
	REQUIRE(planes);
	REQUIRE_EQ(planes->count_planes, 1);
	e->plane = planes->planes[0];
	drmModeFreePlaneResources(planes);

	struct epdrm_props *p = &e->props;
	p->crtc_active = prop_id(e->fd, e->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE");
	p->crtc_mode_id = prop_id(e->fd, e->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID");
	p->conn_crtc_id = prop_id(e->fd, e->connector, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	static const struct {
		size_t offset;
		const char *name;
	} plane_props[] = {
		{offsetof(struct epdrm_props, fb_id), "FB_ID"},
		{offsetof(struct epdrm_props, crtc_id), "CRTC_ID"},
		{offsetof(struct epdrm_props, src_x), "SRC_X"},
		{offsetof(struct epdrm_props, src_y), "SRC_Y"},
		{offsetof(struct epdrm_props, src_w), "SRC_W"},
		{offsetof(struct epdrm_props, src_h), "SRC_H"},
		{offsetof(struct epdrm_props, crtc_x), "CRTC_X"},
		{offsetof(struct epdrm_props, crtc_y), "CRTC_Y"},
		{offsetof(struct epdrm_props, crtc_w), "CRTC_W"},
		{offsetof(struct epdrm_props, crtc_h), "CRTC_H"},
		{offsetof(struct epdrm_props, damage_clips), "FB_DAMAGE_CLIPS"},
		{offsetof(struct epdrm_props, waveform), "EPD_WAVEFORM"},
		{offsetof(struct epdrm_props, full), "EPD_FULL"},
		{offsetof(struct epdrm_props, settle_fence_ptr), "EPD_SETTLE_FENCE_PTR"},
		{offsetof(struct epdrm_props, in_fence_fd), "IN_FENCE_FD"},
	};
	for (size_t i = 0; i < sizeof(plane_props) / sizeof(plane_props[0]); i++)
		*(uint32_t *)((char *)p + plane_props[i].offset) =
			prop_id(e->fd, e->plane, DRM_MODE_OBJECT_PLANE, plane_props[i].name);

	/* the panel's debugfs directory is named after the card */
	e->panel.fd = -1;
	e->panel.width = e->mode.hdisplay;
	e->panel.height = e->mode.vdisplay;
	snprintf(e->panel.dbgdir, sizeof(e->panel.dbgdir), "/sys/kernel/debug/epdrm/%s",
		strrchr(node, '/') + 1);
	REQUIRE_MSG(access(e->panel.dbgdir, F_OK) == 0, "no %s", e->panel.dbgdir);
}

void
epdrm_close(struct epdrm *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

void
epdrm_fb_create(struct epdrm *e, struct epdrm_fb *fb, uint32_t format)
{
	struct drm_mode_create_dumb create = {
		.width = e->mode.hdisplay,
		.height = e->mode.vdisplay,
		.bpp = format == DRM_FORMAT_R8 ? 8 : 32,
	};
	struct drm_mode_map_dumb map = {0};
	uint32_t handles[4] = {0}, pitches[4] = {0}, offsets[4] = {0};

	REQUIRE_OK(drmIoctl(e->fd, DRM_IOCTL_MODE_CREATE_DUMB, &create));
	fb->handle = create.handle;
	fb->width = create.width;
	fb->height = create.height;
	fb->pitch = create.pitch;
	fb->size = create.size;
	fb->format = format;
	handles[0] = fb->handle;
	pitches[0] = fb->pitch;
	REQUIRE_OK(drmModeAddFB2(
		e->fd, fb->width, fb->height, format, handles, pitches, offsets, &fb->fb_id, 0));
	map.handle = fb->handle;
	REQUIRE_OK(drmIoctl(e->fd, DRM_IOCTL_MODE_MAP_DUMB, &map));
	fb->map =
		mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, (off_t)map.offset);
	REQUIRE(fb->map != MAP_FAILED);
	epdrm_fb_fill(fb, 0, 0, fb->width, fb->height, 0xff);
}

void
epdrm_fb_destroy(struct epdrm *e, struct epdrm_fb *fb)
{
	struct drm_mode_destroy_dumb destroy = {.handle = fb->handle};

	munmap(fb->map, fb->size);
	drmModeRmFB(e->fd, fb->fb_id);
	drmIoctl(e->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	memset(fb, 0, sizeof(*fb));
}

void
epdrm_fb_fill(struct epdrm_fb *fb, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t gray)
{
	for (uint32_t row = y; row < y + h; row++) {
		uint8_t *line = fb->map + (size_t)row * fb->pitch;
		if (fb->format == DRM_FORMAT_R8) {
			memset(line + x, gray, w);
			continue;
		}
		for (uint32_t col = x; col < x + w; col++)
			((uint32_t *)line)[col] = 0xff000000u | gray * 0x010101u;
	}
}

int64_t
epdrm_waveform_value(struct epdrm *e, const char *name)
{
	drmModePropertyPtr p = drmModeGetProperty(e->fd, e->props.waveform);
	int64_t value = -1;

	REQUIRE(p);
	for (int i = 0; i < p->count_enums; i++)
		if (!strcmp(p->enums[i].name, name))
			value = (int64_t)p->enums[i].value;
	drmModeFreeProperty(p);
	return value;
}

int
epdrm_commit(struct epdrm *e, const struct epdrm_commit *c)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	const struct epdrm_props *p = &e->props;
	uint32_t clips_blob = 0;
	int ret;

	REQUIRE(req);
	drmModeAtomicAddProperty(req, e->crtc, p->crtc_active, 1);
	drmModeAtomicAddProperty(req, e->crtc, p->crtc_mode_id, e->mode_blob);
	drmModeAtomicAddProperty(req, e->connector, p->conn_crtc_id, e->crtc);
	drmModeAtomicAddProperty(req, e->plane, p->fb_id, c->fb->fb_id);
	drmModeAtomicAddProperty(req, e->plane, p->crtc_id, e->crtc);
	drmModeAtomicAddProperty(req, e->plane, p->src_x, 0);
	drmModeAtomicAddProperty(req, e->plane, p->src_y, 0);
	drmModeAtomicAddProperty(req, e->plane, p->src_w, (uint64_t)c->fb->width << 16);
	drmModeAtomicAddProperty(req, e->plane, p->src_h, (uint64_t)c->fb->height << 16);
	drmModeAtomicAddProperty(req, e->plane, p->crtc_x, (uint64_t)(int64_t)c->crtc_x);
	drmModeAtomicAddProperty(req, e->plane, p->crtc_y, 0);
	drmModeAtomicAddProperty(req, e->plane, p->crtc_w, c->fb->width);
	drmModeAtomicAddProperty(req, e->plane, p->crtc_h, c->fb->height);
	if (c->n_clips) {
		REQUIRE_OK(drmModeCreatePropertyBlob(
			e->fd, c->clips, c->n_clips * sizeof(*c->clips), &clips_blob));
		drmModeAtomicAddProperty(req, e->plane, p->damage_clips, clips_blob);
	} else if (c->raw_clips) {
		drmModeAtomicAddProperty(req, e->plane, p->damage_clips, (uint64_t)c->raw_clips);
	}
	if (c->waveform >= 0)
		drmModeAtomicAddProperty(req, e->plane, p->waveform, (uint64_t)c->waveform);
	if (c->full >= 0)
		drmModeAtomicAddProperty(req, e->plane, p->full, (uint64_t)c->full);
	if (c->settle_fd)
		drmModeAtomicAddProperty(
			req, e->plane, p->settle_fence_ptr, (uint64_t)(uintptr_t)c->settle_fd);
	if (c->in_fence)
		drmModeAtomicAddProperty(req, e->plane, p->in_fence_fd, (uint64_t)*c->in_fence);
	/* libdrm returns -errno */
	ret = drmModeAtomicCommit(
		e->fd, req, c->flags | DRM_MODE_ATOMIC_ALLOW_MODESET, c->user_data);
	drmModeAtomicFree(req);
	if (clips_blob)
		drmModeDestroyPropertyBlob(e->fd, clips_blob);
	return ret;
}

bool
epdrm_wait_idle(struct epdrm *e)
{
	return epd_wait_idle(&e->panel) == 0;
}

int
epdrm_find_fbdev(void)
{
	for (int i = 0; i < 32; i++) {
		char path[64], name[32] = "";
		snprintf(path, sizeof(path), "/sys/class/graphics/fb%d/name", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool ours = fgets(name, sizeof(name), f) && !strncmp(name, "epdrmdrmfb", 10);
		fclose(f);
		if (ours)
			return i;
	}
	return -1;
}

void
epdrm_clear_white(struct epdrm *e)
{
	struct epdrm_fb white;
	int settle = -1;

	epdrm_fb_create(e, &white, DRM_FORMAT_R8);
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = &white,
					   .waveform = epdrm_waveform_value(e, "GC16"),
					   .full = 1,
					   .settle_fd = &settle}),
		0);
	REQUIRE_MSG(epdrm_wait_idle(e), "the panel did not settle after clearing");
	if (settle >= 0)
		close(settle);
	epdrm_fb_destroy(e, &white);
}

uint64_t
epdrm_plane_property(struct epdrm *e, uint32_t prop)
{
	drmModeObjectPropertiesPtr props =
		drmModeObjectGetProperties(e->fd, e->plane, DRM_MODE_OBJECT_PLANE);
	uint64_t value = UINT64_MAX;

	REQUIRE(props);
	for (uint32_t i = 0; i < props->count_props; i++)
		if (props->props[i] == prop)
			value = props->prop_values[i];
	drmModeFreeObjectProperties(props);
	return value;
}
