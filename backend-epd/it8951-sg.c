// SPDX-License-Identifier: MIT
/*
 * The IT8951's USB transport: SCSI commands through the kernel's SCSI
 * generic driver (SG_IO on /dev/sgN), which usb-storage feeds. No kernel
 * module of ours: any Linux with usb-storage and sg drives the board.
 */
#include <errno.h>
#include <fcntl.h>
#include <scsi/sg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "it8951.h"

/* A display or load is quick; one that takes this long has a stuck controller. */
#define COMMAND_TIMEOUT_MS 5000

/* SCSI, host and driver status of a finished SG_IO (scsi/sg.h, the SCSI mid layer). */
#define SCSI_STATUS_CHECK_CONDITION 0x02
#define HOST_NO_CONNECT             0x01
#define HOST_TIME_OUT               0x03
#define HOST_TRANSPORT_DISRUPTED    0x0e
#define DRIVER_SENSE                0x08

struct sg_transport {
	struct vl_it8951_transport base;
	int fd;
};

static int
sg_command(struct vl_it8951_transport *transport, const uint8_t *cdb,
	enum vl_it8951_direction direction, void *data, size_t length, size_t *received)
{
	struct sg_transport *sg = (struct sg_transport *)transport;
	static const int directions[] = {
		[VL_IT8951_NO_DATA] = SG_DXFER_NONE,
		[VL_IT8951_TO_DEVICE] = SG_DXFER_TO_DEV,
		[VL_IT8951_FROM_DEVICE] = SG_DXFER_FROM_DEV,
	};
	struct sg_io_hdr io = {
		.interface_id = 'S',
		.dxfer_direction = directions[direction],
		.cmd_len = cdb[0] == VL_IT8951_VENDOR_COMMAND ? VL_IT8951_CDB_SIZE : 6,
		.mx_sb_len = sizeof(transport->sense),
		.dxfer_len = (unsigned int)length,
		.dxferp = data,
		.cmdp = (unsigned char *)cdb,
		.sbp = transport->sense,
		.timeout = COMMAND_TIMEOUT_MS,
	};

	memset(transport->sense, 0, sizeof(transport->sense));
	if (ioctl(sg->fd, SG_IO, &io) < 0)
		return errno == ENXIO ? -ENODEV : -errno;
	if (io.host_status == HOST_NO_CONNECT || io.host_status == HOST_TRANSPORT_DISRUPTED)
		return -ENODEV;
	if (io.host_status == HOST_TIME_OUT)
		return -ETIMEDOUT;
	if (io.status == SCSI_STATUS_CHECK_CONDITION || (io.driver_status & DRIVER_SENSE))
		return -EIO;
	if (io.status || io.host_status || io.driver_status)
		return -EIO;
	if (received)
		*received = length - (size_t)(io.resid > 0 ? io.resid : 0);
	return 0;
}

static void
sg_destroy(struct vl_it8951_transport *transport)
{
	struct sg_transport *sg = (struct sg_transport *)transport;

	close(sg->fd);
	free(sg);
}

struct vl_it8951_transport *
vl_it8951_sg_open(const char *path)
{
	struct sg_transport *sg = calloc(1, sizeof(*sg));
	int version = 0;

	if (!sg)
		return NULL;
	sg->fd = open(path, O_RDWR | O_CLOEXEC);
	if (sg->fd < 0) {
		free(sg);
		return NULL;
	}
	/* an sd or other block node takes SG_IO too, but the board's disk has no medium */
	if (ioctl(sg->fd, SG_GET_VERSION_NUM, &version) < 0) {
		close(sg->fd);
		free(sg);
		errno = ENOTTY;
		return NULL;
	}
	sg->base.command = sg_command;
	sg->base.destroy = sg_destroy;
	return &sg->base;
}
