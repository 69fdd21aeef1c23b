// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdpanel - the panel model of epdfb and epdrm: the simulated panel, its
 * update queue, the pixel conversion and the debugfs files, one module
 * both drivers load; here, what their entry points share besides: the
 * check of the panel's module parameters (each driver has its own) and
 * registering the one simulated device with its driver
 */

#include <linux/module.h>
#include <linux/platform_device.h>

#include "epdfb_drv.h"

#define EPDFB_MAX_DIM	8192
#define EPDFB_MAX_MM	10000	/* a 10 m panel; more is a typo */

/**
 * epdfb_check_panel_params() - whether the panel's parameters make sense
 * @p: a driver's module parameters
 *
 * Return: 0 or -EINVAL.
 */
int epdfb_check_panel_params(const struct epdfb_panel_params *p)
{
	if (!p->width || !p->height || p->width > EPDFB_MAX_DIM ||
	    p->height > EPDFB_MAX_DIM)
		return -EINVAL;
	/* 0 is unknown */
	if (p->width_mm > EPDFB_MAX_MM || p->height_mm > EPDFB_MAX_MM)
		return -EINVAL;
	if (!p->time_scale || p->time_scale > 100000)
		return -EINVAL;
	if (p->ambient_temp < EPDFB_TEMP_MIN || p->ambient_temp > EPDFB_TEMP_MAX)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(epdfb_check_panel_params, EPDPANEL);

/**
 * epdfb_platform_register() - register a driver and its one device
 * @drv: the platform driver; the device is named after it
 * @pdev: the device registered
 * @probe_error: where the probe leaves why it failed: registering the
 *	device does not say
 *
 * Return: 0, or why the driver or the device could not be registered or
 * probed; nothing is left registered then.
 */
int epdfb_platform_register(struct platform_driver *drv,
			    struct platform_device **pdev,
			    const int *probe_error)
{
	int ret;

	ret = platform_driver_register(drv);
	if (ret)
		return ret;
	*pdev = platform_device_register_simple(drv->driver.name, 0, NULL, 0);
	if (IS_ERR(*pdev)) {
		ret = PTR_ERR(*pdev);
		goto err_driver;
	}
	if (!platform_get_drvdata(*pdev)) {
		ret = *probe_error ?: -ENODEV;
		goto err_device;
	}
	return 0;

err_device:
	platform_device_unregister(*pdev);
err_driver:
	platform_driver_unregister(drv);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(epdfb_platform_register, EPDPANEL);

/**
 * epdfb_platform_unregister() - unregister the device and its driver
 * @drv: the platform driver
 * @pdev: its device
 */
void epdfb_platform_unregister(struct platform_driver *drv,
			       struct platform_device *pdev)
{
	platform_device_unregister(pdev);
	platform_driver_unregister(drv);
}
EXPORT_SYMBOL_NS_GPL(epdfb_platform_unregister, EPDPANEL);

MODULE_DESCRIPTION("Simulated e-paper panel and update queue of the epdfb and epdrm drivers");
MODULE_AUTHOR("The vellum developers");
MODULE_LICENSE("GPL");
