// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdfb - what the entry points of epdfb and epdrm share: the panel's
 * module parameters, their checks, and registering the one simulated
 * device with its driver
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>

#include "epdfb_drv.h"

#define EPDFB_MAX_DIM	8192
#define EPDFB_MAX_MM	10000	/* a 10 m panel; more is a typo */

struct epdfb_panel_params epdfb_panel = {
	.width = 1872,
	.height = 1404,
	/* the 10.3" 4:3 panel of the default size; 0: unknown */
	.width_mm = 209,
	.height_mm = 157,
	.time_scale = 100,
	.ambient_temp = 25,
};

module_param_named(width, epdfb_panel.width, uint, 0444);
MODULE_PARM_DESC(width, "Panel width in pixels (default 1872)");
module_param_named(height, epdfb_panel.height, uint, 0444);
MODULE_PARM_DESC(height, "Panel height in pixels (default 1404)");
module_param_named(width_mm, epdfb_panel.width_mm, uint, 0444);
MODULE_PARM_DESC(width_mm, "Panel width in millimetres, 0 if unknown (default 209)");
module_param_named(height_mm, epdfb_panel.height_mm, uint, 0444);
MODULE_PARM_DESC(height_mm, "Panel height in millimetres, 0 if unknown (default 157)");
module_param_named(time_scale, epdfb_panel.time_scale, uint, 0444);
MODULE_PARM_DESC(time_scale,
		 "Waveform durations are multiplied by time_scale/100 (default 100)");
module_param_named(ambient_temp, epdfb_panel.ambient_temp, int, 0444);
MODULE_PARM_DESC(ambient_temp, "Panel temperature in degrees C, 0..50 (default 25)");

/**
 * epdfb_check_panel_params() - whether the panel's parameters make sense
 *
 * Return: 0 or -EINVAL.
 */
int epdfb_check_panel_params(void)
{
	const struct epdfb_panel_params *p = &epdfb_panel;

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
