// Every fuzz target, by name. Adding a target: one file in Targets/, one line here.
// scripts/fuzz seeds a target from corpus files whose names end in one of `seeds`.
let fuzzTargets: [String: ([UInt8]) -> Void] = [
    "exif": fuzzExif,
    "jpeg": fuzzJPEG,
    "tiff": fuzzTIFF,
    "tiff-walker": fuzzTIFFWalker,
    "isobmff": fuzzISOBMFF,
    "matroska": fuzzMatroska,
    "riff-avi": fuzzAVI,
    "riff-webp": fuzzWebP,
    "png": fuzzPNG,
    "gif": fuzzGIF,
    "bmp": fuzzBMP,
    "ciff": fuzzCIFF,
    "x3f": fuzzX3F,
    "jxl": fuzzJXL,
    "xmp": fuzzXMP,
    "asf": fuzzASF,
    "flv": fuzzFLV,
    "dv": fuzzDV,
    "mpeg": fuzzMPEG,
    "metadata-reader": fuzzMetadataReader,
]
