#ifndef MEDIAINDEX_CEXIF_SHIM_H
#define MEDIAINDEX_CEXIF_SHIM_H
#include <libexif/exif-data.h>
#include <libexif/exif-content.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-utils.h>
#include <libexif/exif-mnote-data.h>
#include <libexif/exif-loader.h>
#endif
