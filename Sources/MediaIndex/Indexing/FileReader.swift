import Foundation
import MediaMetadata

/// What reading one file gave.
enum FileOutcome {
    /// The metadata, its JSON for `files.metadata`, and the content fingerprint; the
    /// JSON is made by the reading thread, off the single writer's path.
    case media(MediaMetadata, String, ContentFingerprint)
    case failed(String)
    case ignored
    /// A describing file's values as JSON for `files.metadata`, with its role (one of
    /// `FileRole.describing`): an XMP sidecar's (see `SidecarAttacher`), Apple
    /// adjustments' (see `AdjustmentFile`), a Google Takeout JSON's or an album folder's
    /// title (see `TakeoutAttacher`).
    case describing(FileRole, String)

    var fingerprint: ContentFingerprint? {
        if case .media(_, _, let fingerprint) = self { return fingerprint }
        return nil
    }
}

/// Reads one file: its metadata and fingerprint, from one open of the file. Never
/// throws: failures become `.failed` with one sentence.
enum FileReader {
    /// Reads the file.
    /// - Parameter fingerprint: the content's fingerprint when it is already known
    ///   (the identity plan computed it): not computed again.
    static func read(_ entry: FileWalker.Entry, fingerprint: ContentFingerprint? = nil) -> FileOutcome {
        let source: FileByteSource
        do {
            source = try FileByteSource(pathBytes: entry.path.bytes)
        } catch {
            return .failed(sentence(error))
        }
        return read(entry, from: source, fingerprint: fingerprint)
    }

    /// Reads the file and fingerprints it whatever it holds, for the identity plan
    /// (which follows content, media or not). One open serves both.
    static func readFingerprinting(_ entry: FileWalker.Entry) -> (FileOutcome, ContentFingerprint?) {
        let source: FileByteSource
        do {
            source = try FileByteSource(pathBytes: entry.path.bytes)
        } catch {
            return (.failed(sentence(error)), nil)
        }
        let fingerprint = try? ContentFingerprint(of: source)
        return (read(entry, from: source, fingerprint: fingerprint), fingerprint)
    }

    private static func read(_ entry: FileWalker.Entry, from source: FileByteSource,
                             fingerprint known: ContentFingerprint?) -> FileOutcome {
        if SidecarFile.isSidecar(entry.path) { return readSidecar(source, path: entry.path) }
        if AdjustmentFile.isAdjustmentFile(entry.path) { return readAdjustments(source) }
        if TakeoutSidecar.isJSON(entry.path) { return readTakeout(source, path: entry.path) }
        if source.size == 0 {
            return MediaFileKind.looksLikeMedia(entry.path) ? .failed("the file is empty") : .ignored
        }
        do {
            guard let metadata = try MetadataReader.read(source) else {
                if MediaFileKind.looksLikeMedia(entry.path) {
                    // A movie container that MetadataReader read as sound alone.
                    if try MetadataReader.detectFormat(source) != nil {
                        return .failed("the movie holds sound alone (no video track): an audio file, not an image or video")
                    }
                    return .failed("the content is not a recognised image or video, although the name ends in .\(entry.path.lowercasedExtension ?? "")")
                }
                return .ignored
            }
            let fingerprint = try known ?? ContentFingerprint(of: source)
            return .media(metadata, AssetRecord.encode(metadata), fingerprint)
        } catch {
            return .failed(sentence(error))
        }
    }

    /// Reads a sidecar (XMP, or a Sony clip's XML). Malformed XML gives what could be
    /// read; only an I/O failure is an error (of the sidecar's row); an XML file named
    /// like a clip's that is no clip metadata is ignored.
    static func readSidecar(_ source: ByteSource, path: PathBytes) -> FileOutcome {
        do {
            guard let values = try SidecarFile.read(source, path: path) else { return .ignored }
            return .describing(.sidecar, try values.encoded())
        } catch {
            return .failed(sentence(error))
        }
    }

    /// Reads an Apple adjustments file; one that is not Apple's property list is an
    /// error of its row.
    static func readAdjustments(_ source: ByteSource) -> FileOutcome {
        do {
            return .describing(.adjustmentData, try AdjustmentFile.read(source).encoded())
        } catch {
            return .failed(sentence(error))
        }
    }

    /// Reads a JSON file as Google Takeout's. One whose name is Takeout's and that
    /// cannot be read (too large, too deep, not JSON) is an error of its row; any other
    /// JSON that is not Takeout's is ignored. Never an asset.
    static func readTakeout(_ source: ByteSource, path: PathBytes) -> FileOutcome {
        do {
            switch try TakeoutSidecar.read(source, name: FileNameKey(path).fileName) {
            case .media(let values): return .describing(.takeoutMetadata, values.encoded())
            case .album(let values): return .describing(.takeoutAlbumMetadata, values.encoded())
            case .other: return .ignored
            }
        } catch let error as TakeoutSidecarError {
            return TakeoutSidecar.hasTakeoutName(path) ? .failed(error.description) : .ignored
        } catch {
            return .failed(sentence(error))
        }
    }

    /// One sentence for an error.
    static func sentence(_ error: Error) -> String {
        if let error = error as? MetadataError { return error.description }
        return String(describing: error)
    }
}

/// Names that promise an image or video, used only to decide whether an unreadable
/// or unrecognised file is worth reporting as an error rather than ignored.
enum MediaFileKind {
    static let mediaExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "bmp", "tif", "tiff", "heic", "heif", "hif", "avif",
        "jxl", "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "orf", "rw2", "raf", "pef", "srw",
        "x3f", "iiq", "3fr", "erf", "kdc", "mrw", "raw", "mov", "mp4", "m4v", "3gp", "3g2", "mkv", "webm", "avi",
        "mts", "m2ts", "m2t", "ts", "mpg", "mpeg", "wmv", "asf", "flv", "dv", "mxf", "ogv",
        "ari", "bay", "cap", "dcr", "dcs", "drf", "eip", "fff", "k25", "mef", "mos", "ori", "rwl",
        "jp2", "j2c", "j2k", "jpx", "ico", "bpg", "pbm", "pgm", "ppm", "pam", "pnm", "pcx", "flif", "djvu", "djv",
        "hdr", "pgf", "mrc", "czi", "lfp",
    ]

    static func looksLikeMedia(_ path: PathBytes) -> Bool {
        guard let ext = path.lowercasedExtension else { return false }
        return mediaExtensions.contains(ext)
    }
}
