// SPDX-License-Identifier: MIT
/*
 * An IT8951 board as a panel device. The controller keeps its own image
 * memory and no queue: an update's pixels, taken when it was queued, are
 * loaded over the transport, then a display of its area starts on one of
 * the controller's LUT engines. Completion is read from LUTAFSR, the
 * engines' busy bits: the bit a display raised is its own, and when that
 * cannot be told (an engine freed and taken again between two reads) the
 * update completes when every engine is idle. An update over an area still
 * being driven waits for it, as the controller has no collision handling
 * the host can rely on.
 *
 * Every read of the busy bits is a command on the link that loads pixels
 * (48 bytes over USB): the threads that wait share one read per poll
 * interval, and none is made before an update may have ended, going by how
 * long the last update of its mode took.
 */
#include <epdfb.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "device.h"
#include "it8951.h"

#define ENGINES 16
/* How often the busy bits are read while an update may be ending. */
#define POLL_MS 5
/* Modes whose durations are remembered: the controller reports at most 8. */
#define MODES_SEEN 16
/* The slowest waveform at the coldest temperature is below 10 s: this is a stuck controller. */
#define STUCK_MS 30000

struct in_flight {
	uint32_t marker;
	struct vl_epd_rect rect;
	int engine; /* -1: done when every engine is idle */
	uint32_t mode;
	bool done;
	struct timespec started;
};

struct it8951_device {
	struct vl_epd_device base;
	struct vl_it8951_transport *transport;
	struct vl_it8951_sysinfo info;
	/* commands do not interleave: a load's transfers and their display go together */
	pthread_mutex_t command_lock;
	/* what the submit and wait threads share */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct vl_epd_snapshot *snapshots;
	struct in_flight in_flight[ENGINES];
	size_t n_in_flight;
	bool cancelled, gone;
	/* the busy bits' reads: one at a time, one a poll interval */
	bool reading;
	struct timespec last_read;
	/*
	 * How long the last update of each mode took, as seen (0: none yet).
	 * A later update's reads start a 32nd and a poll interval before
	 * that: a warmer panel's shorter waveform is seen a little late, and
	 * what is seen then is remembered.
	 */
	uint32_t seen_ms[MODES_SEEN];
	uint8_t *scratch; /* one transfer, under command_lock */
	uint64_t bytes_sent;
	int uevent_fd;
	char sysfs_node[64]; /* /sys/dev/char/MAJOR:MINOR of the sg node; empty: none */
};

static struct it8951_device *
it8951_from_device(struct vl_epd_device *dev)
{
	return (struct it8951_device *)dev;
}

static uint64_t
ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - t->tv_sec) * 1000 + (uint64_t)(now.tv_nsec / 1000000) -
	       (uint64_t)(t->tv_nsec / 1000000);
}

/* The board went away: waits in progress end. */
static void
mark_gone(struct it8951_device *it)
{
	pthread_mutex_lock(&it->lock);
	it->gone = true;
	pthread_cond_broadcast(&it->changed);
	pthread_mutex_unlock(&it->lock);
}

/* A transport's error as the device contract wants it: a positive errno. */
static int
device_error(struct it8951_device *it, int error)
{
	if (error == -ENODEV) {
		mark_gone(it);
		return ENODEV;
	}
	if (error != -EIO)
		return -error;
	/* the controller refuses what it cannot take, and says NOT READY with no engine free */
	uint8_t key = it->transport->sense[2] & 0xf;
	return key == 0x5 ? EINVAL : key == 0x2 ? EBUSY : EIO;
}

/*
 * With the lock held: in how many ms an update in flight may have ended, 0
 * when one may have now (or its mode has no duration seen yet), POLL_MS
 * when none is running.
 */
static uint64_t
read_due_in_ms(const struct it8951_device *it)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < it->n_in_flight; i++) {
		const struct in_flight *f = &it->in_flight[i];
		if (f->done)
			continue;
		uint32_t seen = f->mode < MODES_SEEN ? it->seen_ms[f->mode] : 0;
		uint64_t expected = seen > seen / 32 + POLL_MS ? seen - seen / 32 - POLL_MS : 0;
		uint64_t elapsed = ms_since(&f->started);
		uint64_t left = elapsed < expected ? expected - elapsed : 0;
		if (left < due)
			due = left;
	}
	return due == UINT64_MAX ? POLL_MS : due;
}

