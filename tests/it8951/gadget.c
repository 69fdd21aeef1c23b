// SPDX-License-Identifier: MIT
/*
 * it8951-gadget: an IT8951 USB board on the machine's own USB stack. It
 * serves a FunctionFS function (mass storage, SCSI transparent, Bulk-Only
 * Transport) whose commands the emulator of emulator.h answers, so that the
 * kernel's usb-storage and sg drivers make a /dev/sgN of it exactly as of a
 * real board. tests/it8951/usb-board sets the gadget up around it.
 *
 *   it8951-gadget --ffs DIR --state DIR [--width W] [--height H]
 *                 [--time-scale PERCENT] [--vcom MV] [-v]
 *   it8951-gadget --state DIR --send COMMAND [ARGUMENT...]
 *
 * --state DIR is where tests reach the board from the side: once it serves
 * it writes DIR/ready, and it listens on the Unix socket DIR/control. A
 * client connects, sends one command line and reads the answer until the
 * board closes the connection. An answer that starts with "error: " is a
 * failure. --send is such a client: it prints the answer and exits 1 on an
 * error answer, 2 when the board cannot be reached. The commands:
 *
 *   panel          what the panel shows, as a PGM (P5, maxval 255)
 *   updates        the completed updates, as epdfb's debugfs "updates"
 *                  file has them (a line each), since the last clear
 *   clear          forget the updates completed so far; "ok"
 *   white          the panel white, shown with a flashing GC16 and settled
 *                  (a test's fresh start, as epd_clear on epdfb); "ok"
 *   settle [SEC]   "ok" once the panel model is idle (nothing queued or in
 *                  flight), an error after SEC seconds (default 60). A
 *                  stalled controller's displays never reach the model.
 *   stall on|off   a controller that stays busy: displays it takes never
 *                  complete, until "stall off"; "ok"
 *   vcom           the VCOM the board holds, in millivolts (0: none set)
 *   bytes          the bytes the host loaded into image memory, headers
 *                  included
 *   stats          the panel model's counters, as epdfb's debugfs "stats"
 *                  file has them, then one more line "usb_bytes: N": the
 *                  bytes carried over the bulk endpoints (CBWs, data phases
 *                  either way, CSWs) since the start or the last stats-reset
 *   stats-reset    once the panel model is idle, as settle waits for it,
 *                  zeroes its counters, as writing to epdfb's "stats" does,
 *                  and usb_bytes; "ok", or settle's error after 60 s
 *   flash          a flashing GC16 display of the whole panel with what the
 *                  image buffer holds, as the host's DISPLAY_AREA of it in
 *                  mode 2: the picture stays, its ghosts go; "ok" once the
 *                  model completed it, an error when it still runs after
 *                  60 s (a stalled controller's never ends)
 *   disconnect     a cable pulled mid-transfer: the next host-to-device data
 *                  phase stops halfway and the gadget exits, which unbinds
 *                  the function from its UDC; "ok"
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#include <panel-model.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "emulator.h"

#define CBW_SIZE        31
#define CSW_SIZE        13
#define CBW_SIGNATURE   0x43425355u /* "USBC" */
#define CSW_SIGNATURE   0x53425355u /* "USBS" */
#define CSW_GOOD        0
#define CSW_FAILED      1
#define CBW_FLAG_IN     0x80
#define GET_MAX_LUN     0xfe
#define BULK_ONLY_RESET 0xff

/* The largest data phase kept for the emulator; longer ones are failed, their data dropped. */
#define MAX_DATA (16u << 20)
/* What one read or write of an endpoint file moves at most: the kernel buffers it whole. */
#define CHUNK (64u << 10)

#define INTERFACE_NAME "IT8951 Bulk-Only"

struct descriptors {
	struct usb_functionfs_descs_head_v2 header;
	__le32 fs_count, hs_count;
	struct {
		struct usb_interface_descriptor interface;
		struct usb_endpoint_descriptor_no_audio in, out;
	} __attribute__((packed)) fs, hs;
} __attribute__((packed));

struct strings {
	struct usb_functionfs_strings_head header;
	struct {
		__le16 code;
		char interface[sizeof(INTERFACE_NAME)];
	} __attribute__((packed)) lang;
} __attribute__((packed));

