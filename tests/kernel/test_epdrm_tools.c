// SPDX-License-Identifier: MIT
/*
 * epdrm under libdrm's own clients (Debian's libdrm-tests): modetest lists
 * the connector with the panel's mode and the plane's EPD_* properties, and
 * sets the mode, which reaches the panel as a whole-plane update, and sets
 * EPD_WAVEFORM through the legacy property call (-w): the value sticks and
 * the update it causes uses that waveform; a value outside the enum is
 * refused and changes nothing. proptest, which knows connectors and CRTCs
 * only, lists the pipeline's other properties.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "epdrm_test.h"

#define W 320
#define H 240

/* Runs a shell command, its output in out; its exit status. */
static int
run(const char *command, char *out, size_t size)
{
	FILE *p = popen(command, "r");
	size_t used = 0;

	REQUIRE_MSG(p, "cannot run %s", command);
	printf("+ %s\n", command);
	while (used + 1 < size && fgets(out + used, (int)(size - used), p))
		used += strlen(out + used);
	out[used] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static uint64_t
plane_value(struct epdrm *e, uint32_t prop)
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

int
main(void)
{
	static char out[65536];
	char command[256];
	struct epdrm dev, *e = &dev;
	struct epd_trace *trace;
	size_t n;

	epd_begin("epdrm_tools", 240);
	epdrm_load("width=320 height=240 time_scale=10");
	epdrm_open(e);
	int64_t du = epdrm_waveform_value(e, "DU");
	/* libdrm's tools must be able to become the card's master */
	epdrm_close(e);

	epd_phase("modetest lists the connector, its mode and the plane's properties");
	CHECK_EQ(run("modetest -M epdrm -c 2>&1", out, sizeof(out)), 0);
	CHECK_MSG(strstr(out, "connected") && strstr(out, "320x240"),
		"no connected connector with 320x240 in:\n%s", out);
	CHECK_EQ(run("modetest -M epdrm -p 2>&1", out, sizeof(out)), 0);
	/* EPD_SETTLE_FENCE_PTR is for atomic clients only */
	CHECK_MSG(strstr(out, "EPD_WAVEFORM") && strstr(out, "GC16") && strstr(out, "EPD_FULL") &&
			  !strstr(out, "EPD_SETTLE_FENCE_PTR"),
		"the plane's EPD_* properties are not as expected in:\n%s", out);
	CHECK_EQ(run("proptest -M epdrm 2>&1", out, sizeof(out)), 0);
	CHECK_MSG(strstr(out, "Connector") && strstr(out, "DPMS") && strstr(out, "\nCRTC "),
		"proptest lists no connector or CRTC properties:\n%s", out);

	epd_phase("modetest sets the mode: a whole-plane update");
	epd_trace_clear(&e->panel);
	snprintf(command, sizeof(command), "modetest -M epdrm -s %u@%u:320x240 </dev/null 2>&1",
		e->connector, e->crtc);
	CHECK_EQ(run(command, out, sizeof(out)), 0);
	printf("%s", out);
	REQUIRE(epdrm_wait_idle(e));
	n = epd_trace_read(&e->panel, &trace);
	bool whole = false;
	for (size_t i = 0; i < n; i++)
		whole |= trace[i].left == 0 && trace[i].top == 0 && trace[i].width == W &&
			 trace[i].height == H;
	CHECK_MSG(whole, "no whole-plane update among %zu", n);
	free(trace);

	epd_phase("modetest -w sets EPD_WAVEFORM: it sticks and drives the update");
	epd_trace_clear(&e->panel);
	snprintf(command, sizeof(command), "modetest -M epdrm -w %u:EPD_WAVEFORM:%lld 2>&1",
		e->plane, (long long)du);
	run(command, out, sizeof(out));
	printf("%s", out);
	REQUIRE(epdrm_wait_idle(e));
	e->fd = open(e->devnode, O_RDWR | O_CLOEXEC);
	REQUIRE(e->fd >= 0);
	CHECK_EQ(plane_value(e, e->props.waveform), (uint64_t)du);
	epdrm_close(e);
	n = epd_trace_read(&e->panel, &trace);
	CHECK_GT(n, 0);
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(
			!strcmp(trace[i].waveform, "DU"), "update %zu in %s", i, trace[i].waveform);
	free(trace);

	epd_phase("a value outside the enum changes nothing");
	snprintf(command, sizeof(command), "modetest -M epdrm -w %u:EPD_WAVEFORM:12345 2>&1",
		e->plane);
	run(command, out, sizeof(out));
	printf("%s", out);
	e->fd = open(e->devnode, O_RDWR | O_CLOEXEC);
	REQUIRE(e->fd >= 0);
	CHECK_EQ(plane_value(e, e->props.waveform), (uint64_t)du);
	epdrm_close(e);

	CHECK_RC(epdrm_try_unload(), 0);
	return epd_end();
}
