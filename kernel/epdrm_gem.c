// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - GEM shmem objects that survive the fbdev emulation's mappings
 *
 * Deferred IO in Linux 6.12 (fb_defio.c) points the struct page of every
 * page it maps to /dev/fbN's own address_space, and to NULL after the last
 * close. drm_fbdev_shmem's buffer is shmem, whose pages belong to the
 * object's file: when the object is freed, shmem's truncation skips pages
 * that do not belong to it and retries them for ever, hanging the task
 * that drops the last reference (unbind or rmmod after any fbdev program
 * mapped the device). Later kernels stopped deferred IO from touching
 * page->mapping; until then the pages are given back to their file before
 * the object is freed.
 */

#include <drm/drm_gem_shmem_helper.h>
#include <linux/pagemap.h>
#include <linux/slab.h>

#include "epdrm_drv.h"

static void epdrm_gem_reclaim_pages(struct drm_gem_object *obj)
{
	struct address_space *mapping = obj->filp->f_mapping;
	pgoff_t index, count = obj->size >> PAGE_SHIFT;
	struct folio *folio;

	for (index = 0; index < count; index++) {
		/* without FGP_LOCK: that retries while the mapping is wrong */
		folio = filemap_get_folio(mapping, index);
		if (IS_ERR(folio))
			continue;
		folio_lock(folio);
		if (folio->mapping != mapping) {
			folio->mapping = mapping;
			folio->index = index;
		}
		folio_unlock(folio);
		folio_put(folio);
	}
}

static void epdrm_gem_free(struct drm_gem_object *obj)
{
	if (obj->filp)
		epdrm_gem_reclaim_pages(obj);
	drm_gem_shmem_object_free(obj);
}

static const struct drm_gem_object_funcs epdrm_gem_funcs = {
	.free = epdrm_gem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * epdrm_gem_create_object() - a shmem GEM object with epdrm's free
 * @drm: device
 * @size: size in bytes
 *
 * Return: the object, or an ERR_PTR.
 */
struct drm_gem_object *epdrm_gem_create_object(struct drm_device *drm,
					       size_t size)
{
	struct drm_gem_shmem_object *shmem;

	shmem = kzalloc(sizeof(*shmem), GFP_KERNEL);
	if (!shmem)
		return ERR_PTR(-ENOMEM);
	shmem->base.funcs = &epdrm_gem_funcs;
	return &shmem->base;
}
