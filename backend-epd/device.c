/*
 * Opening a panel device from a specification string.
 */
#include <epdfb.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

const struct vl_epd_waveform vl_epd_default_waveforms[] = {
	{WAVEFORM_MODE_INIT, "INIT", 2, true, false, 2000},
	{WAVEFORM_MODE_DU, "DU", 2, false, false, 260},
	{WAVEFORM_MODE_GC16, "GC16", 16, false, true, 450},
	{WAVEFORM_MODE_GC4, "GC4", 4, false, true, 290},
	{WAVEFORM_MODE_A2, "A2", 2, false, false, 120},
	{WAVEFORM_MODE_GL16, "GL16", 16, false, false, 450},
};
const size_t vl_epd_n_default_waveforms =
	sizeof(vl_epd_default_waveforms) / sizeof(vl_epd_default_waveforms[0]);

void
vl_epd_device_use_default_waveforms(struct vl_epd_device *dev)
{
	dev->n_waveforms = vl_epd_n_default_waveforms;
	memcpy(dev->waveforms, vl_epd_default_waveforms, sizeof(vl_epd_default_waveforms));
}

/* The first framebuffer whose driver speaks the EPDC update API. */
static struct vl_epd_device *
open_auto(char *error, size_t error_size)
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
	snprintf(error, error_size, "no e-paper framebuffer (epdfb or mxc_epdc_fb) was found");
	return NULL;
}

struct vl_epd_device *
vl_epd_device_open(const char *spec, char *error, size_t error_size)
{
	if (!spec || strcmp(spec, "auto") == 0)
		return open_auto(error, error_size);
	if (strncmp(spec, "memory:", 7) == 0) {
		uint32_t width, height;
		char end;
		if (sscanf(spec + 7, "%" SCNu32 "x%" SCNu32 "%c", &width, &height, &end) != 2) {
			snprintf(error, error_size, "device \"%s\": expected memory:WIDTHxHEIGHT",
				spec);
			return NULL;
		}
		return vl_epd_memory_open(width, height, error, error_size);
	}
	return vl_epd_fbdev_open(spec, error, error_size);
}

void
vl_epd_device_destroy(struct vl_epd_device *dev)
{
	if (dev)
		dev->impl->destroy(dev);
}

const struct vl_epd_waveform *
vl_epd_device_find_waveform(const struct vl_epd_device *dev, uint32_t id)
{
	for (size_t i = 0; i < dev->n_waveforms; i++)
		if (dev->waveforms[i].id == id)
			return &dev->waveforms[i];
	return NULL;
}
