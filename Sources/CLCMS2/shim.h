#ifndef MEDIAINDEX_CLCMS2_SHIM_H
#define MEDIAINDEX_CLCMS2_SHIM_H
// Little CMS 2: ICC profile transforms to sRGB.
#include <lcms2.h>

// The pixel-format macros are composites Swift cannot import.
static inline cmsUInt32Number mediaindex_lcms_rgb8(void) { return TYPE_RGB_8; }
static inline cmsUInt32Number mediaindex_lcms_rgba8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number mediaindex_lcms_gray8(void) { return TYPE_GRAY_8; }
static inline cmsUInt32Number mediaindex_lcms_cmyk8(void) { return TYPE_CMYK_8; }
static inline cmsUInt32Number mediaindex_lcms_cmyk8_inverted(void) { return TYPE_CMYK_8_REV; }
static inline cmsUInt32Number mediaindex_lcms_rgb_float(void) { return TYPE_RGB_FLT; }
static inline cmsUInt32Number mediaindex_lcms_xyz_double(void) { return TYPE_XYZ_DBL; }
#endif
