// SPDX-License-Identifier: MIT
/*
 * epdrm under real clients. libdrm's own (Debian's libdrm-tests): modetest lists
 * the connector with the panel's mode and the plane's EPD_* properties, and
 * sets the mode, which reaches the panel as a whole-plane update, and sets
 * EPD_WAVEFORM through the legacy property call (-w): the update of its
 * mode set uses that waveform, and the next master finds it back at auto;
 * a value outside the enum is refused and changes nothing. proptest, which knows connectors and
 * CRTCs only, lists the pipeline's other properties. And fbdev programs on the fbdev emulation's
 * /dev/fbN: fbset reads its mode, fbi shows an image (black, gray and white where the image has
 * them), Xorg's fbdev driver shows its black root window and an xclock window white where its
 * geometry puts it.
 */
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "epdrm_test.h"

#define W 320
#define H 240
/* the virtual terminal fbi takes */
#define FBI_VT 2

/* Starts a shell command in the background, its output in log. */
static pid_t
spawn(const char *command, const char *log)
{
	printf("+ %s &\n", command);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void
stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* At least min_share of the rect's pixels on the panel have a level from lo to hi. */
struct panel_wish {
	uint32_t left, top, width, height;
	uint8_t lo, hi;
	double min_share;
};

static double
share_between(const uint8_t *panel, const struct panel_wish *w)
{
	size_t in = 0;

	for (uint32_t y = w->top; y < w->top + w->height; y++) {
		for (uint32_t x = w->left; x < w->left + w->width; x++) {
			uint8_t level = panel[(size_t)y * W + x];
			in += level >= w->lo && level <= w->hi;
		}
	}
	return (double)in / ((double)w->width * w->height);
}

/*
 * Polls the panel until every wish holds (the programs draw when they like),
 * for at most three minutes (Xorg starts slowly under the debug kernel's
 * checkers), then lets it settle: false when they never held.
 */
static bool
wait_panel(struct epdrm *e, const struct panel_wish *wishes, size_t n)
{
	uint8_t *panel = epd_alloc_image(&e->panel);
	bool held = false;

	for (int i = 0; i < 900 && !held; i++) {
		if (i)
			epd_sleep_ms(200);
		epd_read_panel(&e->panel, panel);
		held = true;
		for (size_t j = 0; j < n; j++) {
			const struct panel_wish *w = &wishes[j];
			double share = share_between(panel, w);
			held &= share >= w->min_share;
			if (i % 100 == 0)
				printf("  %ux%u+%u+%u: %.0f %% from %02x to %02x\n", w->width,
					w->height, w->left, w->top, share * 100, w->lo, w->hi);
		}
	}
	free(panel);
	return held && epdrm_wait_idle(e);
}

static bool
wait_path(const char *path, int seconds)
{
	for (int i = 0; i < seconds * 10; i++) {
		if (access(path, F_OK) == 0)
			return true;
		epd_sleep_ms(100);
	}
	return false;
}

/* Makes the panel white through KMS, so that what comes next is the program's doing. */
static void
clear_panel(struct epdrm *e)
{
	epdrm_open(e);
	epdrm_clear_white(e);
	epdrm_close(e);
	CHECK_MSG(wait_panel(e, &(struct panel_wish){0, 0, W, H, 0xe0, 0xff, 0.98}, 1),
		"the panel is not white after clearing");
}

/* The foreground virtual terminal's number. */
static int
active_vt(void)
{
	struct vt_stat state = {0};
	int fd = open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY);

	REQUIRE_MSG(fd >= 0, "open /dev/tty0: %s", strerror(errno));
	REQUIRE_OK(ioctl(fd, VT_GETSTATE, &state));
	close(fd);
	return state.v_active;
}

/*
 * A killed fbi leaves its terminal in graphics mode, where the console
 * draws no text, and in the foreground: the terminal gets its text mode
 * and the console switching back, and the terminal before it the
 * foreground, as a logind would after a crashed session.
 */
static void
restore_vt(int vt, int foreground)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/tty%d", vt);
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	REQUIRE_MSG(fd >= 0, "open %s: %s", path, strerror(errno));
	CHECK_OK(ioctl(fd, KDSETMODE, KD_TEXT));
	CHECK_OK(ioctl(fd, VT_SETMODE, &(struct vt_mode){.mode = VT_AUTO}));
	CHECK_OK(ioctl(fd, VT_ACTIVATE, foreground));
	CHECK_OK(ioctl(fd, VT_WAITACTIVE, foreground));
	close(fd);
}