struct gadget {
	struct it8951_emulator *emulator;
	const char *ffs_dir, *state_dir;
	bool verbose;
	int ep0, in, out;
	pthread_t bulk_thread;

	/* Set by the host's Bulk-Only Mass Storage Reset, a reconfiguration or an unbind. */
	pthread_mutex_t lock;
	pthread_cond_t reset_cond;
	atomic_bool reset;
	atomic_bool disconnect;
	/* the bulk thread counts, the control thread reads and zeroes */
	_Atomic uint64_t usb_bytes;

	uint8_t *data;
	size_t data_size;

	/* The control thread's: the last trace line at "clear", those up to it hidden. */
	char *trace_mark;
};

static void __attribute__((format(printf, 1, 2)))
log_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	fputs("it8951-gadget: ", stderr);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
}

static void __attribute__((format(printf, 2, 3)))
log_verbose(const struct gadget *g, const char *format, ...)
{
	va_list args;

	if (!g->verbose)
		return;
	va_start(args, format);
	fputs("it8951-gadget: ", stderr);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
}

static uint32_t
get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
put_le32(uint8_t *p, uint32_t value)
{
	p[0] = (uint8_t)value;
	p[1] = (uint8_t)(value >> 8);
	p[2] = (uint8_t)(value >> 16);
	p[3] = (uint8_t)(value >> 24);
}

static void
fill_speed(struct usb_interface_descriptor *interface, struct usb_endpoint_descriptor_no_audio *in,
	struct usb_endpoint_descriptor_no_audio *out, uint16_t max_packet)
{
	*interface = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE,
		.bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 2,
		.bInterfaceClass = USB_CLASS_MASS_STORAGE,
		.bInterfaceSubClass = 0x06, /* SCSI transparent command set */
		.bInterfaceProtocol = 0x50, /* Bulk-Only Transport */
		.iInterface = 1,
	};
	/* FunctionFS numbers the endpoint files in this order: ep1 IN, ep2 OUT. */
	*in = (struct usb_endpoint_descriptor_no_audio){
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = 1 | USB_DIR_IN,
		.bmAttributes = USB_ENDPOINT_XFER_BULK,
		.wMaxPacketSize = htole16(max_packet),
	};
	*out = *in;
	out->bEndpointAddress = 2 | USB_DIR_OUT;
}

