// SPDX-License-Identifier: MIT
/*
 * Opening a panel device from a specification string.
 */
#include <epdfb.h>
#include <errno.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "device.h"

/*
 * The kernel announces a device's removal to every listener of its uevent
 * socket, which needs no privileges. Without it (a network namespace of its
 * own, say) the removal shows at the next update.
 */
int
vl_epd_open_uevent_socket(void)
{
	struct sockaddr_nl addr = {.nl_family = AF_NETLINK, .nl_groups = 1};
	int fd = socket(
		AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void
vl_epd_drain_uevents(int fd)
{
	char event[4096];

	while (fd >= 0 && (recv(fd, event, sizeof(event), MSG_DONTWAIT) >= 0 || errno == ENOBUFS))
		;
}

struct mxcfb_update_data
vl_epd_update_request(const struct vl_epd_update *update)
{
	return (struct mxcfb_update_data){
		.update_region =
			{
				.top = update->rect.top,
				.left = update->rect.left,
				.width = update->rect.width,
				.height = update->rect.height,
			},
		.waveform_mode = update->waveform,
		.update_mode = update->full ? UPDATE_MODE_FULL : UPDATE_MODE_PARTIAL,
		.update_marker = update->marker,
		.temp = TEMP_USE_AMBIENT,
		.flags = update->flags,
	};
}

void
vl_epd_read_waveforms(struct vl_epd_waveform_table *table,
	bool (*get)(struct epdfb_waveform_info *info, void *data), void *data)
{
	struct epdfb_waveform_info info;

	table->n = 0;
	for (uint32_t i = 0; i < VL_EPD_WAVEFORM_TABLE_SIZE; i++) {
		memset(&info, 0, sizeof(info));
		info.index = i;
		if (!get(&info, data))
			break;
		struct vl_epd_waveform_entry *wf = &table->entries[table->n++];
		wf->id = info.id;
		snprintf(wf->name, sizeof(wf->name), "%.*s", (int)sizeof(info.name), info.name);
		wf->levels = info.gray_levels;
		wf->flashing = info.flags & EPDFB_WAVEFORM_FLASHING;
		wf->flashing_full = info.flags & EPDFB_WAVEFORM_FLASHING_FULL;
	}
}

/* Decimal digits only, as uint32_t. */
static bool
parse_uint32(const char *text, uint32_t *value, const char **rest)
{
	uint64_t number = 0;
	const char *p = text;

	for (; *p >= '0' && *p <= '9'; p++) {
		number = number * 10 + (uint64_t)(*p - '0');
		if (number > UINT32_MAX)
			return false;
	}
	*value = (uint32_t)number;
	*rest = p;
	return p != text;
}

/* "WxH" at the start of text; *rest is what follows. */
static bool
parse_size(const char *text, uint32_t *width, uint32_t *height, const char **rest)
{
	return parse_uint32(text, width, rest) && **rest == 'x' &&
	       parse_uint32(*rest + 1, height, rest);
}

/* What opening a device may need beside its specification. */
struct open_args {
	unsigned int time_scale;
	uint16_t vcom_mv;
};

/* "preview" or "preview:WxH": rest is what follows "preview". */
static struct vl_epd_device *
open_preview(const char *rest, const struct open_args *args, char *error, size_t error_size)
{
	uint32_t width = VL_EPD_PREVIEW_WIDTH, height = VL_EPD_PREVIEW_HEIGHT;
	const char *end;

	if (*rest && (*rest != ':' || !parse_size(rest + 1, &width, &height, &end) || *end)) {
		snprintf(error, error_size,
			"device \"preview%s\": expected preview or preview:WIDTHxHEIGHT", rest);
		return NULL;
	}
	char why[128];
	unsigned int time_scale = args->time_scale ? args->time_scale : 100;
	struct vl_epd_device *dev =
		vl_epd_preview_open(width, height, time_scale, why, sizeof(why));
	if (!dev)
		snprintf(error, error_size, "device \"preview%s\": %s", rest, why);
	return dev;
}

/* "memory:WxH" or "memory:WxH:WMMxHMMmm": rest is what follows "memory:". */
static struct vl_epd_device *
open_memory(const char *rest, const struct open_args *args, char *error, size_t error_size)
{
	uint32_t width, height, width_mm = 0, height_mm = 0;
	const char *end;

	if (!parse_size(rest, &width, &height, &end) ||
		(*end && (*end != ':' || !parse_size(end + 1, &width_mm, &height_mm, &end) ||
				 strcmp(end, "mm") != 0))) {
		snprintf(error, error_size,
			"device \"memory:%s\": expected memory:WIDTHxHEIGHT or "
			"memory:WIDTHxHEIGHT:WIDTH_MMxHEIGHT_MMmm",
			rest);
		return NULL;
	}
	struct vl_epd_device *dev = vl_epd_memory_open(width, height, error, error_size);
	if (dev) {
		dev->width_mm = width_mm;
		dev->height_mm = height_mm;
	}
	return dev;
}

static struct vl_epd_device *
open_drm(const char *rest, const struct open_args *args, char *error, size_t error_size)
{
	return vl_epd_drm_open(rest, error, error_size);
}

static struct vl_epd_device *
open_it8951(const char *rest, const struct open_args *args, char *error, size_t error_size)
{
	return vl_epd_it8951_open(rest, args->vcom_mv, error, error_size);
}

/* The devices a specification names by its prefix; any other is a framebuffer's path. */
static const struct {
	const char *prefix;
	struct vl_epd_device *(*open)(
		const char *rest, const struct open_args *args, char *error, size_t error_size);
} device_kinds[] = {
	{"memory:", open_memory},
	{"drm:", open_drm},
	{"it8951:", open_it8951},
	{"preview", open_preview},
};

/*
 * The first framebuffer whose driver speaks the EPDC update API, else the
 * first epdrm card, else the first IT8951 board.
 */
static struct vl_epd_device *
open_auto(const struct open_args *args, char *error, size_t error_size)
{
	char path[32], name[32];

	for (int i = 0; i < 32; i++) {
		snprintf(path, sizeof(path), "/sys/class/graphics/fb%d/name", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool epd =
			fgets(name, sizeof(name), f) &&
			(strncmp(name, "epdfb", 5) == 0 || strncmp(name, "mxc_epdc_fb", 11) == 0);
		fclose(f);
		if (!epd)
			continue;
		snprintf(path, sizeof(path), "/dev/fb%d", i);
		return vl_epd_fbdev_open(path, error, error_size);
	}
	if (vl_epd_drm_find_epdrm(path, sizeof(path)))
		return vl_epd_drm_open(path, error, error_size);
	if (vl_epd_it8951_find(path, sizeof(path)))
		return open_it8951(path, args, error, error_size);
	snprintf(error, error_size,
		"no e-paper framebuffer (epdfb or mxc_epdc_fb), epdrm card or IT8951 board was "
		"found");
	return NULL;
}

static struct vl_epd_device *
open_spec(const char *spec, const struct open_args *args, char *error, size_t error_size)
{
	if (!spec || strcmp(spec, "auto") == 0)
		return open_auto(args, error, error_size);
	for (size_t i = 0; i < sizeof(device_kinds) / sizeof(device_kinds[0]); i++) {
		size_t length = strlen(device_kinds[i].prefix);
		if (strncmp(spec, device_kinds[i].prefix, length) == 0)
			return device_kinds[i].open(spec + length, args, error, error_size);
	}
	return vl_epd_fbdev_open(spec, error, error_size);
}

bool
vl_epd_device_check(const struct vl_epd_device *dev, char *error, size_t error_size)
{
	const struct vl_epd_device_impl *impl = dev->impl;
	const char *broken = NULL;

	if (!impl->submit || !impl->destroy)
		broken = "it lacks submit or destroy";
	else if (!impl->wait == !impl->completion_fd)
		broken = "it needs either wait or completion_fd";
	else if (!impl->completion_fd != !impl->collect_completion)
		broken = "completion_fd and collect_completion go together";
	else if (impl->submit_group && dev->group_max < 2)
		/* the submit thread would take groups of nothing, for ever */
		broken = "submit_group needs a group_max of at least 2";
	else if (!impl->removal_fd != !impl->removed)
		broken = "removal_fd and removed go together";
	else if (!dev->pixels || dev->width == 0 || dev->height == 0 ||
		 (dev->bpp != 8 && dev->bpp != 32) || dev->stride / (dev->bpp / 8) < dev->width)
		broken = "its framebuffer is not 8 or 32 bpp pixels of its size";
	if (!broken)
		return true;
	snprintf(error, error_size, "%s: device %s breaks the device contract: %s",
		dev->description, impl->name ? impl->name : "(unnamed)", broken);
	return false;
}

struct vl_epd_device *
vl_epd_device_open(const char *spec, const char *waveform_map, unsigned int time_scale,
	uint16_t vcom_mv, char *error, size_t error_size)
{
	const struct open_args args = {.time_scale = time_scale, .vcom_mv = vcom_mv};
	struct vl_epd_waveform_map map;
	struct vl_epd_device *dev;

	vl_epd_waveform_map_identity(&map);
	if (waveform_map && !vl_epd_waveform_map_parse(waveform_map, &map, error, error_size))
		return NULL;
	dev = open_spec(spec, &args, error, error_size);
	if (!dev)
		return NULL;
	atomic_init(&dev->refs, 1);
	if (!vl_epd_device_check(dev, error, error_size)) {
		vl_epd_device_unref(dev);
		return NULL;
	}
	if (!waveform_map && dev->own_waveform_map)
		return dev;
	dev->waveform_map = map;
	if (!waveform_map)
		return dev;
	if (!dev->has_update_ioctls) {
		snprintf(error, error_size,
			"%s takes no update ioctls, so a waveform map cannot apply to it",
			dev->description);
		vl_epd_device_unref(dev);
		return NULL;
	}
	vl_epd_waveform_table_from_map(&dev->waveforms, &map);
	return dev;
}

bool
vl_epd_error_is_permanent(int error)
{
	return error == EINVAL || error == EOPNOTSUPP || error == ERANGE;
}

uint32_t
vl_epd_device_safe_waveform(const struct vl_epd_device *dev)
{
	if (dev->waveform_map.id[WAVEFORM_MODE_GC16] < 0)
		return WAVEFORM_MODE_AUTO;
	return vl_epd_waveform_map_device_id(&dev->waveform_map, WAVEFORM_MODE_GC16);
}

bool
vl_epd_rects_overlap(const struct vl_epd_rect *a, const struct vl_epd_rect *b)
{
	return a->left < b->left + b->width && b->left < a->left + a->width &&
	       a->top < b->top + b->height && b->top < a->top + a->height;
}

struct vl_epd_device *
vl_epd_device_ref(struct vl_epd_device *dev)
{
	atomic_fetch_add(&dev->refs, 1);
	return dev;
}

void
vl_epd_device_unref(struct vl_epd_device *dev)
{
	if (dev && atomic_fetch_sub(&dev->refs, 1) == 1)
		dev->impl->destroy(dev);
}
