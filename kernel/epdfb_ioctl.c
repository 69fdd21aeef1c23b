// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdfb - ioctls: the mxc_epdc_fb update API and the epdfb extensions
 *
 * Everything a caller passes is checked here, before it reaches the queue,
 * and the waveform ids it passes are its platform's (epdfb_numbering.c):
 * they become the panel's here.
 */

#include <linux/compat.h>
#include <linux/fb.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "epdfb_drv.h"
#include "epdfb_fb.h"

static int epdfb_submit(struct epdfb_par *par, struct mxcfb_update_data *req)
{
	int ret;

	req->waveform_mode = epdfb_numbering_to_panel(req->waveform_mode);
	ret = epdfb_check_update(par, req);
	if (ret)
		return ret;
	return epdfb_queue_submit(par, req);
}

static int epdfb_send_update(struct epdfb_par *par, void __user *argp)
{
	struct mxcfb_update_data req;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	return epdfb_submit(par, &req);
}

/*
 * The update structure of the NTX kernels before the Mark 7, in any of its
 * sizes (see epdfb.h): the fields up to flags are those of struct
 * mxcfb_update_data, where they are there; the dither fields, which it
 * lacks, are 0, and the alternate buffer is refused whatever it holds.
 */
static int epdfb_send_update_v1(struct epdfb_par *par, void __user *argp,
				size_t size)
{
	u8 buf[EPDFB_MXC_UPDATE_DATA_V1_NTX_LP64_SIZE];
	struct mxcfb_update_data req = { };

	BUILD_BUG_ON(sizeof(struct epdfb_mxc_update_data_v1) > sizeof(buf));
	if (WARN_ON_ONCE(size > sizeof(buf)))
		return -ENOTTY;
	if (copy_from_user(buf, argp, size))
		return -EFAULT;
	memcpy(&req, buf, offsetof(struct mxcfb_update_data, dither_mode));
	return epdfb_submit(par, &req);
}

/* The NTX kernels' wait before the Mark 7: a bare marker, no result back. */
static int epdfb_wait_for_update_v1(struct epdfb_par *par, u32 __user *argp)
{
	u32 marker, collided;

	if (get_user(marker, argp))
		return -EFAULT;
	return epdfb_queue_wait_marker(par, marker, &collided);
}

static int epdfb_wait_for_update(struct epdfb_par *par, void __user *argp)
{
	struct mxcfb_update_marker_data data;
	int ret;

	if (copy_from_user(&data, argp, sizeof(data)))
		return -EFAULT;
	ret = epdfb_queue_wait_marker(par, data.update_marker,
				      &data.collision_test);
	if (ret)
		return ret;
	if (copy_to_user(argp, &data, sizeof(data)))
		return -EFAULT;
	return 0;
}

/* The platform's ids become the panel's, each one the panel has. */
static bool epdfb_modes_valid(const struct epdfb_par *par,
			      struct mxcfb_waveform_modes *m)
{
	int *ids[] = { &m->mode_init, &m->mode_du, &m->mode_gc4,
		       &m->mode_gc8, &m->mode_gc16, &m->mode_gc32 };
	unsigned int i;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		if (*ids[i] < 0 || *ids[i] == WAVEFORM_MODE_AUTO)
			return false;
		id = epdfb_numbering_to_panel(*ids[i]);
		if (!epdfb_find_waveform(par, id))
			return false;
		*ids[i] = id;
	}
	return true;
}

static int epdfb_set_waveform_modes(struct epdfb_par *par, void __user *argp)
{
	struct mxcfb_waveform_modes modes;

	if (copy_from_user(&modes, argp, sizeof(modes)))
		return -EFAULT;
	if (!epdfb_modes_valid(par, &modes))
		return -EINVAL;
	mutex_lock(&par->lock);
	par->modes = modes;
	mutex_unlock(&par->lock);
	return 0;
}

/*
 * The waveforms the platform has an id for, in the order of their ids,
 * with those ids: the id a client passes is the one it gets here.
 */
