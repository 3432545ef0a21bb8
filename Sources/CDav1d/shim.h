#ifndef MEDIAINDEX_CDAV1D_SHIM_H
#define MEDIAINDEX_CDAV1D_SHIM_H
// dav1d: the AV1 decoder libheif uses, called directly for AVIF primary images
// (types and constants only; the library is opened with dlopen).
#include <dav1d/dav1d.h>
#endif