static void
check_fbset_and_fbi(struct epdrm *e)
{
	static const char image_path[] = "/tmp/epdrm-fbi.ppm";
	char command[256], out[4096];

	epd_phase("fbset reads the emulation's mode; fbi shows an image on it");
	int num = epdrm_find_fbdev();
	REQUIRE_MSG(num >= 0, "no /dev/fb* of epdrm's fbdev emulation");
	snprintf(command, sizeof(command), "fbset -fb /dev/fb%d 2>&1", num);
	CHECK_EQ(epd_run_command(command, out, sizeof(out)), 0);
	printf("%s", out);
	CHECK_MSG(strstr(out, "geometry 320 240 320 240 32"), "fbset shows no 320x240 32 bpp mode");

	/* white, a black block at 40,40 80x60 and a gray one at 200,120 60x40 */
	FILE *image = fopen(image_path, "wb");
	REQUIRE(image);
	fprintf(image, "P6\n%d %d\n255\n", W, H);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			int gray = 0xff;
			if (x >= 40 && x < 120 && y >= 40 && y < 100)
				gray = 0x00;
			else if (x >= 200 && x < 260 && y >= 120 && y < 160)
				gray = 0x88;
			fputc(gray, image);
			fputc(gray, image);
			fputc(gray, image);
		}
	}
	REQUIRE(fclose(image) == 0);
	clear_panel(e);
	int foreground = active_vt();
	/* on a virtual terminal of its own, without its status line */
	snprintf(command, sizeof(command),
		"exec fbi -d /dev/fb%d -T %d -noverbose -nointeractive %s </dev/null", num, FBI_VT,
		image_path);
	pid_t fbi = spawn(command, "/tmp/epdrm-fbi.log");
	/* the gray block: one of the panel's 16 levels, neither black nor white */
	const struct panel_wish shown[] = {
		{44, 44, 72, 52, 0x00, 0x20, 0.98},
		{204, 124, 52, 32, 0x40, 0xc0, 0.98},
		{130, 0, 60, H, 0xe0, 0xff, 0.98},
	};
	bool ok = wait_panel(e, shown, 3);
	if (!ok) {
		epd_run_command("cat /tmp/epdrm-fbi.log", out, sizeof(out));
		printf("%s", out);
	}
	CHECK_MSG(ok, "the panel did not show fbi's image");
	stop(fbi);
	/*
	 * fbi goes on in a child that takes the terminal as its own, and
	 * polls it too busily to see a SIGTERM soon
	 */
	CHECK_EQ(epd_run_command("pkill -KILL -x fbi; for i in $(seq 100); do pgrep -x fbi || "
				 "exit 0; sleep 0.1; done; exit 1",
			 out, sizeof(out)),
		0);
	restore_vt(FBI_VT, foreground);
	unlink(image_path);
}

static void
check_xorg(struct epdrm *e)
{
	static const char conf_path[] = "/tmp/epdrm-xorg.conf", log[] = "/tmp/epdrm-xorg.log";
	char command[512], out[4096];

	epd_phase("Xorg's fbdev driver on the emulated /dev/fbN: its root, then an xclock");
	clear_panel(e);
	int num = epdrm_find_fbdev();
	REQUIRE_MSG(num >= 0, "no /dev/fb* of epdrm's fbdev emulation");
	FILE *conf = fopen(conf_path, "w");
	REQUIRE(conf);
	/* no input devices, no screen saver: only the fbdev driver matters */
	fprintf(conf,
		"Section \"ServerFlags\"\n"
		"\tOption \"AutoAddDevices\" \"false\"\n"
		"\tOption \"AutoEnableDevices\" \"false\"\n"
		"\tOption \"BlankTime\" \"0\"\n"
		"EndSection\n"
		"Section \"Device\"\n"
		"\tIdentifier \"epdrm\"\n"
		"\tDriver \"fbdev\"\n"
		"\tOption \"fbdev\" \"/dev/fb%d\"\n"
		"EndSection\n"
		"Section \"Screen\"\n"
		"\tIdentifier \"screen\"\n"
		"\tDevice \"epdrm\"\n"
		"\tDefaultDepth 24\n"
		"EndSection\n",
		num);
	REQUIRE(fclose(conf) == 0);
	snprintf(command, sizeof(command),
		"exec Xorg :7 -config %s -keeptty -novtswitch -sharevts -nolisten tcp -noreset -s "
		"0 "
		"-dpms -logfile /tmp/epdrm-xorg-server.log",
		conf_path);
	pid_t xorg = spawn(command, log);
	bool up = wait_path("/tmp/.X11-unix/X7", 180);
	if (!up) {
		epd_run_command("tail -n 30 /tmp/epdrm-xorg-server.log /tmp/epdrm-xorg.log", out,
			sizeof(out));
		printf("%s", out);
	}
	REQUIRE_MSG(up, "Xorg did not start on /dev/fb%d", num);
	/* Xorg's root window is black */
	CHECK_MSG(wait_panel(e, &(struct panel_wish){0, 0, W, H, 0x00, 0x20, 0.98}, 1),
		"the panel did not show Xorg's black root window");

	pid_t xclock = spawn("DISPLAY=:7 exec xclock -geometry 120x100+60+50 -bg white -fg black "
			     "-hd black -hl black -update 1",
		"/tmp/epdrm-xclock.log");
	/* without a window manager the window is where its geometry says, undecorated */
	const struct panel_wish clock_shown[] = {
		{60 + 10, 50 + 10, 100, 80, 0x80, 0xff, 0.6},
		{0, 0, 60, H, 0x00, 0x20, 0.98},
		{180, 0, W - 180, H, 0x00, 0x20, 0.98},
	};
	CHECK_MSG(wait_panel(e, clock_shown, 3), "the panel did not show xclock's white window");
	stop(xclock);
	stop(xorg);
	unlink(conf_path);
}

