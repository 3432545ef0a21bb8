/// Where the video of a motion photo sits inside its still, and what it holds.
///
/// Google's motion photos (`GCamera:MotionPhoto`, the older `MicroVideo`) and Samsung's
/// (`MotionPhoto_Data`) append an MP4 to the JPEG or HEIC. The video is read in place:
/// nothing is extracted.
public struct MotionPhotoInfo: Sendable, Equatable, Codable {
    /// How the video was located.
    public enum Locator: String, Sendable, Codable {
        /// The XMP `Container:Directory` item lengths, counted from the end.
        case containerDirectory
        /// `GCamera:MicroVideoOffset`: bytes from the end of the file.
        case microVideoOffset
        /// `GCamera:MotionPhotoOffset` (written by some vendors, such as vivo): bytes from the end.
        case motionPhotoOffset
        /// Samsung's `SEFT` trailer entry `MotionPhoto_Data`.
        case samsungTrailer
        /// Samsung's top-level `mpvd` box in a HEIC.
        case samsungBox
    }

    /// Byte offset of the embedded MP4 from the start of the file.
    public var videoOffset: UInt64
    /// Length of the embedded MP4 in bytes.
    public var videoLength: UInt64
    /// Bytes from the video's start to the end of the file (what `MicroVideoOffset` states).
    public var videoOffsetFromEnd: UInt64
    /// The still's position in the video, in microseconds, when the XMP states it.
    public var presentationTimestampUs: Int64?
    /// The embedded video's duration, read from its `mvhd`.
    public var videoDurationSeconds: Double?
    public var locatedBy: Locator

    public init(videoOffset: UInt64, videoLength: UInt64, videoOffsetFromEnd: UInt64,
                presentationTimestampUs: Int64? = nil, videoDurationSeconds: Double? = nil, locatedBy: Locator) {
        self.videoOffset = videoOffset
        self.videoLength = videoLength
        self.videoOffsetFromEnd = videoOffsetFromEnd
        self.presentationTimestampUs = presentationTimestampUs
        self.videoDurationSeconds = videoDurationSeconds
        self.locatedBy = locatedBy
    }
}
