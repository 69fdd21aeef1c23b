// SPDX-License-Identifier: MIT
/*
 * The panel model's device: epdfb's struct epdfb_par, set up as the
 * driver's probe sets it up for an 8 bpp panel, without the fbdev device.
 */
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* by its path: a build directory may hold a copy of kernel/ for the module */
#include "../kernel/epdfb_drv.h"
#include "panel-model.h"

#define MODEL_SIZE_MAX  16384
#define MODEL_SCALE_MAX 100000
#define MODEL_AMBIENT_C 25

struct vl_panel_model {
	struct epdfb_par par;
	int submitted; /* eventfd, counting accepted submissions */
};

struct vl_panel_model *
vl_panel_model_create(
	uint32_t width, uint32_t height, unsigned int time_scale, char *error, size_t error_size)
{
	struct vl_panel_model *model;
	struct epdfb_par *par;

	if (width == 0 || height == 0 || width > MODEL_SIZE_MAX || height > MODEL_SIZE_MAX) {
		snprintf(error, error_size, "panel size %ux%u is out of range", width, height);
		return NULL;
	}
	if (time_scale == 0 || time_scale > MODEL_SCALE_MAX) {
		snprintf(error, error_size, "time scale %u is out of range (1 to %u)", time_scale,
			MODEL_SCALE_MAX);
		return NULL;
	}
	model = calloc(1, sizeof(*model));
	if (!model)
		goto nomem;
	model->submitted = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (model->submitted < 0)
		goto nomem;
	par = &model->par;
	par->width = width;
	par->height = height;
	par->bpp = 8;
	par->line_length = width;
	par->time_scale = time_scale;
	par->ambient_temp = MODEL_AMBIENT_C;
	par->auto_update = AUTO_UPDATE_MODE_REGION_MODE;
	par->ops = &epdfb_sim_ops;
	par->screen = malloc((size_t)width * height);
	if (!par->screen)
		goto nomem;
	memset(par->screen, 0xff, (size_t)width * height);
	if (par->ops->init(par))
		goto nomem;
	if (epdfb_queue_init(par)) {
		par->ops->fini(par);
		goto nomem;
	}
	return model;

nomem:
	if (model) {
		if (model->submitted >= 0)
			close(model->submitted);
		free(model->par.screen);
	}
	free(model);
	snprintf(error, error_size, "no memory for a %ux%u panel", width, height);
	return NULL;
}

void
vl_panel_model_cancel(struct vl_panel_model *model)
{
	epdfb_queue_cancel_all(&model->par);
}

void
vl_panel_model_destroy(struct vl_panel_model *model)
{
	if (!model)
		return;
	epdfb_queue_cancel_all(&model->par);
	epdfb_queue_fini(&model->par);
	model->par.ops->fini(&model->par);
	close(model->submitted);
	free(model->par.screen);
	free(model);
}

uint8_t *
vl_panel_model_pixels(struct vl_panel_model *model)
{
	return model->par.screen;
}

uint32_t
vl_panel_model_width(const struct vl_panel_model *model)
{
	return model->par.width;
}

uint32_t
vl_panel_model_height(const struct vl_panel_model *model)
{
	return model->par.height;
}

int
vl_panel_model_submit(struct vl_panel_model *model, const struct mxcfb_update_data *update)
{
	int ret = epdfb_check_update(&model->par, update);

	if (!ret)
		ret = epdfb_queue_submit(&model->par, update);
	if (!ret)
		eventfd_write(model->submitted, 1);
	return ret;
}

int
vl_panel_model_submitted_fd(const struct vl_panel_model *model)
{
	return model->submitted;
}

bool
vl_panel_model_busy(struct vl_panel_model *model)
{
	struct epdfb_par *par = &model->par;

	mutex_lock(&par->lock);
	bool busy = par->held || !list_empty(&par->queue) || !list_empty(&par->in_flight);
	mutex_unlock(&par->lock);
	return busy;
}

int
vl_panel_model_wait(struct vl_panel_model *model, uint32_t marker, uint32_t *collided)
{
	uint32_t ignored;

	return epdfb_queue_wait_marker(&model->par, marker, collided ? collided : &ignored);
}

bool
vl_panel_model_pending(struct vl_panel_model *model, uint32_t marker)
{
	mutex_lock(&model->par.lock);
	bool pending = epdfb_queue_marker_pending(&model->par, marker);
	mutex_unlock(&model->par.lock);
	return pending;
}

int
vl_panel_model_wait_submitted(struct vl_panel_model *model)
{
	return epdfb_queue_wait_pending(&model->par);
}

/* An update in flight, progress (0 to 1) of the way, drawn over frame. */
static void
draw_progress(const struct epdfb_par *par, const struct epdfb_update *upd, double progress,
	uint8_t *frame)
{
	const struct epdfb_waveform *wf = epdfb_find_waveform(par, upd->waveform);
	const struct mxcfb_rect *r = &upd->rect;
	size_t stride = epdfb_update_stride(par->width, upd);

	if (!upd->pixels || !wf)
		return;
	for (uint32_t y = r->top; y < r->top + r->height; y++) {
		uint8_t *row = frame + (size_t)y * par->width + r->left;
		const uint8_t *to = upd->pixels + (y - r->top) * stride;
		size_t i = (size_t)y * par->width + r->left;
		for (uint32_t x = 0; x < r->width; x++, to++, i++) {
			/* another update drives it, or will */
			if (!epdfb_update_drives(par, upd, i))
				continue;
			if (upd->flashing)
				row[x] = progress < 1.0 / 3   ? 0x00
					 : progress < 2.0 / 3 ? 0xff
							      : *to;
			else if (wf->gray_levels == 2)
				row[x] = progress < 0.5 ? row[x] : *to;
			else
				row[x] = (uint8_t)(row[x] + (*to - row[x]) * progress + 0.5);
		}
	}
}