static int epdfb_get_waveform(struct epdfb_par *par, void __user *argp)
{
	const struct epdfb_waveform *wf;
	struct epdfb_waveform_info wi;
	u32 index;
	int ret;

	if (copy_from_user(&wi, argp, sizeof(wi)))
		return -EFAULT;
	index = wi.index;
	wf = epdfb_find_waveform(par, epdfb_numbering_to_panel(index));
	if (!epdfb_numbering_listed(index) || !wf)
		return -EINVAL;
	wi.index = wf - par->ops->waveforms;
	ret = epdfb_waveform_info(par, &wi);
	if (ret)
		return ret;
	wi.index = index;
	wi.id = index;
	if (copy_to_user(argp, &wi, sizeof(wi)))
		return -EFAULT;
	return 0;
}

static int epdfb_set_u32(struct epdfb_par *par, u32 __user *argp, u32 *field,
			 u32 max)
{
	u32 value;

	if (get_user(value, argp))
		return -EFAULT;
	if (value > max)
		return -EINVAL;
	mutex_lock(&par->lock);
	/* auto_update is also read without the lock, by the drawing helpers */
	WRITE_ONCE(*field, value);
	mutex_unlock(&par->lock);
	return 0;
}

static int epdfb_set_temperature(struct epdfb_par *par, s32 __user *argp)
{
	s32 temp;

	if (get_user(temp, argp))
		return -EFAULT;
	if (!epdfb_temp_valid(temp))
		return -EINVAL;
	mutex_lock(&par->lock);
	par->ambient_temp = temp;
	mutex_unlock(&par->lock);
	return 0;
}

static int epdfb_set_pwrdown_delay(struct epdfb_par *par, s32 __user *argp)
{
	s32 delay;

	if (get_user(delay, argp))
		return -EFAULT;
	if (delay < FB_POWERDOWN_DISABLE)
		return -EINVAL;
	epdfb_queue_set_pwrdown_delay(par, delay);
	return 0;
}

static int epdfb_get_pwrdown_delay(struct epdfb_par *par, s32 __user *argp)
{
	s32 delay;

	mutex_lock(&par->lock);
	delay = par->pwrdown_delay_ms;
	mutex_unlock(&par->lock);
	return put_user(delay, argp);
}

/*
 * What the driver's waits let go of while they sleep: the fbdev lock, or
 * with wait_holds_lock the driver's own ioctl lock (see epdfb_ioctl()).
 */
static void epdfb_ioctl_release(struct epdfb_par *par)
{
	if (par->wait_holds_lock)
		mutex_unlock(&par->ioctl_lock);
	else
		unlock_fb_info(par->info);
}

static void epdfb_ioctl_reacquire(struct epdfb_par *par)
{
	if (par->wait_holds_lock)
		mutex_lock(&par->ioctl_lock);
	else
		lock_fb_info(par->info);
}

