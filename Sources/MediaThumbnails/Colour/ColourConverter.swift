import CLCMS2
import Foundation

/// Converts decoded pixels to sRGB through Little CMS, from an embedded ICC profile or
/// nclx primaries and transfer.
///
/// Thumbnails are converted after shrinking (as vips' thumbnail does), so a conversion
/// costs a few thousand pixels. Transforms are cached per profile, keyed by a hash of the
/// profile's bytes (and compared byte for byte), so a library of iPhone photos builds its
/// Display P3 transform once. Relative colorimetric intent (vips' default); black-point
/// compensation for CMYK only.
enum ColourConverter {
    /// `image` (RGB or RGBA, alpha not premultiplied) in sRGB, with a warning when its
    /// declared colour space could not be used (the picture is then left as it was).
    static func toSRGB(_ image: PixelBuffer, from space: ColourSpace) -> (image: PixelBuffer, warning: String?) {
        switch space {
        case .sRGB:
            return (image, nil)
        case .icc(let profile):
            guard let transform = TransformCache.shared.transform(forICC: profile, alpha: image.channels == 4) else {
                return (image, "the embedded ICC profile could not be used (colours are shown as sRGB)")
            }
            return (transform.apply(to: image), nil)
        case .coded(let primaries, let transfer):
            guard let transform = TransformCache.shared.transform(forPrimaries: primaries) else { return (image, nil) }
            return (transform.applyLinear(to: image, transfer: CodedTransfer(transfer)), nil)
        }
    }

    /// RGB from 8-bit CMYK pixels through the file's CMYK profile; `inverted` for Adobe's
    /// APP14 JPEGs, which store 255 − ink. Nil when the profile is not a usable CMYK one.
    static func rgb(fromCMYK image: PixelBuffer, profile: [UInt8], inverted: Bool) -> PixelBuffer? {
        guard image.channels == 4,
              let transform = TransformCache.shared.transform(forCMYK: profile, inverted: inverted) else { return nil }
        return transform.apply(to: image, outputChannels: 3)
    }

    /// RGB from 8-bit CMYK by the simple complement formula, for CMYK without a usable
    /// profile (libtiff's RGBA reader uses the same one). `inverted`: Adobe (Photoshop) JPEGs
    /// store 255 − ink, which their APP14 segment announces; TIFF stores the ink itself.
    static func naiveRGB(fromCMYK image: PixelBuffer, inverted: Bool) -> PixelBuffer {
        let count = image.width * image.height
        var out = [UInt8](repeating: 0, count: count * 3)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<count {
                    var c = UInt32(src[i * 4]), m = UInt32(src[i * 4 + 1])
                    var y = UInt32(src[i * 4 + 2]), k = UInt32(src[i * 4 + 3])
                    if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                    dst[i * 3] = UInt8((c * k + 127) / 255)
                    dst[i * 3 + 1] = UInt8((m * k + 127) / 255)
                    dst[i * 3 + 2] = UInt8((y * k + 127) / 255)
                }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: out)
    }

    /// sRGB from 8-bit L*a*b* pixels in lcms2's encoding (L* 0…100 as 0…255, a* and b*
    /// offset by 128) relative to `white` (a chromaticity; D50 when nil): each pixel to XYZ
    /// with that white, adapted (Bradford) to the D50 of the connection space, then through
    /// lcms2 to sRGB, whose profile adapts D50 to D65. So D65-relative Lab reaches sRGB
    /// unadapted, as vips reads it, and D50 Lab as ICC workflows convert it. Nil when lcms2
    /// cannot build the transform.
    static func rgb(fromLab image: PixelBuffer, white: (x: Double, y: Double)?) -> PixelBuffer? {
        guard image.channels == 3, let transform = TransformCache.shared.transformFromXYZ() else { return nil }
        var whiteXYZ = cmsD50_XYZ().pointee
        if let white {
            var chromaticity = cmsCIExyY(x: white.x, y: white.y, Y: 1)
            cmsxyY2XYZ(&whiteXYZ, &chromaticity)
        }
        let count = image.width * image.height
        var xyz = [Double](repeating: 0, count: count * 3)
        for i in 0..<count {
            var lab = cmsCIELab(L: Double(image.pixels[i * 3]) * 100 / 255, a: Double(image.pixels[i * 3 + 1]) - 128,
                                b: Double(image.pixels[i * 3 + 2]) - 128)
            var relative = cmsCIEXYZ(), adapted = cmsCIEXYZ()
            cmsLab2XYZ(&whiteXYZ, &relative, &lab)
            if cmsAdaptToIlluminant(&adapted, &whiteXYZ, cmsD50_XYZ(), &relative) == 0 { adapted = relative }
            xyz[i * 3] = adapted.X; xyz[i * 3 + 1] = adapted.Y; xyz[i * 3 + 2] = adapted.Z
        }
        var rgb = [UInt8](repeating: 0, count: count * 3)
        xyz.withUnsafeBytes { source in
            rgb.withUnsafeMutableBytes { destination in
                cmsDoTransform(transform.handle, source.baseAddress, destination.baseAddress, cmsUInt32Number(count))
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: rgb)
    }

    /// Whether an ICC profile describes CMYK (so a CMYK JPEG can be converted with it).
    static func isCMYKProfile(_ profile: [UInt8]) -> Bool {
        profile.count >= 20 && Array(profile[16..<20]) == Array("CMYK".utf8)
    }
}

