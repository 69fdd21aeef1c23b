// SPDX-License-Identifier: MIT
/*
 * epd-testcard: draws a test card on an epdfb panel through the mxc_epdc_fb
 * update API, then saves what the panel shows as a PNG and prints a small
 * preview to the terminal.
 *
 *   epd-testcard [-d /dev/fbN] [-o panel.png]
 *
 * The card has one band per waveform, so the picture shows how each one
 * reproduces a gray ramp, and an A2 "animation" that leaves a ghost.
 */
#include <epdfb.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fb.h>
#include <png.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PREVIEW_COLUMNS 72

struct panel {
	int fd;
	uint8_t *fb;
	size_t fb_size;
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	int node;
	uint32_t next_marker;
};

static void
die(const char *what)
{
	fprintf(stderr, "epd-testcard: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int
find_epdfb(void)
{
	char path[64], name[32];

	for (int i = 0; i < 32; i++) {
		snprintf(path, sizeof(path), "/sys/class/graphics/fb%d/name", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool match = fgets(name, sizeof(name), f) && strncmp(name, "epdfb", 5) == 0;
		fclose(f);
		if (match)
			return i;
	}
	return -1;
}

static void
panel_open(struct panel *p, const char *device)
{
	char path[32];

	if (!device) {
		p->node = find_epdfb();
		if (p->node < 0) {
			fprintf(stderr, "epd-testcard: no epdfb device; is the module loaded?\n");
			exit(1);
		}
		snprintf(path, sizeof(path), "/dev/fb%d", p->node);
		device = path;
	} else if (sscanf(device, "/dev/fb%d", &p->node) != 1) {
		fprintf(stderr, "epd-testcard: %s is not a /dev/fbN path\n", device);
		exit(1);
	}
	p->fd = open(device, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		die(device);
	if (ioctl(p->fd, FBIOGET_VSCREENINFO, &p->var) < 0 ||
		ioctl(p->fd, FBIOGET_FSCREENINFO, &p->fix) < 0)
		die("reading the screen info");
	if (p->var.bits_per_pixel != 8) {
		fprintf(stderr, "epd-testcard: needs an 8 bpp panel, found %u bpp\n",
			p->var.bits_per_pixel);
		exit(1);
	}
	p->fb_size = (size_t)p->fix.line_length * p->var.yres;
	p->fb = mmap(NULL, p->fb_size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->fb == MAP_FAILED)
		die("mmap");
	uint32_t region = AUTO_UPDATE_MODE_REGION_MODE;
	if (ioctl(p->fd, MXCFB_SET_AUTO_UPDATE_MODE, &region) < 0)
		die("MXCFB_SET_AUTO_UPDATE_MODE");
}

static uint32_t
panel_update(struct panel *p, uint32_t left, uint32_t top, uint32_t width, uint32_t height,
	uint32_t waveform, uint32_t mode)
{
	struct mxcfb_update_data update = {
		.update_region = {.top = top, .left = left, .width = width, .height = height},
		.waveform_mode = waveform,
		.update_mode = mode,
		.update_marker = ++p->next_marker,
		.temp = TEMP_USE_AMBIENT,
	};
	if (ioctl(p->fd, MXCFB_SEND_UPDATE, &update) < 0)
		die("MXCFB_SEND_UPDATE");
	return update.update_marker;
}

static void
panel_wait(struct panel *p, uint32_t marker)
{
	struct mxcfb_update_marker_data wait = {.update_marker = marker};
	if (ioctl(p->fd, MXCFB_WAIT_FOR_UPDATE_COMPLETE, &wait) < 0)
		die("MXCFB_WAIT_FOR_UPDATE_COMPLETE");
}

static void
fill(struct panel *p, uint32_t left, uint32_t top, uint32_t width, uint32_t height, uint8_t gray)
{
	for (uint32_t y = top; y < top + height; y++)
		memset(p->fb + (size_t)y * p->fix.line_length + left, gray, width);
}

static void
ramp(struct panel *p, uint32_t left, uint32_t top, uint32_t width, uint32_t height)
{
	for (uint32_t y = top; y < top + height; y++)
		for (uint32_t x = 0; x < width; x++)
			p->fb[(size_t)y * p->fix.line_length + left + x] = x * 255 / (width - 1);
}

/* One band per waveform, each a ramp from black to white over a black frame. */
static void
draw_card(struct panel *p)
{
	static const uint32_t waveforms[] = {WAVEFORM_MODE_GC16, WAVEFORM_MODE_GL16,
		WAVEFORM_MODE_GC4, WAVEFORM_MODE_DU, WAVEFORM_MODE_A2};
	const uint32_t w = p->var.xres, h = p->var.yres;
	const uint32_t n = sizeof(waveforms) / sizeof(waveforms[0]);
	const uint32_t margin = w / 20, band = (h - 2 * margin) / (n + 1);
	uint32_t markers[8];

	fill(p, 0, 0, w, h, 0xff);
	panel_wait(p, panel_update(p, 0, 0, w, h, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL));

	for (uint32_t i = 0; i < n; i++) {
		uint32_t top = margin + i * band;
		fill(p, margin, top, w - 2 * margin, band - band / 8, 0);
		ramp(p, margin + 4, top + 4, w - 2 * margin - 8, band - band / 8 - 8);
		markers[i] = panel_update(p, margin, top, w - 2 * margin, band - band / 8,
			waveforms[i], UPDATE_MODE_PARTIAL);
	}
	for (uint32_t i = 0; i < n; i++)
		panel_wait(p, markers[i]);

	/* A bar moving with A2, the animation waveform: it leaves a ghost trail. */
	uint32_t top = margin + n * band, bar = band / 2;
	for (uint32_t x = margin; x + bar < w - margin; x += bar / 2) {
		fill(p, margin, top, w - 2 * margin, bar, 0xff);
		fill(p, x, top, bar, bar, 0);
		panel_wait(p, panel_update(p, margin, top, w - 2 * margin, bar, WAVEFORM_MODE_A2,
				      UPDATE_MODE_PARTIAL));
	}
}

static uint8_t *
read_panel(const struct panel *p, uint32_t *width, uint32_t *height)
{
	char path[64];
	snprintf(path, sizeof(path), "/sys/kernel/debug/epdfb/fb%d/panel", p->node);
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path);
	if (fscanf(f, "P5 %u %u 255", width, height) != 2 || fgetc(f) != '\n') {
		fprintf(stderr, "epd-testcard: %s is not a PGM\n", path);
		exit(1);
	}
	size_t size = (size_t)*width * *height;
	uint8_t *pixels = malloc(size);
	if (!pixels || fread(pixels, 1, size, f) != size)
		die("reading the panel");
	fclose(f);
	return pixels;
}

static void
write_png(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height)
{
	png_image image = {
		.version = PNG_IMAGE_VERSION,
		.width = width,
		.height = height,
		.format = PNG_FORMAT_GRAY,
	};
	if (!png_image_write_to_file(&image, path, 0, pixels, width, NULL)) {
		fprintf(stderr, "epd-testcard: writing %s: %s\n", path, image.message);
		exit(1);
	}
}

static void
print_preview(const uint8_t *pixels, uint32_t width, uint32_t height)
{
	static const char shades[] = "@%#*+=-:. ";
	const uint32_t cell_w = (width + PREVIEW_COLUMNS - 1) / PREVIEW_COLUMNS;
	const uint32_t cell_h = cell_w * 2;

	for (uint32_t cy = 0; cy + cell_h <= height; cy += cell_h) {
		for (uint32_t cx = 0; cx + cell_w <= width; cx += cell_w) {
			uint64_t sum = 0;
			for (uint32_t y = cy; y < cy + cell_h; y++)
				for (uint32_t x = cx; x < cx + cell_w; x++)
					sum += pixels[(size_t)y * width + x];
			uint32_t mean = sum / ((uint64_t)cell_w * cell_h);
			putchar(shades[mean * (sizeof(shades) - 2) / 255]);
		}
		putchar('\n');
	}
}

int
main(int argc, char *argv[])
{
	const char *device = NULL, *output = "panel.png";
	struct panel p = {0};
	int opt;

	while ((opt = getopt(argc, argv, "d:o:h")) != -1) {
		switch (opt) {
		case 'd':
			device = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d /dev/fbN] [-o panel.png]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}

	panel_open(&p, device);
	draw_card(&p);

	uint32_t width, height;
	uint8_t *pixels = read_panel(&p, &width, &height);
	write_png(output, pixels, width, height);
	print_preview(pixels, width, height);
	printf("epd-testcard: the panel shows what %s holds (%ux%u)\n", output, width, height);
	free(pixels);
	munmap(p.fb, p.fb_size);
	close(p.fd);
	return 0;
}