static int
write_descriptors(struct gadget *g)
{
	struct descriptors descriptors = {
		.header =
			{
				.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2),
				.length = htole32(sizeof(descriptors)),
				.flags = htole32(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC),
			},
		.fs_count = htole32(3),
		.hs_count = htole32(3),
	};
	struct strings strings = {
		.header =
			{
				.magic = htole32(FUNCTIONFS_STRINGS_MAGIC),
				.length = htole32(sizeof(strings)),
				.str_count = htole32(1),
				.lang_count = htole32(1),
			},
		.lang = {.code = htole16(0x0409), .interface = INTERFACE_NAME},
	};

	fill_speed(&descriptors.fs.interface, &descriptors.fs.in, &descriptors.fs.out, 64);
	fill_speed(&descriptors.hs.interface, &descriptors.hs.in, &descriptors.hs.out, 512);
	if (write(g->ep0, &descriptors, sizeof(descriptors)) != (ssize_t)sizeof(descriptors)) {
		log_error("%s/ep0: writing the descriptors: %s", g->ffs_dir, strerror(errno));
		return -1;
	}
	if (write(g->ep0, &strings, sizeof(strings)) != (ssize_t)sizeof(strings)) {
		log_error("%s/ep0: writing the strings: %s", g->ffs_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The bulk side ************************************************************/

static void
wake_bulk(int signal)
{
	(void)signal;
}

/* Makes the bulk loop drop the command it runs and wait for the next CBW. */
static void
request_reset(struct gadget *g)
{
	pthread_mutex_lock(&g->lock);
	atomic_store(&g->reset, true);
	pthread_cond_broadcast(&g->reset_cond);
	pthread_mutex_unlock(&g->lock);
	/* without SA_RESTART: a transfer the bulk thread waits for is dequeued */
	pthread_kill(g->bulk_thread, SIGUSR1);
}

/* An endpoint file's transfer: its bytes, or -1 when the command is to be dropped. */
static ssize_t
transfer(struct gadget *g, int fd, void *buffer, size_t size, bool in)
{
	for (;;) {
		if (atomic_load(&g->reset))
			return -1;
		ssize_t n = in ? write(fd, buffer, size) : read(fd, buffer, size);
		if (n >= 0) {
			atomic_fetch_add(&g->usb_bytes, (uint64_t)n);
			return n;
		}
		if (errno == EINTR && !atomic_load(&g->reset))
			continue;
		/*
		 * ESHUTDOWN: the host reset or unconfigured the device, or it
		 * went away; the next transfer waits until it is enabled again.
		 */
		log_verbose(g, "bulk %s: %s", in ? "IN" : "OUT", strerror(errno));
		if (errno != EINTR)
			nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
		return -1;
	}
}

static uint16_t
max_packet(struct gadget *g)
{
	struct usb_endpoint_descriptor descriptor;

	if (ioctl(g->in, FUNCTIONFS_ENDPOINT_DESC, &descriptor) < 0)
		return 512;
	uint16_t size = le16toh(descriptor.wMaxPacketSize) & 0x7ff;
	return size ? size : 512;
}

static void
disconnect_now(struct gadget *g, size_t received, size_t length)
{
	log_error("disconnect: gone after %zu of %zu bytes of a data phase", received, length);
	/* Closing the function's files unbinds it from the UDC: the host sees it unplugged. */
	_exit(0);
}

/*
 * The host-to-device data phase: every byte the host sends, kept in data
 * when keep. Its bytes received, or -1 when the command is to be dropped.
 */
static ssize_t
receive(struct gadget *g, uint8_t *data, size_t length, bool keep)
{
	static uint8_t scratch[CHUNK];
	size_t received = 0;
	size_t stop = length;

	/*
	 * Halfway in whole packets: a read of part of a packet would be an
	 * overflow, not a transfer cut short.
	 */
	if (length && atomic_exchange(&g->disconnect, false))
		stop = length / 2 - length / 2 % max_packet(g);
	while (received < length) {
		if (received >= stop)
			disconnect_now(g, received, length);
		size_t size = length - received;
		if (size > CHUNK)
			size = CHUNK;
		if (size > stop - received)
			size = stop - received;
		ssize_t n = transfer(g, g->out, keep ? data + received : scratch, size, false);
		if (n < 0)
			return -1;
		received += (size_t)n;
		/* a short packet ends the host's data early */
		if ((size_t)n < size)
			break;
	}
	return (ssize_t)received;
}

/* The device-to-host data phase: 0, or -1 when the command is to be dropped. */
static int
send_data(struct gadget *g, const uint8_t *data, size_t size, size_t host_length)
{
	size_t sent = 0;

	while (sent < size) {
		size_t chunk = size - sent < CHUNK ? size - sent : CHUNK;
		if (transfer(g, g->in, (void *)(data + sent), chunk, true) < 0)
			return -1;
		sent += chunk;
	}
	/*
	 * Less than the host asked for: a short packet tells it the data
	 * ended, and a transfer of whole packets needs one of no bytes.
	 */
	if (size < host_length && size % max_packet(g) == 0)
		return transfer(g, g->in, (void *)data, 0, true) < 0 ? -1 : 0;
	return 0;
}

static bool
ensure_data(struct gadget *g, size_t size)
{
	if (size <= g->data_size)
		return true;
	uint8_t *data = realloc(g->data, size);
	if (!data)
		return false;
	g->data = data;
	g->data_size = size;
	return true;
}

/*
 * An invalid CBW: as Bulk-Only Transport says, both bulk endpoints stall
 * until the host's Reset Recovery (the class reset, then clearing the halts).
 */
static void
stall_until_reset(struct gadget *g)
{
	uint8_t byte = 0;

	/* A transfer against an endpoint's direction halts it in FunctionFS. */
	if (read(g->in, &byte, 1) < 0 && errno != EBADMSG)
		log_verbose(g, "halting bulk IN: %s", strerror(errno));
	if (write(g->out, &byte, 1) < 0 && errno != EBADMSG)
		log_verbose(g, "halting bulk OUT: %s", strerror(errno));
	pthread_mutex_lock(&g->lock);
	while (!atomic_load(&g->reset))
		pthread_cond_wait(&g->reset_cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void
serve_command(struct gadget *g, const uint8_t *cbw)
{
	uint32_t tag = get_le32(cbw + 4);
	size_t length = get_le32(cbw + 8);
	bool in = cbw[12] & CBW_FLAG_IN;
	unsigned int lun = cbw[13] & 0x0f;
	size_t cb_length = cbw[14] & 0x1f;
	const uint8_t *cb = cbw + 15;
	enum vl_it8951_direction direction = !length ? VL_IT8951_NO_DATA
					     : in    ? VL_IT8951_FROM_DEVICE
						     : VL_IT8951_TO_DEVICE;
	bool meaningful = lun == 0 && cb_length >= 1 && cb_length <= 16 && length <= MAX_DATA &&
			  ensure_data(g, length ? length : 1);
	size_t residue = length;
	int status = IT8951_STATUS_CHECK_CONDITION;

	log_verbose(g, "CBW tag %08" PRIx32 " opcode %02x/%02x, %zu bytes %s", tag, cb[0],
		cb_length > 6 ? cb[6] : 0, length, in ? "in" : "out");
	if (direction == VL_IT8951_TO_DEVICE) {
		ssize_t received = receive(g, g->data, length, meaningful);
		if (received < 0)
			return;
		size_t size = (size_t)received;
		if (meaningful)
			status = it8951_emulator_command(
				g->emulator, cb, cb_length, direction, g->data, &size);
		residue = length - (size_t)received;
	} else if (direction == VL_IT8951_FROM_DEVICE) {
		size_t size = length;
		if (meaningful)
			status = it8951_emulator_command(
				g->emulator, cb, cb_length, direction, g->data, &size);
		else
			size = 0;
		if (status != IT8951_STATUS_GOOD)
			size = 0;
		if (send_data(g, g->data, size, length) < 0)
			return;
		residue = length - size;
	} else if (meaningful) {
		size_t size = 0;
		status = it8951_emulator_command(
			g->emulator, cb, cb_length, direction, g->data, &size);
		residue = 0;
	}

	uint8_t csw[CSW_SIZE];
	put_le32(csw, CSW_SIGNATURE);
	put_le32(csw + 4, tag);
	put_le32(csw + 8, (uint32_t)residue);
	csw[12] = status == IT8951_STATUS_GOOD ? CSW_GOOD : CSW_FAILED;
	log_verbose(g, "CSW tag %08" PRIx32 " residue %zu status %u", tag, residue, csw[12]);
	transfer(g, g->in, csw, sizeof(csw), true);
}

static void
serve_bulk(struct gadget *g)
{
	/* a whole high-speed packet: a longer transfer than a CBW is no CBW */
	uint8_t cbw[512];

	for (;;) {
		atomic_store(&g->reset, false);
		ssize_t n = transfer(g, g->out, cbw, sizeof(cbw), false);
		if (n < 0)
			continue;
		if (n != CBW_SIZE || get_le32(cbw) != CBW_SIGNATURE) {
			log_error("invalid CBW (%zd bytes): stalling until the host resets", n);
			stall_until_reset(g);
			continue;
		}
		serve_command(g, cbw);
	}
}

/* Control requests ***********************************************************/

static void
serve_setup(struct gadget *g, const struct usb_ctrlrequest *setup)
{
	uint8_t type = setup->bRequestType;
	uint16_t value = le16toh(setup->wValue);
	uint16_t length = le16toh(setup->wLength);
	bool class_interface = (type & USB_TYPE_MASK) == USB_TYPE_CLASS &&
			       (type & USB_RECIP_MASK) == USB_RECIP_INTERFACE;
	uint8_t byte = 0;

	log_verbose(g, "SETUP %02x %02x value %04x index %04x length %u", type, setup->bRequest,
		value, le16toh(setup->wIndex), length);
	if (class_interface && setup->bRequest == GET_MAX_LUN && (type & USB_DIR_IN) &&
		value == 0 && length >= 1) {
		/* one LUN: the highest is 0 */
		if (write(g->ep0, &byte, 1) < 0)
			log_verbose(g, "Get Max LUN: %s", strerror(errno));
		return;
	}
	if (class_interface && setup->bRequest == BULK_ONLY_RESET && !(type & USB_DIR_IN) &&
		value == 0 && length == 0) {
		request_reset(g);
		/* the status stage */
		if (read(g->ep0, &byte, 0) < 0)
			log_verbose(g, "Bulk-Only Mass Storage Reset: %s", strerror(errno));
		return;
	}
	/* Anything else stalls: FunctionFS stalls ep0 on I/O against the request's direction. */
	if (type & USB_DIR_IN) {
		if (read(g->ep0, &byte, 0) >= 0)
			log_verbose(g, "ep0 did not stall");
	} else if (write(g->ep0, &byte, 0) >= 0) {
		log_verbose(g, "ep0 did not stall");
	}
}

static void *
serve_ep0(void *data)
{
	static const char *const names[] = {
		[FUNCTIONFS_BIND] = "BIND",
		[FUNCTIONFS_UNBIND] = "UNBIND",
		[FUNCTIONFS_ENABLE] = "ENABLE",
		[FUNCTIONFS_DISABLE] = "DISABLE",
		[FUNCTIONFS_SETUP] = "SETUP",
		[FUNCTIONFS_SUSPEND] = "SUSPEND",
		[FUNCTIONFS_RESUME] = "RESUME",
	};
	struct gadget *g = data;
	struct usb_functionfs_event events[4];

	for (;;) {
		ssize_t n = read(g->ep0, events, sizeof(events));
		if (n < 0) {
			if (errno != EINTR && errno != EIDRM) {
				log_error("%s/ep0: %s", g->ffs_dir, strerror(errno));
				sleep(1);
			}
			continue;
		}
		for (size_t i = 0; i < (size_t)n / sizeof(events[0]); i++) {
			const struct usb_functionfs_event *event = &events[i];
			if (event->type != FUNCTIONFS_SETUP)
				log_verbose(g, "event %s",
					event->type < sizeof(names) / sizeof(names[0])
						? names[event->type]
						: "?");
			switch (event->type) {
			case FUNCTIONFS_SETUP:
				serve_setup(g, &event->u.setup);
				break;
			case FUNCTIONFS_DISABLE:
			case FUNCTIONFS_UNBIND:
				/* what the bulk side was doing is gone with the configuration */
				request_reset(g);
				break;
			default:
				break;
			}
		}
	}
	return NULL;
}

/* The control socket *********************************************************/

static void __attribute__((format(printf, 2, 3)))
answer_text(FILE *client, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vfprintf(client, format, args);
	va_end(args);
}

static void
control_panel(struct gadget *g, FILE *client)
{
	struct vl_panel_model *model = it8951_emulator_model(g->emulator);
	uint32_t width = vl_panel_model_width(model), height = vl_panel_model_height(model);
	uint8_t *panel = malloc((size_t)width * height);

	if (!panel) {
		answer_text(client, "error: out of memory\n");
		return;
	}
	vl_panel_model_read(model, panel);
	fprintf(client, "P5\n%" PRIu32 " %" PRIu32 "\n255\n", width, height);
	fwrite(panel, 1, (size_t)width * height, client);
	free(panel);
}

/* The line of text that ends with its last newline, malloc'ed; NULL when there is none. */
static char *
last_line(const char *text)
{
	size_t length = strlen(text);

	if (!length)
		return NULL;
	size_t start = length - 1;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	return strdup(text + start);
}

/*
 * The panel model has no way to forget its trace, as epdfb's debugfs file
 * does when written: "clear" remembers the newest line, and the lines up
 * to it are left out. Each line has its own submission and end times, so
 * it is found again as long as the trace holds it; once it fell off the
 * trace's ring, every line left is newer.
 */
static void
control_updates(struct gadget *g, FILE *client, bool clear)
{
	char *text = vl_panel_model_trace_text(it8951_emulator_model(g->emulator));

	if (!text) {
		answer_text(client, "error: out of memory\n");
		return;
	}
	if (clear) {
		char *mark = last_line(text);
		if (mark) {
			free(g->trace_mark);
			g->trace_mark = mark;
		}
		answer_text(client, "ok\n");
		free(text);
		return;
	}
	const char *start = text;
	if (g->trace_mark) {
		size_t mark_length = strlen(g->trace_mark);
		for (const char *line = text; *line;) {
			const char *end = strchr(line, '\n');
			size_t length = end ? (size_t)(end - line) + 1 : strlen(line);
			if (length == mark_length && !memcmp(line, g->trace_mark, length))
				start = line + length;
			line += length;
		}
	}
	fputs(start, client);
	free(text);
}

/* Whether the panel model became idle (nothing queued or in flight) within seconds. */
static bool
wait_idle(struct gadget *g, long seconds)
{
	struct vl_panel_model *model = it8951_emulator_model(g->emulator);
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (vl_panel_model_busy(model)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= seconds)
			return false;
		nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
	}
	return true;
}

static void
control_settle(struct gadget *g, FILE *client, const char *argument)
{
	long seconds = argument ? strtol(argument, NULL, 10) : 60;

	if (seconds <= 0)
		seconds = 60;
	if (wait_idle(g, seconds))
		answer_text(client, "ok\n");
	else
		answer_text(client, "error: the panel is still busy after %ld s\n", seconds);
}

static void
control_stats(struct gadget *g, FILE *client)
{
	char *text = vl_panel_model_stats_text(it8951_emulator_model(g->emulator));

	if (!text) {
		answer_text(client, "error: out of memory\n");
		return;
	}
	answer_text(client, "%susb_bytes: %" PRIu64 "\n", text, atomic_load(&g->usb_bytes));
	free(text);
}

/*
 * Once idle, so that no update in flight counts after the reset what it
 * was before: a benchmark's counts are those of its own updates.
 */
static void
control_stats_reset(struct gadget *g, FILE *client)
{
	if (!wait_idle(g, 60)) {
		answer_text(client, "error: the panel is still busy after 60 s\n");
		return;
	}
	vl_panel_model_stats_reset(it8951_emulator_model(g->emulator));
	atomic_store(&g->usb_bytes, 0);
	answer_text(client, "ok\n");
}

static void
control_flash(struct gadget *g, FILE *client)
{
	int result = it8951_emulator_flash(g->emulator, 60 * 1000);

	if (result == -ETIMEDOUT)
		answer_text(client, "error: the display still runs after 60 s\n");
	else if (result != 0)
		answer_text(client, "error: the board refused the display\n");
	else
		answer_text(client, "ok\n");
}

static void
control_command(struct gadget *g, FILE *client, char *line)
{
	char *save = NULL;
	char *command = strtok_r(line, " \t\r\n", &save);
	char *argument = strtok_r(NULL, " \t\r\n", &save);

	if (!command) {
		answer_text(client, "error: no command\n");
	} else if (!strcmp(command, "panel")) {
		control_panel(g, client);
	} else if (!strcmp(command, "updates")) {
		control_updates(g, client, false);
	} else if (!strcmp(command, "clear")) {
		control_updates(g, client, true);
	} else if (!strcmp(command, "settle")) {
		control_settle(g, client, argument);
	} else if (!strcmp(command, "white")) {
		if (it8951_emulator_show_white(g->emulator) != IT8951_STATUS_GOOD)
			answer_text(client, "error: the board refused the display\n");
		else
			control_settle(g, client, NULL);
	} else if (!strcmp(command, "stall") && argument &&
		   (!strcmp(argument, "on") || !strcmp(argument, "off"))) {
		it8951_emulator_stall(g->emulator, !strcmp(argument, "on"));
		answer_text(client, "ok\n");
	} else if (!strcmp(command, "vcom")) {
		answer_text(client, "%u\n", (unsigned int)it8951_emulator_vcom(g->emulator));
	} else if (!strcmp(command, "bytes")) {
		answer_text(client, "%" PRIu64 "\n", it8951_emulator_bytes_loaded(g->emulator));
	} else if (!strcmp(command, "stats")) {
		control_stats(g, client);
	} else if (!strcmp(command, "stats-reset")) {
		control_stats_reset(g, client);
	} else if (!strcmp(command, "flash")) {
		control_flash(g, client);
	} else if (!strcmp(command, "disconnect")) {
		atomic_store(&g->disconnect, true);
		answer_text(client, "ok\n");
	} else {
		answer_text(client, "error: unknown command \"%s%s%s\"\n", command,
			argument ? " " : "", argument ? argument : "");
	}
}

struct control {
	struct gadget *gadget;
	int listener;
};

static void *
serve_control(void *data)
{
	struct control *control = data;

	for (;;) {
		int fd = accept4(control->listener, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EINTR && errno != ECONNABORTED)
				log_error("control: %s", strerror(errno));
			continue;
		}
		/* a client that never finishes its line holds up no other for long */
		struct timeval timeout = {.tv_sec = 5};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
		char line[256];
		size_t used = 0;
		while (used < sizeof(line) - 1) {
			ssize_t n = read(fd, line + used, 1);
			if (n <= 0 || line[used] == '\n')
				break;
			used++;
		}
		line[used] = '\0';
		FILE *client = fdopen(fd, "w");
		if (!client) {
			close(fd);
			continue;
		}
		log_verbose(control->gadget, "control: %s", line);
		control_command(control->gadget, client, line);
		fclose(client);
	}
	return NULL;
}

static int
listen_control(const char *state_dir)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};

	if ((size_t)snprintf(address.sun_path, sizeof(address.sun_path), "%s/control", state_dir) >=
		sizeof(address.sun_path)) {
		log_error("%s/control: too long a path for a Unix socket", state_dir);
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_error("socket: %s", strerror(errno));
		return -1;
	}
	unlink(address.sun_path);
	if (bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0 || listen(fd, 8) < 0) {
		log_error("%s: %s", address.sun_path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* --send: one command to a running gadget, its answer on stdout. */
static int
send_command(const char *state_dir, int argc, char **argv)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	char line[256];
	size_t used = 0;

	if ((size_t)snprintf(address.sun_path, sizeof(address.sun_path), "%s/control", state_dir) >=
		sizeof(address.sun_path)) {
		log_error("%s/control: too long a path for a Unix socket", state_dir);
		return 2;
	}
	for (int i = 0; i < argc; i++) {
		int n = snprintf(line + used, sizeof(line) - used, "%s%s", i ? " " : "", argv[i]);
		if (n < 0 || (size_t)n >= sizeof(line) - used - 1) {
			log_error("the command is too long");
			return 2;
		}
		used += (size_t)n;
	}
	line[used++] = '\n';
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
		log_error("%s: %s", address.sun_path, strerror(errno));
		return 2;
	}
	if (write(fd, line, used) != (ssize_t)used) {
		log_error("%s: %s", address.sun_path, strerror(errno));
		return 2;
	}
	/* an error answer goes to stderr, whole */
	static const char error_prefix[] = "error: ";
	char buffer[65536];
	size_t head = 0;
	bool error = false, decided = false;
	for (;;) {
		ssize_t n = read(fd, buffer + head, sizeof(buffer) - head);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_error("%s: %s", address.sun_path, strerror(errno));
			return 2;
		}
		size_t have = head + (size_t)n;
		if (!decided && n > 0 && have < sizeof(error_prefix) - 1 &&
			!memcmp(buffer, error_prefix, have)) {
			head = have;
			continue;
		}
		if (!decided) {
			error = have >= sizeof(error_prefix) - 1 &&
				!memcmp(buffer, error_prefix, sizeof(error_prefix) - 1);
			decided = true;
		}
		if (fwrite(buffer, 1, have, error ? stderr : stdout) != have)
			return 2;
		head = 0;
		if (n == 0)
			break;
	}
	close(fd);
	if (fflush(stdout) != 0)
		return 2;
	return error ? 1 : 0;
}

