// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdfb - debugfs: what the panel shows, counters and the update trace
 *
 * epdfb/fbN/panel    binary PGM (P5) of the panel, ghosts included
 * epdfb/fbN/stats    "key: value" counters; writing resets them
 * epdfb/fbN/updates  one line per completed update; writing clears it
 * epdfb/fbN/inject_capture_failures
 *                    that many pixel captures at update start fail
 * epdfb/fbN/inject_update_errors
 *                    that many updates fail when they start
 * epdfb/fbN/inject_update_hangs
 *                    that many updates hang until the driver abandons them
 * epdfb/fbN/inject_temperature_errors
 *                    that many temperature sensor reads fail
 *
 * A fault count is a u32; writing anything else fails with EINVAL.
 */

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "epdfb_drv.h"

struct epdfb_pgm {
	size_t size;
	char data[];
};

static int epdfb_panel_open(struct inode *inode, struct file *file)
{
	struct epdfb_par *par = inode->i_private;
	size_t pixels = (size_t)par->width * par->height;
	struct epdfb_pgm *pgm;
	int header;

	pgm = kvmalloc(sizeof(*pgm) + 32 + pixels, GFP_KERNEL);
	if (!pgm)
		return -ENOMEM;
	header = scnprintf(pgm->data, 32, "P5\n%u %u\n255\n", par->width,
			   par->height);
	mutex_lock(&par->lock);
	par->ops->read_panel(par, pgm->data + header);
	mutex_unlock(&par->lock);
	pgm->size = header + pixels;
	file->private_data = pgm;
	return nonseekable_open(inode, file);
}

static ssize_t epdfb_panel_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	struct epdfb_pgm *pgm = file->private_data;

	return simple_read_from_buffer(buf, count, ppos, pgm->data, pgm->size);
}

static int epdfb_panel_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations epdfb_panel_fops = {
	.owner = THIS_MODULE,
	.open = epdfb_panel_open,
	.read = epdfb_panel_read,
	.release = epdfb_panel_release,
};

static int epdfb_stats_show(struct seq_file *m, void *unused)
{
	struct epdfb_par *par = m->private;
	char *text;
	int len;

	/* allocated before the lock: updates wait for it, not for memory */
	text = kmalloc(EPDFB_STATS_TEXT_LEN, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	mutex_lock(&par->lock);
	len = epdfb_stats_text(par, text, EPDFB_STATS_TEXT_LEN);
	mutex_unlock(&par->lock);
	seq_write(m, text, len);
	kfree(text);
	return 0;
}

static int epdfb_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, epdfb_stats_show, inode->i_private);
}

static ssize_t epdfb_stats_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct epdfb_par *par = file_inode(file)->i_private;

	mutex_lock(&par->lock);
	epdfb_stats_reset(par);
	mutex_unlock(&par->lock);
	return count;
}

static const struct file_operations epdfb_stats_fops = {
	.owner = THIS_MODULE,
	.open = epdfb_stats_open,
	.read = seq_read,
	.write = epdfb_stats_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int epdfb_updates_show(struct seq_file *m, void *unused)
{
	struct epdfb_par *par = m->private;
	char line[EPDFB_TRACE_LINE_LEN];
	unsigned int i;

	mutex_lock(&par->lock);
	for (i = 0; i < par->trace_len; i++) {
		epdfb_trace_line(par, epdfb_trace_entry(par, i), line,
				 sizeof(line));
		seq_puts(m, line);
	}
	mutex_unlock(&par->lock);
	return 0;
}

static int epdfb_updates_open(struct inode *inode, struct file *file)
{
	return single_open(file, epdfb_updates_show, inode->i_private);
}

static ssize_t epdfb_updates_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	struct epdfb_par *par = file_inode(file)->i_private;

	mutex_lock(&par->lock);
	par->trace_head = 0;
	par->trace_len = 0;
	mutex_unlock(&par->lock);
	return count;
}

static const struct file_operations epdfb_updates_fops = {
	.owner = THIS_MODULE,
	.open = epdfb_updates_open,
	.read = seq_read,
	.write = epdfb_updates_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * The fault counts are taken one at a time by the queue under par->lock, so
 * they are read and set under it too, never with a plain store that could
 * undo a decrement made meanwhile.
 */
struct epdfb_inject_knob {
	struct epdfb_par *par;
	u32 *count;
};

static int epdfb_inject_get(void *data, u64 *val)
{
	struct epdfb_inject_knob *knob = data;

	mutex_lock(&knob->par->lock);
	*val = *knob->count;
	mutex_unlock(&knob->par->lock);
	return 0;
}

static int epdfb_inject_set(void *data, u64 val)
{
	struct epdfb_inject_knob *knob = data;

	if (val > U32_MAX)
		return -EINVAL;
	mutex_lock(&knob->par->lock);
	*knob->count = val;
	mutex_unlock(&knob->par->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(epdfb_inject_fops, epdfb_inject_get,
			 epdfb_inject_set, "%llu\n");

static void epdfb_debugfs_create_knobs(struct epdfb_par *par)
{
	const struct {
		const char *name;
		u32 *count;
	} knobs[] = {
		{ "inject_capture_failures", &par->inject_capture_failures },
		{ "inject_update_errors", &par->inject_update_errors },
		{ "inject_update_hangs", &par->inject_update_hangs },
		{ "inject_temperature_errors", &par->inject_temperature_errors },
	};
	struct epdfb_inject_knob *knob;
	unsigned int i;

	/* Freed after the device's removal, which removes the files first. */
	knob = devm_kcalloc(par->dev, ARRAY_SIZE(knobs), sizeof(*knob),
			    GFP_KERNEL);
	if (!knob)
		return;
	for (i = 0; i < ARRAY_SIZE(knobs); i++, knob++) {
		knob->par = par;
		knob->count = knobs[i].count;
		debugfs_create_file_unsafe(knobs[i].name, 0600, par->debugfs,
					   knob, &epdfb_inject_fops);
	}
}

/**
 * epdfb_debugfs_init() - create the directory of a registered device
 * @par: device
 * @root: the driver's directory, named after it (epdfb, epdrm)
 * @name: its name in the driver's directory: fbN, cardN
 */
void epdfb_debugfs_init(struct epdfb_par *par, struct dentry *root,
			const char *name)
{
	par->debugfs = debugfs_create_dir(name, root);
	debugfs_create_file("panel", 0400, par->debugfs, par, &epdfb_panel_fops);
	debugfs_create_file("stats", 0600, par->debugfs, par, &epdfb_stats_fops);
	debugfs_create_file("updates", 0600, par->debugfs, par,
			    &epdfb_updates_fops);
	epdfb_debugfs_create_knobs(par);
}
EXPORT_SYMBOL_NS_GPL(epdfb_debugfs_init, EPDPANEL);

/**
 * epdfb_debugfs_fini() - remove a device's debugfs directory
 * @par: device
 *
 * Waits for readers that are inside one of its files.
 */
void epdfb_debugfs_fini(struct epdfb_par *par)
{
	debugfs_remove_recursive(par->debugfs);
	par->debugfs = NULL;
}
EXPORT_SYMBOL_NS_GPL(epdfb_debugfs_fini, EPDPANEL);
