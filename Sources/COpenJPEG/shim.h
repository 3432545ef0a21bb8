#ifndef MEDIAINDEX_COPENJPEG_SHIM_H
#define MEDIAINDEX_COPENJPEG_SHIM_H
// OpenJPEG: JPEG 2000 decoding (JP2/JPX files and bare J2K codestreams).
#include <openjpeg.h>
#endif