/* Reads the busy bits, when a read is due and no other thread's is, and marks what completed. */
static void
poll_engines(struct it8951_device *it)
{
	uint32_t busy;

	pthread_mutex_lock(&it->lock);
	bool due = !it->reading && ms_since(&it->last_read) >= POLL_MS && read_due_in_ms(it) == 0;
	it->reading |= due;
	pthread_mutex_unlock(&it->lock);
	if (!due)
		return;
	pthread_mutex_lock(&it->command_lock);
	int error = vl_it8951_read_register(it->transport, VL_IT8951_REG_LUTAFSR, &busy);
	pthread_mutex_unlock(&it->command_lock);
	pthread_mutex_lock(&it->lock);
	it->reading = false;
	clock_gettime(CLOCK_MONOTONIC, &it->last_read);
	for (size_t i = 0; !error && i < it->n_in_flight; i++) {
		struct in_flight *f = &it->in_flight[i];
		if (f->done || (f->engine >= 0 ? busy & (1u << f->engine) : busy != 0))
			continue;
		f->done = true;
		if (f->mode < MODES_SEEN)
			it->seen_ms[f->mode] = (uint32_t)ms_since(&f->started);
	}
	pthread_cond_broadcast(&it->changed);
	pthread_mutex_unlock(&it->lock);
	if (error)
		device_error(it, error);
}

/* Until the next read may be due, or something changed. */
static void
sleep_poll(struct it8951_device *it)
{
	struct timespec deadline;

	pthread_mutex_lock(&it->lock);
	uint64_t ms = read_due_in_ms(it);
	if (ms < POLL_MS)
		ms = POLL_MS;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)(ms / 1000);
	deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	if (!it->cancelled && !it->gone)
		pthread_cond_timedwait(&it->changed, &it->lock, &deadline);
	pthread_mutex_unlock(&it->lock);
}

/* Waits until no update in flight overlaps rect: 0, or a positive errno. */
static int
wait_for_area(struct it8951_device *it, const struct vl_epd_rect *rect)
{
	struct timespec since;

	clock_gettime(CLOCK_MONOTONIC, &since);
	for (;;) {
		bool busy = false;
		pthread_mutex_lock(&it->lock);
		int error = it->gone ? ENODEV : it->cancelled ? ECANCELED : 0;
		for (size_t i = 0; !error && i < it->n_in_flight; i++)
			busy |= !it->in_flight[i].done &&
				vl_epd_rects_overlap(&it->in_flight[i].rect, rect);
		busy |= it->n_in_flight == ENGINES;
		pthread_mutex_unlock(&it->lock);
		if (error)
			return error;
		if (!busy)
			return 0;
		if (ms_since(&since) > STUCK_MS)
			return ETIMEDOUT;
		/* a failed read waits its turn too: a board that errs is not hammered */
		poll_engines(it);
		sleep_poll(it);
	}
}

static bool
it8951_snapshot(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	struct it8951_device *it = it8951_from_device(dev);
	struct vl_epd_snapshot *snapshot = vl_epd_snapshot_take(dev, update);

	if (!snapshot)
		return false;
	pthread_mutex_lock(&it->lock);
	vl_epd_snapshot_add(&it->snapshots, snapshot);
	pthread_mutex_unlock(&it->lock);
	return true;
}

/*
 * The controller's mode for an update: the number the backend chose, the
 * controller deciding alone whether it flashes (its GC16 always does, as
 * its waveform table says); AUTO, which it lacks, is GC16.
 */
static uint32_t
mode_of(const struct it8951_device *it, const struct vl_epd_update *update)
{
	if (update->waveform == WAVEFORM_MODE_AUTO)
		return (uint32_t)it->base.waveform_map.id[WAVEFORM_MODE_GC16];
	return update->waveform;
}

/* Loads and starts one update, the command lock held: 0, or a positive errno. */
static int
show(struct it8951_device *it, const struct vl_epd_update *update, const uint8_t *pixels,
	int *engine)
{
	const struct vl_epd_rect *r = &update->rect;
	struct vl_it8951_rect area = {r->left, r->top, r->width, r->height};
	uint32_t before, after;
	uint64_t sent = it->bytes_sent;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int error = vl_it8951_load_area(it->transport, it->info.image_buffer, &area, pixels,
		r->width, it->scratch, &it->bytes_sent);

	/* what the USB link costs an update, for whoever tunes the panel (vellum -v) */
	wlr_log(WLR_DEBUG,
		"it8951: update %" PRIu32 " (%ux%u): %" PRIu64 " bytes in %" PRIu64 " ms",
		update->marker, r->width, r->height, it->bytes_sent - sent, ms_since(&start));
	if (!error)
		error = vl_it8951_read_register(it->transport, VL_IT8951_REG_LUTAFSR, &before);
	if (!error)
		error = vl_it8951_display_area(
			it->transport, it->info.image_buffer, mode_of(it, update), &area);
	if (error)
		return device_error(it, error);
	*engine = -1;
	if (vl_it8951_read_register(it->transport, VL_IT8951_REG_LUTAFSR, &after) == 0) {
		uint32_t raised = after & ~before;
		/* exactly one new bit: the engine this display took */
		if (raised && !(raised & (raised - 1)))
			*engine = __builtin_ctz(raised);
	}
	return 0;
}

