// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on a plain KMS driver, the generic path for mainline
 * e-paper panels: QEMU's Cirrus card under the cirrus driver, which has damage
 * clips and none of epdrm's properties, and copies each commit's damage from
 * the framebuffer into the card's video memory, as repaper sends it to its
 * panel. What the card shows, read back from that memory through the PCI
 * BAR, is the scene pixel for pixel, also where a moved rect was: the
 * commits' damage clips covered every change. Completion is the commit
 * itself: feedback says settled, and no thread waits.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

/* the Cirrus card's video memory */
#define VRAM_SIZE (4 * 1024 * 1024)
/* the card's largest pitch: wider XRGB8888 modes are shown as RGB888 */
#define CIRRUS_MAX_PITCH (0x1ff << 3)

struct card {
	char node[32];
	int index;
	uint32_t width, height;
};

/* The Cirrus card's node and the mode the backend takes (the preferred one). */
static bool
find_cirrus(struct card *card)
{
	for (int i = 0; i < 16; i++) {
		snprintf(card->node, sizeof(card->node), "/dev/dri/card%d", i);
		int fd = open(card->node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		drmVersionPtr version = drmGetVersion(fd);
		bool cirrus = version && !strcmp(version->name, "cirrus");
		drmFreeVersion(version);
		drmModeResPtr res = cirrus ? drmModeGetResources(fd) : NULL;
		drmModeConnectorPtr conn = res && res->count_connectors
						   ? drmModeGetConnector(fd, res->connectors[0])
						   : NULL;
		for (int m = 0; conn && m < conn->count_modes; m++) {
			if (m == 0 || conn->modes[m].type & DRM_MODE_TYPE_PREFERRED) {
				card->width = conn->modes[m].hdisplay;
				card->height = conn->modes[m].vdisplay;
			}
		}
		bool found = conn && conn->count_modes > 0;
		drmModeFreeConnector(conn);
		drmModeFreeResources(res);
		close(fd);
		if (found) {
			card->index = i;
			return true;
		}
	}
	return false;
}

/* Pixels of the card's memory unlike the gray image: every one is compared. */
static size_t
count_mismatches(const struct card *card, const volatile uint8_t *vram, const uint8_t *expect)
{
	uint32_t cpp = card->width * 4 > CIRRUS_MAX_PITCH ? 3 : 4;
	size_t pitch = (size_t)card->width * cpp, wrong = 0;

	for (uint32_t y = 0; y < card->height; y++) {
		for (uint32_t x = 0; x < card->width; x++) {
			uint8_t want = expect[(size_t)y * card->width + x];
			const volatile uint8_t *px = vram + y * pitch + (size_t)x * cpp;
			bool same = px[0] == want && px[1] == want && px[2] == want;
			if (!same && wrong++ < 5)
				printf("  at %u,%u: %02x %02x %02x, not %02x\n", x, y, px[0], px[1],
					px[2], want);
		}
	}
	return wrong;
}

static void
paint(uint8_t *image, const struct card *card, uint32_t left, uint32_t top, uint32_t width,
	uint32_t height, uint8_t gray)
{
	for (uint32_t y = top; y < top + height; y++)
		memset(image + (size_t)y * card->width + left, gray, width);
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	struct card card;
	char device[64], path[96], error[256];

	epd_begin("backend_kms", 240);
	REQUIRE_MSG(system("modprobe cirrus") == 0, "modprobe cirrus failed");
	REQUIRE_MSG(find_cirrus(&card), "no Cirrus card with a mode");
	printf("device: %s, %ux%u\n", card.node, card.width, card.height);
	snprintf(path, sizeof(path), "/sys/class/drm/card%d/device/resource0", card.index);
	int bar = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE_MSG(bar >= 0, "open %s", path);
	const volatile uint8_t *vram = mmap(NULL, VRAM_SIZE, PROT_READ, MAP_SHARED, bar, 0);
	REQUIRE_MSG(vram != MAP_FAILED, "mmap %s: %s", path, strerror(errno));
	snprintf(device, sizeof(device), "drm:%s", card.node);
	REQUIRE_MSG(scene_harness_start(h, device, error, sizeof(error)), "backend on %s: %s",
		device, error);
	uint8_t *expect = malloc((size_t)card.width * card.height);
	REQUIRE(expect);

	epd_phase("white, a black block and a gray one: the card shows them");
	scene_harness_rect(h, 0, 0, (int)card.width, (int)card.height, 0xff);
	struct wlr_scene_rect *block = scene_harness_rect(h, 100, 100, 50, 40, 0x00);
	/* one of the panel's 16 levels, which the backend keeps as it is */
	scene_harness_rect(h, 300, 200, 60, 30, 0x88);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	paint(expect, &card, 0, 0, card.width, card.height, 0xff);
	paint(expect, &card, 100, 100, 50, 40, 0x00);
	paint(expect, &card, 300, 200, 60, 30, 0x88);
	CHECK_EQ(count_mismatches(&card, vram, expect), 0);
	/* a commit completes the update: nothing to wait for */
	CHECK_EQ(epd_threads_named("epd-submit"), 1);
	CHECK_EQ(epd_threads_named("epd-wait"), 0);

	epd_phase("the black block moves: white where it was, black where it is");
	wlr_scene_node_set_position(&block->node, 500, 400);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	paint(expect, &card, 100, 100, 50, 40, 0xff);
	paint(expect, &card, 500, 400, 50, 40, 0x00);
	CHECK_EQ(count_mismatches(&card, vram, expect), 0);

	free(expect);
	scene_harness_finish(h);
	munmap((void *)vram, VRAM_SIZE);
	close(bar);
	/* the backend's threads let go of the card soon after it is destroyed */
	int rc = -1;
	for (int i = 0; i < 100 && rc != 0; i++) {
		rc = system("rmmod cirrus 2>/dev/null");
		if (rc != 0)
			epd_sleep_ms(100);
	}
	CHECK_EQ(rc, 0);
	return epd_end();
}
