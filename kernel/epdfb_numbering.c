// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdfb - the waveform ids of the platform its clients were written for
 *
 * NXP's mxc_epdc_fb leaves waveform ids to each device's waveform file, and
 * the devices number them differently: the same id 3 is GC4 on a Kobo and
 * GL16 on a reMarkable 1. A client sends its platform's ids, so the ioctls
 * turn them into the panel's waveforms here, also for EPDFB_GET_WAVEFORM,
 * which lists the waveforms by the platform's ids. The panel model, the
 * trace (which names waveforms) and epdrm keep the panel's own ids, which
 * are the NTX ones.
 *
 * An id the platform has but the panel has no waveform for (a reMarkable 1's
 * GL16_FAST or DU4, a Kobo Mark 9's GCK16...) is refused with EINVAL rather
 * than given another waveform: a client is told, not shown grays it did not
 * ask for. Kobos' REAGL and REAGLD are the exception: they are GL16 with
 * the controller's ghost compensation, which a simulated panel has no use
 * for, and the page turns of Kobo software (KOReader's, on every Kobo of
 * the Mark 7 on) are sent with them.
 */

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "epdfb_fb.h"

/**
 * struct epdfb_numbering - a platform's waveform ids
 * @name: the waveform_ids parameter's value for it
 * @panel: per platform id, the panel's waveform for it
 * @n: ids in @panel, from 0
 * @n_listed: ids EPDFB_GET_WAVEFORM lists, from 0; those after are other
 *	names of a waveform already listed
 */
struct epdfb_numbering {
	const char *name;
	const u32 *panel;
	unsigned int n;
	unsigned int n_listed;
};

/*
 * Kobos and other NTX boards, from the Mark 5 on (the NTX_WFM_MODE_* ids of
 * their kernels' mxc_epdc_fb): INIT, DU, GC16, GC4, A2, GL16, then 6 and 7
 * (GLR16 and GLD16, REAGL and REAGLD), run as GL16; the Mark 9's DU4, GCK16
 * and GLKW16 have no waveform here. Earlier Kobos number the waveforms they
 * have (AUTO, DU, GC16) the same way.
 */
static const u32 epdfb_ntx_ids[] = {
	WAVEFORM_MODE_INIT, WAVEFORM_MODE_DU, WAVEFORM_MODE_GC16,
	WAVEFORM_MODE_GC4, WAVEFORM_MODE_A2, WAVEFORM_MODE_GL16,
	WAVEFORM_MODE_GL16, WAVEFORM_MODE_GL16,
};

/*
 * The reMarkable 1 (its kernel's mxc_epdc_fb and waveform file, as its
 * software sends them): INIT 0, DU 1, GC16 2, GL16 3 (the name its own
 * software gives it; headers written outside reMarkable call it GC16_FAST),
 * A2 4 (named GLR16 in the kernel's header, measured to be A2). 5 (GLD16)
 * to 11 (GL16_FAST, DU4, REAGL, REAGLD, GL4, GL16_INV) have no waveform
 * here, and the panel's GC4 has no id on it.
 */
static const u32 epdfb_rm1_ids[] = {
	WAVEFORM_MODE_INIT, WAVEFORM_MODE_DU, WAVEFORM_MODE_GC16,
	WAVEFORM_MODE_GL16, WAVEFORM_MODE_A2,
};

static const struct epdfb_numbering epdfb_numberings[] = {
	{ "ntx", epdfb_ntx_ids, ARRAY_SIZE(epdfb_ntx_ids), 6 },
	{ "rm1", epdfb_rm1_ids, ARRAY_SIZE(epdfb_rm1_ids),
	  ARRAY_SIZE(epdfb_rm1_ids) },
};

static const struct epdfb_numbering *epdfb_numbering = &epdfb_numberings[0];

static int epdfb_numbering_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(epdfb_numberings); i++) {
		if (sysfs_streq(val, epdfb_numberings[i].name)) {
			epdfb_numbering = &epdfb_numberings[i];
			return 0;
		}
	}
	pr_err("epdfb: waveform_ids=%s: no such numbering; ntx (Kobo and other NTX boards) or rm1 (reMarkable 1)\n",
	       val);
	return -EINVAL;
}

static int epdfb_numbering_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", epdfb_numbering->name);
}

static const struct kernel_param_ops epdfb_numbering_ops = {
	.set = epdfb_numbering_set,
	.get = epdfb_numbering_get,
};

module_param_cb(waveform_ids, &epdfb_numbering_ops, NULL, 0444);
MODULE_PARM_DESC(waveform_ids,
		 "Waveform ids the update ioctls take: ntx (Kobo and other NTX boards) or rm1 (reMarkable 1) (default ntx)");

/**
 * epdfb_numbering_to_panel() - the panel's waveform for a platform's id
 * @id: waveform_mode as a client sent it
 *
 * Return: the panel's waveform id; WAVEFORM_MODE_AUTO for itself; or
 * EPDFB_WAVEFORM_NONE, which the panel has no waveform for, when the
 * platform has no such id or the panel no such waveform.
 */
u32 epdfb_numbering_to_panel(u32 id)
{
	if (id == WAVEFORM_MODE_AUTO)
		return id;
	if (id >= epdfb_numbering->n)
		return EPDFB_WAVEFORM_NONE;
	return epdfb_numbering->panel[id];
}

/* Whether EPDFB_GET_WAVEFORM lists @id, not only accepts it. */
bool epdfb_numbering_listed(u32 id)
{
	return id < epdfb_numbering->n_listed;
}