static bool
it8951_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	struct it8951_device *it = it8951_from_device(dev);
	int error = 0, engine = -1;

	if (mode_of(it, update) >= it->info.modes) {
		errno = EINVAL;
		return false;
	}
	pthread_mutex_lock(&it->lock);
	struct vl_epd_snapshot *snapshot = vl_epd_snapshot_claim(&it->snapshots, update->marker);
	pthread_mutex_unlock(&it->lock);
	if (!snapshot || memcmp(&snapshot->rect, &update->rect, sizeof(update->rect)) != 0)
		error = EIO;
	if (!error)
		error = wait_for_area(it, &update->rect);
	if (!error) {
		pthread_mutex_lock(&it->command_lock);
		error = show(it, update, snapshot->pixels, &engine);
		pthread_mutex_unlock(&it->command_lock);
	}
	vl_epd_snapshot_free(snapshot);
	if (error) {
		errno = error;
		return false;
	}
	pthread_mutex_lock(&it->lock);
	struct in_flight *f = &it->in_flight[it->n_in_flight++];
	*f = (struct in_flight){
		.marker = update->marker,
		.rect = update->rect,
		.engine = engine,
		.mode = mode_of(it, update),
	};
	clock_gettime(CLOCK_MONOTONIC, &f->started);
	/* a thread that sleeps until another update's end may have to read before */
	pthread_cond_broadcast(&it->changed);
	pthread_mutex_unlock(&it->lock);
	return true;
}

/* With the lock held: the update in flight with marker, or NULL. */
static struct in_flight *
find_in_flight(struct it8951_device *it, uint32_t marker)
{
	for (size_t i = 0; i < it->n_in_flight; i++)
		if (it->in_flight[i].marker == marker)
			return &it->in_flight[i];
	return NULL;
}

static int
it8951_wait(struct vl_epd_device *dev, uint32_t marker)
{
	struct it8951_device *it = it8951_from_device(dev);

	for (;;) {
		pthread_mutex_lock(&it->lock);
		struct in_flight *f = find_in_flight(it, marker);
		int result = it->cancelled ? -ECANCELED : it->gone ? -ENODEV : 1;
		if (result > 0 && (!f || f->done || ms_since(&f->started) > STUCK_MS)) {
			result = f && !f->done ? -ETIMEDOUT : 0;
			if (f)
				*f = it->in_flight[--it->n_in_flight];
			pthread_cond_broadcast(&it->changed);
		}
		pthread_mutex_unlock(&it->lock);
		if (result <= 0)
			return result;
		poll_engines(it);
		sleep_poll(it);
	}
}

static void
it8951_cancel(struct vl_epd_device *dev)
{
	struct it8951_device *it = it8951_from_device(dev);

	pthread_mutex_lock(&it->lock);
	it->cancelled = true;
	pthread_cond_broadcast(&it->changed);
	pthread_mutex_unlock(&it->lock);
}

static int
it8951_removal_fd(struct vl_epd_device *dev)
{
	return it8951_from_device(dev)->uevent_fd;
}

/* An unplugged board's sg node leaves sysfs with it. */
static bool
it8951_removed(struct vl_epd_device *dev)
{
	struct it8951_device *it = it8951_from_device(dev);

	vl_epd_drain_uevents(it->uevent_fd);
	if (it->sysfs_node[0] && access(it->sysfs_node, F_OK) != 0 && errno == ENOENT)
		mark_gone(it);
	pthread_mutex_lock(&it->lock);
	bool gone = it->gone;
	pthread_mutex_unlock(&it->lock);
	return gone;
}

static void
it8951_destroy(struct vl_epd_device *dev)
{
	struct it8951_device *it = it8951_from_device(dev);

	vl_epd_snapshot_free_all(&it->snapshots);
	if (it->uevent_fd >= 0)
		close(it->uevent_fd);
	if (it->transport)
		it->transport->destroy(it->transport);
	pthread_mutex_destroy(&it->command_lock);
	pthread_mutex_destroy(&it->lock);
	pthread_cond_destroy(&it->changed);
	free(it->scratch);
	free(it->base.pixels);
	free(it);
}