void
vl_panel_model_read_frame(struct vl_panel_model *model, uint8_t *frame, uint64_t now_ns)
{
	struct epdfb_par *par = &model->par;
	struct epdfb_update *upd;

	mutex_lock(&par->lock);
	par->ops->read_panel(par, frame);
	/* in the order they started: a later one over an earlier one shows on top */
	list_for_each_entry(upd, &par->in_flight, node)
	{
		if (now_ns <= upd->start_ns || upd->end_ns <= upd->start_ns)
			continue;
		double progress = (double)(now_ns - upd->start_ns) / (upd->end_ns - upd->start_ns);
		draw_progress(par, upd, progress < 1.0 ? progress : 1.0, frame);
	}
	mutex_unlock(&par->lock);
}

uint64_t
vl_panel_model_completions(struct vl_panel_model *model)
{
	mutex_lock(&model->par.lock);
	uint64_t completions = model->par.completions;
	mutex_unlock(&model->par.lock);
	return completions;
}

void
vl_panel_model_read(struct vl_panel_model *model, uint8_t *panel)
{
	mutex_lock(&model->par.lock);
	model->par.ops->read_panel(&model->par, panel);
	mutex_unlock(&model->par.lock);
}

size_t
vl_panel_model_trace(struct vl_panel_model *model, struct vl_panel_model_trace *trace, size_t max)
{
	struct epdfb_par *par = &model->par;

	mutex_lock(&par->lock);
	size_t n = min((size_t)par->trace_len, max);
	/* the newest n */
	for (size_t i = 0; i < n; i++) {
		const struct epdfb_trace_entry *e =
			epdfb_trace_entry(par, (unsigned int)(par->trace_len - n + i));
		trace[i] = (struct vl_panel_model_trace){
			.marker = e->marker,
			.waveform = e->waveform,
			.mode = e->mode,
			.flags = e->flags,
			.rect = e->rect,
			.submit_ns = e->submit_ns,
			.start_ns = e->start_ns,
			.end_ns = e->end_ns,
			.merged = e->merged,
			.collided = e->collided,
			.flashing = e->flashing,
		};
	}
	mutex_unlock(&par->lock);
	return n;
}

char *
vl_panel_model_trace_text(struct vl_panel_model *model)
{
	struct epdfb_par *par = &model->par;

	mutex_lock(&par->lock);
	size_t n = par->trace_len;
	char *text = malloc(n * EPDFB_TRACE_LINE_LEN + 1);
	size_t used = 0;
	for (size_t i = 0; text && i < n; i++)
		used += (size_t)epdfb_trace_line(par, epdfb_trace_entry(par, (unsigned int)i),
			text + used, EPDFB_TRACE_LINE_LEN);
	mutex_unlock(&par->lock);
	if (text)
		text[used] = '\0';
	return text;
}

char *
vl_panel_model_stats_text(struct vl_panel_model *model)
{
	struct epdfb_par *par = &model->par;
	char *text = malloc(EPDFB_STATS_TEXT_LEN);

	if (!text)
		return NULL;
	mutex_lock(&par->lock);
	epdfb_stats_text(par, text, EPDFB_STATS_TEXT_LEN);
	mutex_unlock(&par->lock);
	return text;
}

void
vl_panel_model_stats_reset(struct vl_panel_model *model)
{
	mutex_lock(&model->par.lock);
	epdfb_stats_reset(&model->par);
	mutex_unlock(&model->par.lock);
}

int
vl_panel_model_waveform(struct vl_panel_model *model, struct epdfb_waveform_info *info)
{
	return epdfb_waveform_info(&model->par, info);
}

static struct vl_panel_model_trace
describe(const struct epdfb_update *upd)
{
	return (struct vl_panel_model_trace){
		.marker = upd->n_markers ? upd->markers[0] : 0,
		.waveform = upd->waveform,
		.mode = upd->mode,
		.flags = upd->flags,
		.rect = upd->rect,
		.submit_ns = upd->submit_ns,
		.start_ns = upd->start_ns,
		.end_ns = upd->end_ns,
		.merged = upd->merged,
		.collided = upd->collided,
		.flashing = upd->flashing,
	};
}

size_t
vl_panel_model_in_flight(
	struct vl_panel_model *model, struct vl_panel_model_trace *updates, size_t max)
{
	struct epdfb_par *par = &model->par;
	struct epdfb_update *upd;
	size_t n = 0;

	mutex_lock(&par->lock);
	list_for_each_entry(upd, &par->in_flight, node)
	{
		if (n == max)
			break;
		updates[n++] = describe(upd);
	}
	mutex_unlock(&par->lock);
	return n;
}

const char *
vl_panel_model_waveform_name(uint32_t waveform)
{
	const struct epdfb_panel_ops *ops = &epdfb_sim_ops;

	for (unsigned int i = 0; i < ops->n_waveforms; i++) {
		if (ops->waveforms[i].id == waveform)
			return ops->waveforms[i].name;
	}
	return NULL;
}
