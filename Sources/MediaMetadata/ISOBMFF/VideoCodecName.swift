/// Video codec names as ffprobe spells them, so every container reports the same name
/// for the same codec (`h264`, whether the file is MP4, MKV or AVI).
enum VideoCodecName {
    private static let bySampleEntry: [String: String] = [
        "avc1": "h264", "avc2": "h264", "avc3": "h264", "avc4": "h264",
        "hvc1": "hevc", "hev1": "hevc", "dvh1": "hevc", "dvhe": "hevc",
        "av01": "av1", "vp08": "vp8", "vp09": "vp9", "mp4v": "mpeg4",
        "ap4h": "prores", "ap4x": "prores", "apch": "prores", "apcn": "prores", "apcs": "prores", "apco": "prores",
        "jpeg": "mjpeg", "mjpa": "mjpeg", "mjpb": "mjpeg", "s263": "h263", "h263": "h263",
        "png": "png", "rle": "qtrle", "cvid": "cinepak", "SVQ1": "svq1", "SVQ3": "svq3",
    ]

    /// ffprobe's name for an ISO-BMFF sample entry code; the trimmed code when unknown.
    static func forSampleEntry(_ fourCC: String) -> String {
        let code = fourCC.trimmingSpacesAndNULs()
        return bySampleEntry[code] ?? code
    }
}