static const struct vl_epd_device_impl it8951_impl = {
	.name = "it8951",
	.submit = it8951_submit,
	.snapshot = it8951_snapshot,
	.wait = it8951_wait,
	.cancel = it8951_cancel,
	.removal_fd = it8951_removal_fd,
	.removed = it8951_removed,
	.destroy = it8951_destroy,
};

/*
 * The controller's modes by the number it reports: the usual panels' LUTs
 * (INIT, DU, GC16, GL16, GLR16, GLD16, A2, DU4) and shorter ones that stop
 * after GL16's regal variants. DU4 drives four levels without a flash, as
 * GC4 is used here.
 */
static void
default_map(struct vl_epd_waveform_map *map, uint32_t modes)
{
	static const int32_t usual[VL_EPD_WAVEFORM_KINDS] = {
		[WAVEFORM_MODE_INIT] = 0,
		[WAVEFORM_MODE_DU] = 1,
		[WAVEFORM_MODE_GC16] = 2,
		[WAVEFORM_MODE_GL16] = 3,
		[WAVEFORM_MODE_A2] = 6,
		[WAVEFORM_MODE_GC4] = 7,
	};

	for (int kind = 0; kind < VL_EPD_WAVEFORM_KINDS; kind++)
		map->id[kind] = (uint32_t)usual[kind] < modes ? usual[kind] : -1;
}

/*
 * The VCOM the panel needs, in *in_effect: the config's, or what the board
 * holds; 0 or a message.
 */
static int
settle_vcom(struct it8951_device *it, uint16_t vcom_mv, uint16_t *in_effect, char *error,
	size_t error_size)
{
	uint16_t held = 0;
	int status = vl_it8951_get_vcom(it->transport, &held);
	/* a firmware that cannot say its VCOM is taken at its word when it is set */
	bool readable = status == 0;

	if (status && status != -EIO) {
		snprintf(error, error_size, "reading its VCOM failed: %s", strerror(-status));
		return status;
	}
	if (vcom_mv == 0) {
		if (held == 0) {
			snprintf(error, error_size,
				"the board has no VCOM set, and a wrong one ruins the panel's "
				"contrast: set the value printed on the panel's cable in the "
				"config, e.g. [panel] vcom = -1.50");
			return -EINVAL;
		}
		*in_effect = held;
		return 0;
	}
	*in_effect = vcom_mv;
	if (held == vcom_mv)
		return 0;
	status = vl_it8951_set_vcom(it->transport, vcom_mv);
	if (!status && readable)
		status = vl_it8951_get_vcom(it->transport, &held);
	if (!status && readable && held != vcom_mv)
		status = -EIO;
	if (status) {
		char sense[96];
		vl_it8951_describe_sense(it->transport->sense, sense, sizeof(sense));
		snprintf(error, error_size, "setting its VCOM to -%u.%02u V failed: %s",
			vcom_mv / 1000, vcom_mv % 1000 / 10,
			status == -EIO ? sense : strerror(-status));
	}
	return status;
}

/* The board's identity and geometry, checked: 0, or a message in error. */
static int
read_board(struct it8951_device *it, char *error, size_t error_size)
{
	struct vl_it8951_sysinfo *info = &it->info;
	bool is_it8951 = false;
	int status = vl_it8951_identify(it->transport, &is_it8951);

	if (status) {
		snprintf(error, error_size, "it does not answer INQUIRY: %s", strerror(-status));
		return status;
	}
	if (!is_it8951) {
		snprintf(error, error_size,
			"it is not an IT8951 board (its INQUIRY does not answer \"%s%s\")",
			VL_IT8951_INQUIRY_VENDOR, VL_IT8951_INQUIRY_PRODUCT);
		return -ENODEV;
	}
	status = vl_it8951_get_sysinfo(it->transport, info);
	if (status) {
		snprintf(error, error_size, "it does not answer the IT8951's system info: %s",
			status == -EIO ? "refused" : strerror(-status));
		return status;
	}
	if (info->width == 0 || info->height == 0 || info->width > 16384 || info->height > 16384 ||
		info->modes < 3 || info->modes > 16 || info->image_buffer == 0) {
		snprintf(error, error_size,
			"its system info makes no sense (panel %" PRIu32 "x%" PRIu32 ", %" PRIu32
			" modes, image buffer at 0x%" PRIx32 ")",
			info->width, info->height, info->modes, info->image_buffer);
		return -EPROTO;
	}
	return 0;
}

