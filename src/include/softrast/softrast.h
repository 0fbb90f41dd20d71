/* softrast/softrast.h — the umbrella header: every public header of libsoftrast.
 * Modules, top to bottom (arrows only point down): viewer (SDL2) → record → debug → scene → shaders/raster, bvh, collide → geom → math,
 * all on core. */
#ifndef SOFTRAST_SOFTRAST_H
#define SOFTRAST_SOFTRAST_H

#include <softrast/core.h>
#include <softrast/math.h>
#include <softrast/geom.h>
#include <softrast/collide.h>
#include <softrast/bvh.h>
#include <softrast/bvh_dynamic.h>
#include <softrast/raster.h>
#include <softrast/shaders.h>
#include <softrast/scene.h>
#include <softrast/debug.h>
#include <softrast/record.h>
#include <softrast/viewer.h>

#endif