static unsigned long
parse_number(const char *option, const char *text, unsigned long min, unsigned long max)
{
	char *end;
	errno = 0;
	unsigned long value = strtoul(text, &end, 10);

	if (errno || end == text || *end || value < min || value > max || text[0] == '-') {
		log_error("--%s: a number from %lu to %lu, not \"%s\"", option, min, max, text);
		exit(2);
	}
	return value;
}

static void
usage(void)
{
	fprintf(stderr, "usage: it8951-gadget --ffs DIR --state DIR [--width W] [--height H]\n"
			"                     [--time-scale PERCENT] [--vcom MV] [-v]\n"
			"       it8951-gadget --state DIR --send COMMAND [ARGUMENT...]\n");
	exit(2);
}

static int
open_file(const char *dir, const char *name, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		log_error("%s: %s", path, strerror(errno));
	return fd;
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{"ffs", required_argument, NULL, 'f'},
		{"width", required_argument, NULL, 'W'},
		{"height", required_argument, NULL, 'H'},
		{"time-scale", required_argument, NULL, 't'},
		{"vcom", required_argument, NULL, 'c'},
		{"state", required_argument, NULL, 's'},
		{"send", no_argument, NULL, 'S'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct it8951_emulator_options emulator_options = {
		.width = 1448,
		.height = 1072,
		.time_scale = 100,
	};
	static struct gadget g = {.ep0 = -1, .in = -1, .out = -1};
	bool send = false;
	int option;

	while ((option = getopt_long(argc, argv, "+v", options, NULL)) != -1) {
		switch (option) {
		case 'f':
			g.ffs_dir = optarg;
			break;
		case 'W':
			emulator_options.width = (uint32_t)parse_number("width", optarg, 1, 16384);
			break;
		case 'H':
			emulator_options.height =
				(uint32_t)parse_number("height", optarg, 1, 16384);
			break;
		case 't':
			emulator_options.time_scale =
				(unsigned int)parse_number("time-scale", optarg, 1, 100000);
			break;
		case 'c':
			emulator_options.vcom_mv = (uint16_t)parse_number("vcom", optarg, 0, 5000);
			break;
		case 's':
			g.state_dir = optarg;
			break;
		case 'S':
			send = true;
			break;
		case 'v':
			g.verbose = true;
			break;
		default:
			usage();
		}
	}
	if (!g.state_dir)
		usage();
	if (send) {
		if (optind >= argc)
			usage();
		return send_command(g.state_dir, argc - optind, argv + optind);
	}
	if (!g.ffs_dir || optind != argc)
		usage();

	/* a control client that hangs up early is no reason to die */
	signal(SIGPIPE, SIG_IGN);
	struct sigaction wake = {.sa_handler = wake_bulk};
	sigemptyset(&wake.sa_mask);
	sigaction(SIGUSR1, &wake, NULL);
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.reset_cond, NULL);
	g.bulk_thread = pthread_self();

	char error[256];
	g.emulator = it8951_emulator_create(&emulator_options, error, sizeof(error));
	if (!g.emulator) {
		log_error("%s", error);
		return 1;
	}
	g.ep0 = open_file(g.ffs_dir, "ep0", O_RDWR);
	if (g.ep0 < 0 || write_descriptors(&g) < 0)
		return 1;
	g.in = open_file(g.ffs_dir, "ep1", O_RDWR);
	g.out = open_file(g.ffs_dir, "ep2", O_RDWR);
	if (g.in < 0 || g.out < 0)
		return 1;

	static struct control control;
	control.gadget = &g;
	control.listener = listen_control(g.state_dir);
	if (control.listener < 0)
		return 1;
	pthread_t ep0_thread, control_thread;
	if (pthread_create(&ep0_thread, NULL, serve_ep0, &g) ||
		pthread_create(&control_thread, NULL, serve_control, &control)) {
		log_error("cannot start a thread");
		return 1;
	}

	/* written last, so that a script waiting for it finds everything in place */
	char ready[4096], ready_tmp[4096];
	snprintf(ready, sizeof(ready), "%s/ready", g.state_dir);
	snprintf(ready_tmp, sizeof(ready_tmp), "%s/ready.tmp", g.state_dir);
	FILE *file = fopen(ready_tmp, "w");
	if (!file || fprintf(file, "%d\n", (int)getpid()) < 0 || fclose(file) != 0 ||
		rename(ready_tmp, ready) < 0) {
		log_error("%s: %s", ready, strerror(errno));
		return 1;
	}
	log_verbose(&g, "serving %" PRIu32 "x%" PRIu32 " on %s", emulator_options.width,
		emulator_options.height, g.ffs_dir);
	serve_bulk(&g);
	return 0;
}
