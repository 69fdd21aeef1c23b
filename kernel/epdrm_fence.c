// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - settle fences: a commit's fence that signals when the panel has
 * finished every update of the commit's damage
 *
 * A commit that sets the plane's EPD_SETTLE_FENCE_PTR gets a sync_file fd
 * written there, as OUT_FENCE_PTR does for the flip. The commit's updates
 * carry one marker of the panel model; when the last update carrying it is
 * done, the fence signals. It signals with the error of the first of them
 * that failed, in the order they completed, whichever completes last; with
 * -ENODEV if the device went away first or the commit came too late to show
 * anything. Settle fences complete out of order (a DU update overtakes an
 * earlier INIT elsewhere), so each has a fence context of its own.
 *
 * A sync_file may keep a fence long after the device and every file of it
 * are gone, and the fence core calls the fence's ops (names, release) as
 * long as it lives: each fence holds the module, and lets go of it only in
 * an RCU callback after its memory is freed, which module exit waits for
 * with rcu_barrier().
 */

#include <linux/dma-fence.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "epdrm_drv.h"

/**
 * struct epdrm_settle - a commit's settle fence
 * @base: the fence
 * @lock: the fence's lock
 * @node: link in the device's list of fences waiting for their marker,
 *	from the first update submitted until the fence signals; the list
 *	holds a reference
 * @marker: the panel model's marker its updates carry
 * @error: the first error of its updates, 0 while none failed
 * @armed: every update of the commit is submitted: the fence signals when
 *	none carrying @marker is left
 *
 * @node, @error and @armed are under the device's par.lock.
 */
struct epdrm_settle {
	struct dma_fence base;
	spinlock_t lock; /* the fence's */
	struct list_head node;
	u32 marker;
	int error;
	bool armed;
};

static const char *epdrm_settle_driver_name(struct dma_fence *fence)
{
	return "epdrm";
}

static const char *epdrm_settle_timeline_name(struct dma_fence *fence)
{
	return "panel settled";
}

static struct epdrm_settle *to_settle(struct dma_fence *fence)
{
	return container_of(fence, struct epdrm_settle, base);
}

/*
 * The module's last code a fence runs. rcu_barrier() in module exit returns
 * only once every callback queued before it has returned, and the module
 * cannot begin to exit before the last fence's callback has let it go.
 */
static void epdrm_settle_free(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct epdrm_settle, base.rcu));
	module_put(THIS_MODULE);
}

/*
 * RCU readers of a fence (dma_fence_get_rcu_safe()) may still look at it:
 * it is freed after a grace period, as the core frees fences.
 */
static void epdrm_settle_release(struct dma_fence *fence)
{
	call_rcu(&fence->rcu, epdrm_settle_free);
}

static const struct dma_fence_ops epdrm_settle_ops = {
	.get_driver_name = epdrm_settle_driver_name,
	.get_timeline_name = epdrm_settle_timeline_name,
	.release = epdrm_settle_release,
};

/* Called with par->lock held. */
static void epdrm_settle_note_error(struct epdrm_settle *settle, int error)
{
	if (!settle->error)
		settle->error = error;
}

/* Called with par->lock held. */
static void epdrm_settle_signal(struct epdrm_settle *settle)
{
	list_del_init(&settle->node);
	if (settle->error)
		dma_fence_set_error(&settle->base, settle->error);
	dma_fence_signal(&settle->base);
	dma_fence_put(&settle->base);
}

/*
 * The panel model's marker_done, for each update carrying @marker that is
 * done: called with par->lock held.
 */
static void epdrm_settle_marker_done(struct epdfb_par *par, u32 marker,
				     int error, bool settled)
{
	struct epdrm_device *epd = container_of(par, struct epdrm_device, par);
	struct epdrm_settle *settle, *next;

	if (READ_ONCE(par->dead))
		error = -ENODEV;
	list_for_each_entry_safe(settle, next, &epd->settle_pending, node) {
		if (settle->marker != marker)
			continue;
		if (error)
			epdrm_settle_note_error(settle, error);
		if (settled && settle->armed)
			epdrm_settle_signal(settle);
	}
}

/* Called with par->lock held. */
static void epdrm_settle_track(struct epdrm_device *epd,
			       struct epdrm_settle *settle)
{
	if (!list_empty(&settle->node))
		return;
	dma_fence_get(&settle->base);
	list_add_tail(&settle->node, &epd->settle_pending);
}

/**
 * epdrm_settle_init() - let the panel model signal settle fences
 * @epd: device
 */
void epdrm_settle_init(struct epdrm_device *epd)
{
	INIT_LIST_HEAD(&epd->settle_pending);
	epd->par.marker_done = epdrm_settle_marker_done;
}

/**
 * epdrm_settle_create() - a settle fence for a commit, with its marker
 * @epd: device
 *
 * Return: the fence, or NULL without memory.
 */
