// SPDX-License-Identifier: MIT
/*
 * vellum: a Wayland kiosk compositor for e-paper panels. Runs one
 * application fullscreen on the panel and exits with its status.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "log.h"
#include "server.h"

#ifndef VELLUM_VERSION
#define VELLUM_VERSION "unknown"
#endif

struct options {
	const char *config_path;
	const char *device;
	int rotation;            /* -1: as configured */
	unsigned int time_scale; /* 0: as configured */
	const char *record_dir;
	bool validate, verbose, no_xwayland;
	char **app; /* NULL-terminated, NULL: none given */
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: vellum [OPTIONS] [--] APPLICATION [ARGUMENTS...]\n"
		     "\n"
		     "Runs APPLICATION fullscreen on an e-paper panel and exits with its status.\n"
		     "\n"
		     "  -c FILE          read the configuration from FILE\n"
		     "  -C, --validate   check the configuration and exit\n"
		     "  -d DEVICE        the panel: auto, /dev/fbN, mxc:/dev/fbN, plain:/dev/fbN,\n"
		     "                   drm:/dev/dri/cardN, memory:WIDTHxHEIGHT, or\n"
		     "                   preview[:WIDTHxHEIGHT] (a window on the desktop)\n"
		     "  -r DEGREES       the panel is turned clockwise by 0, 90, 180 or 270\n"
		     "  --time-scale PERCENT\n"
		     "                   the preview panel's waveforms take PERCENT of their time\n"
		     "  --record DIR     with -d preview: record the panel's frames, its updates\n"
		     "                   and its final picture in DIR\n"
		     "  -v               log more\n"
		     "  --no-xwayland    do not run X11 applications\n"
		     "  -h, --help       show this help and exit\n"
		     "  --version        show the version and exit\n");
}

