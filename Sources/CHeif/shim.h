#ifndef MEDIAINDEX_CHEIF_SHIM_H
#define MEDIAINDEX_CHEIF_SHIM_H
// libheif: HEIC, HEIF and AVIF decoding; applies irot/imir transformations itself.
#include <libheif/heif.h>
// The decoder plugin interface: MediaThumbnails registers its own HEVC decoder.
#include <libheif/heif_plugin.h>
#endif
