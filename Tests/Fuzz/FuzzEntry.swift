// The libFuzzer entry point shared by every target. Built by scripts/fuzz only, in one
// swiftc invocation with the module sources, so internal readers are visible.
#if canImport(Glibc)
import Glibc
#endif

/// The target this process fuzzes, chosen once by `FUZZ_TARGET`.
private let selectedTarget: ([UInt8]) -> Void = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = fuzzTargets[name] else {
        let known = fuzzTargets.keys.sorted().joined(separator: ", ")
        fputs("FUZZ_TARGET must be one of: \(known)\n", stderr)
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget(bytes)
    return 0
}