/* 0: go on, else the exit status + 1 (0 for -h and --version). */
static int
parse_options(int argc, char **argv, struct options *options)
{
	enum { OPT_VERSION = 256, OPT_NO_XWAYLAND, OPT_TIME_SCALE, OPT_RECORD };
	static const struct option long_options[] = {
		{"validate", no_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, OPT_VERSION},
		{"no-xwayland", no_argument, NULL, OPT_NO_XWAYLAND},
		{"time-scale", required_argument, NULL, OPT_TIME_SCALE},
		{"record", required_argument, NULL, OPT_RECORD},
		{0},
	};
	int opt;

	*options = (struct options){.rotation = -1};
	/* "+": options end at the application's name */
	while ((opt = getopt_long(argc, argv, "+c:Cd:r:vh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			options->config_path = optarg;
			break;
		case 'C':
			options->validate = true;
			break;
		case 'd':
			options->device = optarg;
			break;
		case 'r':
			if (strcmp(optarg, "0") && strcmp(optarg, "90") && strcmp(optarg, "180") &&
				strcmp(optarg, "270")) {
				fprintf(stderr,
					"vellum: -r %s: the rotation is 0, 90, 180 or 270\n",
					optarg);
				return 2;
			}
			options->rotation = atoi(optarg);
			break;
		case 'v':
			options->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("vellum %s\n", VELLUM_VERSION);
			return 1;
		case OPT_NO_XWAYLAND:
			options->no_xwayland = true;
			break;
		case OPT_RECORD:
			options->record_dir = optarg;
			break;
		case OPT_TIME_SCALE:
			if (!vl_config_parse_time_scale(optarg, &options->time_scale)) {
				fprintf(stderr,
					"vellum: --time-scale %s: expected a percentage from 1 to "
					"%d\n",
					optarg, VL_TIME_SCALE_MAX);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		options->app = &argv[optind];
	return 0;
}

static bool
load_config(struct vl_server *server, const struct options *options)
{
	char error[VL_ERROR_SIZE];

	vl_config_init(&server->config);
	server->config_path =
		options->config_path ? strdup(options->config_path) : vl_config_find();
	if (server->config_path &&
		!vl_config_load(&server->config, server->config_path, error, sizeof(error))) {
		fprintf(stderr, "vellum: %s\n", error);
		return false;
	}
	if (options->device) {
		free(server->config.device);
		server->config.device = strdup(options->device);
	}
	if (options->rotation >= 0)
		server->config.rotation = options->rotation;
	if (options->time_scale)
		server->config.time_scale = options->time_scale;
	return true;
}

static pid_t
spawn(char **argv)
{
	pid_t pid = fork();
	sigset_t none;

	if (pid != 0)
		return pid;
	/* The event loop blocks the signals it takes through signalfd. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "vellum: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int
exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static int
handle_sigchld(int signal, void *data)
{
	struct vl_server *server = data;
	int status;
	(void)signal;

	if (server->child > 0 && waitpid(server->child, &status, WNOHANG) == server->child) {
		server->child = 0;
		server->exit_status = exit_status_of(status);
		wl_display_terminate(server->display);
	}
	return 0;
}

static int
handle_termination(int signal, void *data)
{
	struct vl_server *server = data;

	if (server->child > 0)
		kill(server->child, signal);
	wl_display_terminate(server->display);
	return 0;
}

#define SWAP(a, b)                           \
	do {                                 \
		__typeof__(a) swapped = (a); \
		(a) = (b);                   \
		(b) = swapped;               \
	} while (0)

/*
 * Reads the file again and takes all of it but [panel]: the panel (device,
 * waveform map, rotation, as the command line may have set them) stays as
 * started. What the file leaves out goes back to its default, as at a start.
 */
static bool
reload_config(struct vl_config *config, const char *path, char *error, size_t error_size)
{
	struct vl_config fresh;

	vl_config_init(&fresh);
	if (!vl_config_load(&fresh, path, error, error_size)) {
		vl_config_finish(&fresh);
		return false;
	}
	SWAP(config->device, fresh.device);
	SWAP(config->waveform_map, fresh.waveform_map);
	SWAP(config->rotation, fresh.rotation);
	SWAP(config->scale, fresh.scale);
	SWAP(config->time_scale, fresh.time_scale);
	SWAP(config->vcom_mv, fresh.vcom_mv);
	SWAP(*config, fresh);
	vl_config_finish(&fresh);
	return true;
}

/* SIGHUP: everything but the panel is read again. */
static int
handle_sighup(int signal, void *data)
{
	struct vl_server *server = data;
	char error[VL_ERROR_SIZE];
	(void)signal;

	if (!server->config_path) {
		fprintf(stderr, "vellum: no configuration file to reload\n");
		return 0;
	}
	if (!reload_config(&server->config, server->config_path, error, sizeof(error))) {
		fprintf(stderr, "vellum: %s (the configuration in use stays)\n", error);
		return 0;
	}
	vl_server_apply_config(server);
	/* as a failed reload is told: whoever sent the signal learns it took */
	fprintf(stderr, "vellum: configuration reloaded from %s\n", server->config_path);
	return 0;
}

/*
 * Ends the application if it is still running, giving it a moment to go.
 * Clients are still served meanwhile: an application that talks to the
 * compositor on its way out (foot does) would otherwise wait for it until
 * it is killed.
 */
static void
end_child(struct vl_server *server)
{
	int status;

	if (server->child <= 0)
		return;
	kill(server->child, SIGTERM);
	for (int i = 0; i < 50 && server->child > 0; i++) {
		if (waitpid(server->child, &status, WNOHANG) == server->child) {
			server->child = 0;
			server->exit_status = exit_status_of(status);
			return;
		}
		wl_display_flush_clients(server->display);
		wl_event_loop_dispatch(server->loop, 40);
	}
	/* the SIGCHLD handler may have reaped it while the loop ran */
	if (server->child <= 0)
		return;
	kill(server->child, SIGKILL);
	if (waitpid(server->child, &status, 0) == server->child)
		server->exit_status = exit_status_of(status);
}

int
main(int argc, char **argv)
{
	struct vl_server server = {.exit_status = 1};
	struct options options;
	char error[VL_ERROR_SIZE];

	int parsed = parse_options(argc, argv, &options);
	if (parsed)
		return parsed - 1;
	vl_log_init(options.verbose ? WLR_DEBUG : WLR_ERROR);
	if (!load_config(&server, &options))
		goto out;
	if (options.validate) {
		printf("%s: ok\n", server.config_path ? server.config_path : "built-in defaults");
		server.exit_status = 0;
		goto out;
	}
	if (!options.app) {
		fprintf(stderr, "vellum: no application to run\n");
		usage(stderr);
		goto out;
	}

	server.xwayland_enabled = !options.no_xwayland;
	server.record_dir = options.record_dir;
	if (!vl_server_init(&server, error, sizeof(error))) {
		fprintf(stderr, "vellum: %s\n", error);
		goto out;
	}
	server.sigchld = wl_event_loop_add_signal(server.loop, SIGCHLD, handle_sigchld, &server);
	server.sigterm =
		wl_event_loop_add_signal(server.loop, SIGTERM, handle_termination, &server);
	server.sigint = wl_event_loop_add_signal(server.loop, SIGINT, handle_termination, &server);
	server.sighup = wl_event_loop_add_signal(server.loop, SIGHUP, handle_sighup, &server);
	server.child = spawn(options.app);
	if (server.child < 0) {
		fprintf(stderr, "vellum: cannot start %s: %s\n", options.app[0], strerror(errno));
	} else {
		wl_display_run(server.display);
		end_child(&server);
		if (server.panel_gone)
			server.exit_status = 1;
	}
	wl_event_source_remove(server.sigchld);
	wl_event_source_remove(server.sigterm);
	wl_event_source_remove(server.sigint);
	wl_event_source_remove(server.sighup);

out:
	vl_server_finish(&server);
	vl_config_finish(&server.config);
	free(server.config_path);
	return server.exit_status;
}