struct dma_fence *epdrm_settle_create(struct epdrm_device *epd)
{
	struct epdrm_settle *settle;

	settle = kzalloc(sizeof(*settle), GFP_KERNEL);
	if (!settle)
		return NULL;
	/*
	 * Called from a commit on an open file of the device, which holds
	 * the module: the fence takes its own reference.
	 */
	__module_get(THIS_MODULE);
	spin_lock_init(&settle->lock);
	INIT_LIST_HEAD(&settle->node);
	dma_fence_init(&settle->base, &epdrm_settle_ops, &settle->lock,
		       dma_fence_context_alloc(1), 1);
	/* 0 is no marker */
	settle->marker = atomic_inc_return(&epd->next_marker) ?:
			 atomic_inc_return(&epd->next_marker);
	return &settle->base;
}

/**
 * epdrm_settle_marker() - the marker a fence's updates carry
 * @fence: a settle fence
 *
 * Return: the marker.
 */
u32 epdrm_settle_marker(struct dma_fence *fence)
{
	return to_settle(fence)->marker;
}

/**
 * epdrm_settle_begin() - collect the results of a fence's updates
 * @epd: device
 * @fence: the commit's settle fence, before its first update is submitted
 *
 * An update may fail and be done before the commit has submitted the
 * others: its error is kept for the fence from here on.
 */
void epdrm_settle_begin(struct epdrm_device *epd, struct dma_fence *fence)
{
	mutex_lock(&epd->par.lock);
	epdrm_settle_track(epd, to_settle(fence));
	mutex_unlock(&epd->par.lock);
}

/**
 * epdrm_settle_arm() - wait for the updates of a fence's commit
 * @epd: device
 * @fence: the commit's settle fence, its updates submitted
 * @error: why the commit could not show all it had to (an update lost,
 *	the device unplugged), or 0
 *
 * Signals at once if they are all done already (or there were none), with
 * the first error of those done, else @error.
 */
void epdrm_settle_arm(struct epdrm_device *epd, struct dma_fence *fence,
		      int error)
{
	struct epdrm_settle *settle = to_settle(fence);
	struct epdfb_par *par = &epd->par;

	mutex_lock(&par->lock);
	epdrm_settle_track(epd, settle);
	if (error)
		epdrm_settle_note_error(settle, error);
	settle->armed = true;
	if (par->dead) {
		epdrm_settle_note_error(settle, -ENODEV);
		epdrm_settle_signal(settle);
	} else if (!epdfb_queue_marker_pending(par, settle->marker)) {
		epdrm_settle_signal(settle);
	}
	mutex_unlock(&par->lock);
}

/**
 * epdrm_settle_cancel_all() - signal every waiting fence: the device is gone
 * @epd: device, its updates cancelled
 */
void epdrm_settle_cancel_all(struct epdrm_device *epd)
{
	struct epdrm_settle *settle, *next;

	mutex_lock(&epd->par.lock);
	list_for_each_entry_safe(settle, next, &epd->settle_pending, node) {
		epdrm_settle_note_error(settle, -ENODEV);
		epdrm_settle_signal(settle);
	}
	mutex_unlock(&epd->par.lock);
}

/**
 * epdrm_settle_install() - the fd of a commit's settle fence, for userspace
 * @fence: the fence
 * @ptr: where userspace wants the fd
 * @out: the reserved fd and its file, installed by epdrm_settle_publish()
 *	once the commit succeeds
 *
 * Return: 0, -EFAULT or -ENOMEM.
 */
int epdrm_settle_install(struct dma_fence *fence, s32 __user *ptr,
			 struct epdrm_settle_fd *out)
{
	struct sync_file *sync_file;
	int fd, ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	sync_file = sync_file_create(fence);
	if (!sync_file) {
		ret = -ENOMEM;
		goto err_fd;
	}
	if (put_user(fd, ptr)) {
		ret = -EFAULT;
		goto err_file;
	}
	out->fd = fd;
	out->file = sync_file->file;
	out->ptr = ptr;
	return 0;

err_file:
	fput(sync_file->file);
err_fd:
	put_unused_fd(fd);
	return ret;
}

/**
 * epdrm_settle_publish() - install or drop a reserved settle fence fd
 * @settle_fd: from epdrm_settle_install()
 * @committed: whether the commit went through
 */
void epdrm_settle_publish(struct epdrm_settle_fd *settle_fd, bool committed)
{
	if (!settle_fd->file)
		return;
	if (committed) {
		fd_install(settle_fd->fd, settle_fd->file);
	} else {
		fput(settle_fd->file);
		put_unused_fd(settle_fd->fd);
		/* as the core does with OUT_FENCE_PTR: no fd after all */
		if (put_user(-1, settle_fd->ptr))
			settle_fd->ptr = NULL;
	}
	settle_fd->file = NULL;
}