int
main(void)
{
	static char out[65536];
	char command[256];
	struct epdrm dev, *e = &dev;
	struct epd_trace *trace;
	size_t n;

	epd_begin("epdrm_tools", 900);
	epdrm_load("width=320 height=240 time_scale=10");
	epdrm_open(e);
	int64_t du = epdrm_waveform_value(e, "DU");
	/* libdrm's tools must be able to become the card's master */
	epdrm_close(e);

	epd_phase("modetest lists the connector, its mode and the plane's properties");
	CHECK_EQ(epd_run_command("modetest -M epdrm -c 2>&1", out, sizeof(out)), 0);
	CHECK_MSG(strstr(out, "connected") && strstr(out, "320x240"),
		"no connected connector with 320x240 in:\n%s", out);
	CHECK_EQ(epd_run_command("modetest -M epdrm -p 2>&1", out, sizeof(out)), 0);
	/* EPD_SETTLE_FENCE_PTR is for atomic clients only */
	CHECK_MSG(strstr(out, "EPD_WAVEFORM") && strstr(out, "GC16") && strstr(out, "EPD_FULL") &&
			  !strstr(out, "EPD_SETTLE_FENCE_PTR"),
		"the plane's EPD_* properties are not as expected in:\n%s", out);
	CHECK_EQ(epd_run_command("proptest -M epdrm 2>&1", out, sizeof(out)), 0);
	CHECK_MSG(strstr(out, "Connector") && strstr(out, "DPMS") && strstr(out, "\nCRTC "),
		"proptest lists no connector or CRTC properties:\n%s", out);

	epd_phase("modetest sets the mode: a whole-plane update");
	epd_trace_clear(&e->panel);
	snprintf(command, sizeof(command), "modetest -M epdrm -s %u@%u:320x240 </dev/null 2>&1",
		e->connector, e->crtc);
	CHECK_EQ(epd_run_command(command, out, sizeof(out)), 0);
	printf("%s", out);
	REQUIRE(epdrm_wait_idle(e));
	n = epd_trace_read(&e->panel, &trace);
	bool whole = false;
	for (size_t i = 0; i < n; i++)
		whole |= trace[i].left == 0 && trace[i].top == 0 && trace[i].width == W &&
			 trace[i].height == H;
	CHECK_MSG(whole, "no whole-plane update among %zu", n);
	free(trace);

	/*
	 * The property holds for modetest's own mode set, which draws another
	 * pattern (tiles, not the SMPTE bars above: a picture the panel has
	 * already costs no update), and is back at auto for the next master.
	 */
	epd_phase("modetest -w sets EPD_WAVEFORM: it drives modetest's update, not the next "
		  "master's");
	epd_trace_clear(&e->panel);
	snprintf(command, sizeof(command),
		"modetest -M epdrm -w %u:EPD_WAVEFORM:%lld -s %u@%u:320x240 -F tiles </dev/null "
		"2>&1",
		e->plane, (long long)du, e->connector, e->crtc);
	epd_run_command(command, out, sizeof(out));
	printf("%s", out);
	REQUIRE(epdrm_wait_idle(e));
	e->fd = open(e->devnode, O_RDWR | O_CLOEXEC);
	REQUIRE(e->fd >= 0);
	CHECK_EQ(epdrm_plane_property(e, e->props.waveform),
		(uint64_t)epdrm_waveform_value(e, "auto"));
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
	epd_run_command(command, out, sizeof(out));
	printf("%s", out);
	e->fd = open(e->devnode, O_RDWR | O_CLOEXEC);
	REQUIRE(e->fd >= 0);
	CHECK_EQ(epdrm_plane_property(e, e->props.waveform),
		(uint64_t)epdrm_waveform_value(e, "auto"));
	epdrm_close(e);

	/* Xorg first: fbi leaves the virtual terminals as Xorg would not find them */
	check_xorg(e);
	check_fbset_and_fbi(e);

	CHECK_RC(epdrm_try_unload(), 0);
	return epd_end();
}