static int epdfb_ioctl_locked(struct fb_info *info, unsigned int cmd,
			      unsigned long arg)
{
	struct epdfb_par *par = info->par;
	void __user *argp = (void __user *)arg;
	int ret;

	switch (cmd) {
	case MXCFB_WAIT_FOR_UPDATE_COMPLETE:
		if (par->wait_holds_lock)
			return epdfb_wait_for_update(par, argp);
		epdfb_ioctl_release(par);
		ret = epdfb_wait_for_update(par, argp);
		epdfb_ioctl_reacquire(par);
		return ret;
	case EPDFB_MXC_WAIT_FOR_UPDATE_COMPLETE_V1:
		if (par->wait_holds_lock)
			return epdfb_wait_for_update_v1(par, argp);
		epdfb_ioctl_release(par);
		ret = epdfb_wait_for_update_v1(par, argp);
		epdfb_ioctl_reacquire(par);
		return ret;
	case FBIO_WAITFORVSYNC:
		epdfb_ioctl_release(par);
		/*
		 * What was written before the call, through the mapping or
		 * write(), becomes updates now, so that the wait covers it.
		 */
		flush_delayed_work(&info->deferred_work);
		ret = epdfb_queue_wait_pending(par);
		epdfb_ioctl_reacquire(par);
		return ret;
	case MXCFB_SEND_UPDATE:
		return epdfb_send_update(par, argp);
	case EPDFB_MXC_SEND_UPDATE_V1:
	case EPDFB_MXC_SEND_UPDATE_V1_NTX:
	case EPDFB_MXC_SEND_UPDATE_V1_NTX_LP64:
		return epdfb_send_update_v1(par, argp, _IOC_SIZE(cmd));
	case MXCFB_SET_WAVEFORM_MODES:
		return epdfb_set_waveform_modes(par, argp);
	case MXCFB_SET_TEMPERATURE:
		return epdfb_set_temperature(par, argp);
	case MXCFB_SET_AUTO_UPDATE_MODE:
		return epdfb_set_u32(par, argp, &par->auto_update,
				     AUTO_UPDATE_MODE_AUTOMATIC_MODE);
	case MXCFB_SET_UPDATE_SCHEME:
		return epdfb_set_u32(par, argp, &par->scheme,
				     UPDATE_SCHEME_QUEUE_AND_MERGE);
	case MXCFB_SET_PWRDOWN_DELAY:
		return epdfb_set_pwrdown_delay(par, argp);
	case MXCFB_GET_PWRDOWN_DELAY:
		return epdfb_get_pwrdown_delay(par, argp);
	case EPDFB_GET_WAVEFORM:
		return epdfb_get_waveform(par, argp);
	default:
		return -ENOTTY;
	}
}

/**
 * epdfb_ioctl() - fb_ops.fb_ioctl
 * @info: fbdev device
 * @cmd: ioctl number
 * @arg: its argument, a user pointer for every command handled
 *
 * The fbdev core holds info->lock around fb_ioctl. The waits can last
 * seconds and touch nothing that lock guards, and holding it would stall
 * every other ioctl on the device meanwhile, such as a compositor's next
 * SEND_UPDATE while its completion thread waits, so they drop it.
 *
 * mxc_epdc_fb does hold it during a marker wait; wait_holds_lock reproduces
 * that for the driver's own ioctls, so that userspace can be tested against
 * it, but with a lock of the driver's: FBIOPUT_VSCREENINFO and the console
 * take console_lock before info->lock, and a marker wait holding info->lock
 * would stall the writes of every text console behind it.
 *
 * Return: 0 or a negative error code; -ENOTTY for unknown commands.
 */
int epdfb_ioctl(struct fb_info *info, unsigned int cmd, unsigned long arg)
{
	struct epdfb_par *par = info->par;
	int ret;

	if (!par->wait_holds_lock)
		return epdfb_ioctl_locked(info, cmd, arg);
	unlock_fb_info(info);
	mutex_lock(&par->ioctl_lock);
	ret = epdfb_ioctl_locked(info, cmd, arg);
	mutex_unlock(&par->ioctl_lock);
	lock_fb_info(info);
	return ret;
}

#ifdef CONFIG_COMPAT
/**
 * epdfb_compat_ioctl() - fb_ops.fb_compat_ioctl, for 32-bit processes
 * @info: fbdev device
 * @cmd: ioctl number
 * @arg: a 32-bit user pointer
 *
 * Every structure of the update API is made of fixed-size fields, so 32-bit
 * and 64-bit processes share one layout and one handler. The NTX update
 * structure, whose size depends on the pointer it holds, comes with the
 * size in its command number, whichever the process. The fbdev core
 * calls this without info->lock, which epdfb_ioctl() expects to hold.
 *
 * Return: as epdfb_ioctl().
 */
int epdfb_compat_ioctl(struct fb_info *info, unsigned int cmd,
		       unsigned long arg)
{
	int ret;

	lock_fb_info(info);
	ret = epdfb_ioctl(info, cmd, (unsigned long)compat_ptr(arg));
	unlock_fb_info(info);
	return ret;
}
#endif