struct vl_epd_device *
vl_epd_it8951_open_transport(struct vl_it8951_transport *transport, const char *path,
	uint16_t vcom_mv, char *error, size_t error_size)
{
	struct it8951_device *it = calloc(1, sizeof(*it));
	char why[384];
	struct stat st;
	uint16_t vcom = 0;

	if (!it) {
		transport->destroy(transport);
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	it->transport = transport;
	it->uevent_fd = -1;
	pthread_mutex_init(&it->command_lock, NULL);
	pthread_mutex_init(&it->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&it->changed, &attr);
	pthread_condattr_destroy(&attr);
	if (read_board(it, why, sizeof(why)) != 0 ||
		settle_vcom(it, vcom_mv, &vcom, why, sizeof(why)) != 0)
		goto fail;
	struct vl_epd_device *dev = &it->base;
	dev->width = it->info.width;
	dev->height = it->info.height;
	dev->stride = dev->width;
	dev->bpp = 8;
	dev->pixels = malloc((size_t)dev->width * dev->height);
	it->scratch = malloc(VL_IT8951_MAX_TRANSFER);
	if (!dev->pixels || !it->scratch) {
		snprintf(why, sizeof(why), "out of memory");
		goto fail;
	}
	memset(dev->pixels, 0xff, (size_t)dev->width * dev->height);
	dev->impl = &it8951_impl;
	dev->has_update_ioctls = true;
	dev->group_max = 1;
	/*
	 * No depth for the backend to keep under: submit waits for a free
	 * engine and area itself, and the backend keeps a whole flush's room
	 * under a depth, which 16 engines would not leave beside one update.
	 */
	dev->max_in_flight = 0;
	default_map(&dev->waveform_map, it->info.modes);
	dev->own_waveform_map = true;
	vl_epd_waveform_table_from_map(&dev->waveforms, &dev->waveform_map);
	/* the controller's GC16 flashes whatever the update mode: only flashing refreshes take it
	 */
	for (size_t i = 0; i < dev->waveforms.n; i++)
		if (dev->waveforms.entries[i].id == WAVEFORM_MODE_GC16)
			dev->waveforms.entries[i].flashing = true;
	it->uevent_fd = vl_epd_open_uevent_socket();
	if (stat(path, &st) == 0 && S_ISCHR(st.st_mode))
		snprintf(it->sysfs_node, sizeof(it->sysfs_node), "/sys/dev/char/%u:%u",
			major(st.st_rdev), minor(st.st_rdev));
	snprintf(dev->description, sizeof(dev->description), "%s (it8951, %ux%u, 8 bpp)", path,
		dev->width, dev->height);
	/* what the controller drives its waveforms for, as a user checks a board */
	int celsius;
	if (vl_it8951_get_temperature(it->transport, &celsius) == 0)
		wlr_log(WLR_INFO, "it8951: %s: %" PRIu32 " modes, VCOM -%u.%02u V, %d °C", path,
			it->info.modes, vcom / 1000, vcom % 1000 / 10, celsius);
	return dev;

fail:
	snprintf(error, error_size, "%s: %s", path, why);
	it8951_destroy(&it->base);
	return NULL;
}

struct vl_epd_device *
vl_epd_it8951_open(const char *path, uint16_t vcom_mv, char *error, size_t error_size)
{
	struct vl_it8951_transport *transport = vl_it8951_sg_open(path);

	if (!transport) {
		snprintf(error, error_size, "%s: %s%s", path, strerror(errno),
			errno == ENOTTY ? " (not a SCSI generic node: an IT8951 board is /dev/sgN)"
					: "");
		return NULL;
	}
	return vl_epd_it8951_open_transport(transport, path, vcom_mv, error, error_size);
}

/* Whether sysfs names the SCSI generic node sgN as an IT8951 board's. */
static bool
is_board(const char *name)
{
	char path[PATH_MAX], text[32];
	static const struct {
		const char *file, *value;
	} identity[] = {{"vendor", "Generic"}, {"model", "Storage RamDisc"}};

	for (size_t i = 0; i < sizeof(identity) / sizeof(identity[0]); i++) {
		snprintf(path, sizeof(path), "/sys/class/scsi_generic/%s/device/%s", name,
			identity[i].file);
		FILE *f = fopen(path, "r");
		bool match = f && fgets(text, sizeof(text), f) &&
			     strncmp(text, identity[i].value, strlen(identity[i].value)) == 0;
		if (f)
			fclose(f);
		if (!match)
			return false;
	}
	return true;
}

bool
vl_epd_it8951_find(char *path, size_t path_size)
{
	char name[16];

	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "sg%d", i);
		if (is_board(name)) {
			snprintf(path, path_size, "/dev/%s", name);
			return true;
		}
	}
	return false;
}
