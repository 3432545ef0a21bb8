import Foundation
import MediaIndex

/// Query timings on a large library. Filled in by the query layer's benchmark.
enum QueryBenchmark {
    static func run(work: String, runs: Int) throws -> [Row] { [] }
}
