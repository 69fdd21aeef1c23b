// SPDX-License-Identifier: MIT
/*
 * Random ioctl commands and arguments for the driver's fuzz tests
 * (test_invalid_input, test_ioctl_fuzz), from epd_rand().
 */
#include "ioctl_random.h"

#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>

static const unsigned long driver_cmds[] = {
	MXCFB_SET_WAVEFORM_MODES,
	MXCFB_SET_TEMPERATURE,
	MXCFB_SET_AUTO_UPDATE_MODE,
	MXCFB_SEND_UPDATE,
	MXCFB_WAIT_FOR_UPDATE_COMPLETE,
	MXCFB_SET_PWRDOWN_DELAY,
	MXCFB_GET_PWRDOWN_DELAY,
	MXCFB_SET_UPDATE_SCHEME,
	EPDFB_GET_WAVEFORM,
	FBIO_WAITFORVSYNC,
};
#define N_DRIVER_CMDS (sizeof(driver_cmds) / sizeof(driver_cmds[0]))

static bool
is_driver_cmd(unsigned long cmd)
{
	for (size_t i = 0; i < N_DRIVER_CMDS; i++)
		if (driver_cmds[i] == cmd)
			return true;
	return false;
}

/*
 * A random command: mostly the driver's, else a random number. Random numbers
 * of the fbdev core ('F') and of the VFS ('T', 'X', 'f', 0x94, 0x15, 0) are
 * avoided:
 * they would change the mode, the console or the file, not test the driver.
 */
unsigned long
epd_random_cmd(void)
{
	uint32_t r = epd_rand_below(100);

	if (r < 80)
		return driver_cmds[epd_rand_below(N_DRIVER_CMDS)];
	if (r < 90) {
		/* a driver number with another size or direction */
		unsigned long cmd = driver_cmds[epd_rand_below(N_DRIVER_CMDS - 1)];
		unsigned long size = epd_rand_below(1 << _IOC_SIZEBITS);
		unsigned long dir = epd_rand_below(4);

		cmd = _IOC(dir, _IOC_TYPE(cmd), _IOC_NR(cmd), size);
		if (!is_driver_cmd(cmd) && _IOC_NR(cmd) > 0x20)
			return cmd;
		return MXCFB_SEND_UPDATE;
	}
	for (;;) {
		unsigned long cmd = (unsigned long)(uint32_t)epd_rand();
		unsigned int type = _IOC_TYPE(cmd);

		if (epd_rand_below(2))
			cmd = _IOC(_IOC_DIR(cmd), 'F', 0x81 + epd_rand_below(0x7f), _IOC_SIZE(cmd));
		type = _IOC_TYPE(cmd);
		if ((type == 'F' && _IOC_NR(cmd) <= 0x80) || type == 'T' || type == 'X' ||
			type == 'f' || type == 0x94 || type == 0x15 || type == 0)
			continue;
		return cmd;
	}
}

void
epd_random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)epd_rand();
}

static int32_t
small_int(void)
{
	static const int32_t special[] = {0, 1, 2, 3, -1, -2, 5, 25, 50, 51, 255, 256, 257, 0x1000,
		0x1001, INT_MAX, INT_MIN, 0x7fff, 0x8000, 1000, 6};

	return special[epd_rand_below(sizeof(special) / sizeof(special[0]))];
}

/* Fills buf with a plausible argument for cmd, one field random. */
void
epd_random_arg(struct epd *d, unsigned long cmd, void *buf)
{
	if (cmd == MXCFB_SEND_UPDATE) {
		struct mxcfb_update_data u;
		static const uint32_t wfs[] = {0, 1, 2, 3, 4, 5, 257, 6};
		static const uint32_t flags[] = {0, 1, 2, 0x100, 0x2000, 0x4000, 3, 0x8};
		uint32_t w = 1 + epd_rand_below(64), h = 1 + epd_rand_below(64);

		memset(&u, 0, sizeof(u));
		u.update_region.left = epd_rand_below(d->width - w + 1);
		u.update_region.top = epd_rand_below(d->height - h + 1);
		u.update_region.width = w;
		u.update_region.height = h;
		u.waveform_mode = wfs[epd_rand_below(8)];
		if (u.waveform_mode == WAVEFORM_MODE_INIT && epd_rand_below(4))
			u.waveform_mode = WAVEFORM_MODE_DU; /* INIT is slow */
		u.update_mode = epd_rand_below(3);
		u.update_marker = 1000 + epd_rand_below(16);
		u.temp = epd_rand_below(2) ? TEMP_USE_AMBIENT : small_int();
		u.flags = flags[epd_rand_below(8)];
		/* one field random */
		switch (epd_rand_below(6)) {
		case 0:
			u.update_region.left = (uint32_t)small_int();
			break;
		case 1:
			u.update_region.height = (uint32_t)small_int();
			break;
		case 2:
			u.waveform_mode = (uint32_t)small_int();
			break;
		case 3:
			u.flags = (uint32_t)epd_rand();
			break;
		default:
			break;
		}
		memcpy(buf, &u, sizeof(u));
	} else if (cmd == MXCFB_WAIT_FOR_UPDATE_COMPLETE) {
		struct mxcfb_update_marker_data m = {1000 + epd_rand_below(20), 0};

		memcpy(buf, &m, sizeof(m));
	} else if (cmd == MXCFB_SET_WAVEFORM_MODES) {
		int modes[6];

		for (int i = 0; i < 6; i++)
			modes[i] = (int)epd_rand_below(epd_rand_below(8) ? 6 : 8);
		memcpy(buf, modes, sizeof(modes));
	} else if (cmd == EPDFB_GET_WAVEFORM) {
		uint32_t idx = epd_rand_below(8);

		memcpy(buf, &idx, sizeof(idx));
	} else {
		int32_t v = small_int();

		memcpy(buf, &v, sizeof(v));
	}
}