/// One lcms2 transform, deleted when released.
///
/// `@unchecked Sendable`: created with `cmsFLAGS_NOCACHE`, which lcms2 documents as what
/// makes `cmsDoTransform` safe to call on one transform from several threads at once.
final class ColourTransform: @unchecked Sendable {
    let handle: cmsHTRANSFORM
    /// The input is one gray channel (taken from the first of an RGB buffer's channels).
    let grayInput: Bool
    let inputChannels: Int

    init(handle: cmsHTRANSFORM, grayInput: Bool, inputChannels: Int) {
        self.handle = handle
        self.grayInput = grayInput
        self.inputChannels = inputChannels
    }

    deinit { cmsDeleteTransform(handle) }

    /// Runs the transform over every pixel; wraps `cmsDoTransform`.
    func apply(to image: PixelBuffer, outputChannels: Int? = nil) -> PixelBuffer {
        let count = image.width * image.height
        let outChannels = outputChannels ?? image.channels
        var input = image.pixels
        if grayInput {
            input = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialised in
                for i in 0..<count { buffer[i] = image.pixels[i * image.channels] }
                initialised = count
            }
        }
        // COPY_ALPHA copies alpha only when both formats carry it; the output starts as the input.
        var output = outChannels == image.channels ? image.pixels : [UInt8](repeating: 255, count: count * outChannels)
        input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                cmsDoTransform(handle, source.baseAddress, destination.baseAddress, cmsUInt32Number(count))
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: outChannels, pixels: output)
    }

    /// Decodes each sample through `transfer` to linear light, then transforms the linear
    /// floats (this transform's input profile has linear curves) to 8-bit sRGB.
    func applyLinear(to image: PixelBuffer, transfer: CodedTransfer) -> PixelBuffer {
        let count = image.width * image.height
        let table = (0..<256).map { Float(transfer.linear(Double($0) / 255)) }
        var linear = [Float](repeating: 0, count: count * 3)
        for i in 0..<count {
            for c in 0..<3 { linear[i * 3 + c] = table[Int(image.pixels[i * image.channels + c])] }
        }
        var rgb = [UInt8](repeating: 0, count: count * 3)
        linear.withUnsafeBytes { source in
            rgb.withUnsafeMutableBytes { destination in
                cmsDoTransform(handle, source.baseAddress, destination.baseAddress, cmsUInt32Number(count))
            }
        }
        guard image.channels == 4 else { return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: rgb) }
        var out = image.pixels
        for i in 0..<count { for c in 0..<3 { out[i * 4 + c] = rgb[i * 3 + c] } }
        return PixelBuffer(width: image.width, height: image.height, channels: 4, pixels: out)
    }
}

/// The process-wide cache of transforms to sRGB. A bounded number of entries: a library
/// holds a handful of distinct profiles, and a hostile one cannot grow it without end.
final class TransformCache: @unchecked Sendable {  // `entries` is guarded by `lock`, each entry by its own
    static let shared = TransformCache()
    static let capacity = 64

    /// A profile's bytes and how its pixels are laid out; hashed by a digest of the bytes.
    struct Key: Hashable {
        let digest: UInt64
        let kind: Int
        let bytes: [UInt8]

