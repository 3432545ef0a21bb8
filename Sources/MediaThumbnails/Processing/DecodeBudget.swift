import Foundation

/// A budget of full-size decoded pixels shared by every decode in the process, so that
/// several huge pictures are never held at full size at once.
///
/// A 50-megapixel HEIC needs about 150 MB inside libheif and libde265 while it decodes;
/// two at once on two cores would pass the 300 MB target. Each decode takes its pixel
/// count (times bytes per sample) from the budget and waits while the budget is spent; a
/// picture larger than the whole budget waits until nothing else holds any of it.
final class DecodeBudget: @unchecked Sendable {  // all state is guarded by `condition`
    /// The process-wide budget: 40 megapixels of 8-bit samples, so a 50-MP picture decodes
    /// alone and two 16-MP ones together.
    static let shared = DecodeBudget(limit: 40_000_000)
    /// Pictures below this many pixels (under 30 MB while decoding) do not take from it.
    static let exemptBelow = 4_000_000

    let limit: Int
    private var inUse = 0
    private let condition = NSCondition()

    init(limit: Int) {
        self.limit = limit
    }

    /// Runs `body` once `cost` (clamped to the whole budget) is available, returning it after.
    func withPixels<T>(_ cost: Int, _ body: () throws -> T) rethrows -> T {
        let amount = min(max(0, cost), limit)
        guard amount > 0 else { return try body() }
        condition.lock()
        while inUse + amount > limit { condition.wait() }
        inUse += amount
        condition.unlock()
        defer {
            condition.lock()
            inUse -= amount
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Keeps freed full-size buffers from staying resident.
///
/// glibc raises its mmap threshold to the size of each large block freed (up to 32 MB), so
/// after the first big decode, 4–32 MB buffers (libheif tiles and planes, libde265 tables)
/// come from per-thread heaps that keep their freed pages: peak RSS of a two-core HEIC run
/// grew from 250 to 340 MB that way. A fixed 1 MB mmap threshold hands such blocks back
/// to the kernel when freed. Fixing it also fixes the trim threshold at 128 KB, which
/// makes small heaps shrink and regrow on every JPEG (12 % more CPU in page faults), so
/// that is set to 16 MB. Process-wide; set once, on the first thumbnail.
enum AllocatorTuning {
    static let applied: Bool = {
        #if canImport(Glibc)
        // mallopt is declared in <malloc.h>, which Glibc's module map leaves out.
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        return mallopt(trimThreshold, 16 << 20) == 1 && mallopt(mmapThreshold, 1 << 20) == 1
        #else
        return false
        #endif
    }()
}