        init(bytes: [UInt8], kind: Int) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            digest = hash
            self.kind = kind
            self.bytes = bytes
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
            hasher.combine(kind)
        }
    }

    /// One profile's transform, built once by whichever thread asks first; the others asking
    /// for the same profile wait for it on `lock`, and nobody else does.
    private final class Entry: @unchecked Sendable {  // `transform` is guarded by `lock`
        let lock = NSLock()
        var transform: ColourTransform??
    }

    private let lock = NSLock()  // guards `entries` and `buildCount`
    private var entries: [Key: Entry] = [:]

    private init() {
        cmsSetLogErrorHandler(nil)
    }

    /// How many transforms have been built (tests check that a second photo reuses the first's).
    var built: Int {
        lock.lock()
        defer { lock.unlock() }
        return buildCount
    }
    private var buildCount = 0

    func transform(forICC profile: [UInt8], alpha: Bool) -> ColourTransform? {
        cached(Key(bytes: profile, kind: alpha ? 1 : 0)) {
            Self.make(profile: profile, alpha: alpha)
        }
    }

    func transform(forCMYK profile: [UInt8], inverted: Bool) -> ColourTransform? {
        cached(Key(bytes: profile, kind: inverted ? 3 : 2)) {
            guard let input = Self.open(profile), cmsGetColorSpace(input) == cmsSigCmykData else { return nil }
            defer { cmsCloseProfile(input) }
            let format = inverted ? mediaindex_lcms_cmyk8_inverted() : mediaindex_lcms_cmyk8()
            // Black-point compensation: a press profile's black is far above zero, and
            // without it every shadow darker than the ink's black clips to one value.
            return Self.build(input, format, mediaindex_lcms_rgb8(), flags: UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION),
                              gray: false, channels: 4)
        }
    }

    /// From CIE XYZ (doubles, D50, white Y = 1) to 8-bit sRGB, relative colorimetric.
    func transformFromXYZ() -> ColourTransform? {
        cached(Key(bytes: [], kind: 4)) {
            guard let xyz = cmsCreateXYZProfile() else { return nil }
            defer { cmsCloseProfile(xyz) }
            return Self.build(xyz, mediaindex_lcms_xyz_double(), mediaindex_lcms_rgb8(), flags: 0, gray: false, channels: 3)
        }
    }

    func transform(forPrimaries code: Int) -> ColourTransform? {
        cached(Key(bytes: [], kind: 100 + code)) {
            guard let primaries = CodedPrimaries(code) else { return nil }
            var white = cmsCIExyY(x: primaries.white.x, y: primaries.white.y, Y: 1)
            var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: primaries.red.x, y: primaries.red.y, Y: 1),
                                         Green: cmsCIExyY(x: primaries.green.x, y: primaries.green.y, Y: 1),
                                         Blue: cmsCIExyY(x: primaries.blue.x, y: primaries.blue.y, Y: 1))
            guard let curve = cmsBuildGamma(nil, 1.0) else { return nil }
            defer { cmsFreeToneCurve(curve) }
            var curves: [OpaquePointer?] = [curve, curve, curve]
            guard let input = curves.withUnsafeMutableBufferPointer({ cmsCreateRGBProfile(&white, &triple, $0.baseAddress) })
            else { return nil }
            defer { cmsCloseProfile(input) }
            return Self.build(input, mediaindex_lcms_rgb_float(), mediaindex_lcms_rgb8(), flags: 0, gray: false, channels: 3)
        }
    }

    /// The transform for `key`, made by `make` the first time. The cache's lock is held only
    /// to find the entry: a slow build (a 557 KB press profile takes tens of milliseconds)
    /// holds up the threads waiting for that same profile, not every thread's conversion.
    private func cached(_ key: Key, _ make: () -> ColourTransform?) -> ColourTransform? {
        lock.lock()
        let entry: Entry
        if let found = entries[key] {
            entry = found
        } else {
            if entries.count >= Self.capacity { entries.removeAll() }
            entry = Entry()
            entries[key] = entry
        }
        lock.unlock()

        entry.lock.lock()
        defer { entry.lock.unlock() }
        if let made = entry.transform { return made }
        let made = make()
        entry.transform = made
        lock.lock()
        buildCount += 1
        lock.unlock()
        return made
    }

    private static func open(_ profile: [UInt8]) -> cmsHPROFILE? {
        guard profile.count >= 132, profile.count < 64 << 20 else { return nil }
        return profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
    }

    private static func make(profile: [UInt8], alpha: Bool) -> ColourTransform? {
        guard let input = open(profile) else { return nil }
        defer { cmsCloseProfile(input) }
        switch cmsGetColorSpace(input) {
        case cmsSigRgbData:
            let format = alpha ? mediaindex_lcms_rgba8() : mediaindex_lcms_rgb8()
            return build(input, format, format, flags: alpha ? UInt32(cmsFLAGS_COPY_ALPHA) : 0, gray: false,
                         channels: alpha ? 4 : 3)
        case cmsSigGrayData:
            // Gray pictures arrive replicated into RGB; the first channel is the gray.
            let output = alpha ? mediaindex_lcms_rgba8() : mediaindex_lcms_rgb8()
            return build(input, mediaindex_lcms_gray8(), output, flags: 0, gray: true, channels: 1)
        default:
            return nil
        }
    }

    /// A transform from `input` to sRGB. Each build opens its own sRGB profile (a few
    /// microseconds), so builds on different threads share no lcms2 profile handle.
    private static func build(_ input: cmsHPROFILE, _ inputFormat: cmsUInt32Number,
                              _ outputFormat: cmsUInt32Number, flags: UInt32, gray: Bool, channels: Int) -> ColourTransform? {
        guard let output = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(output) }
        guard let handle = cmsCreateTransform(input, inputFormat, output, outputFormat, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC),
                                              cmsUInt32Number(cmsFLAGS_NOCACHE) | flags) else { return nil }
        return ColourTransform(handle: handle, grayInput: gray, inputChannels: channels)
    }
}
