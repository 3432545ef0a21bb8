import Foundation

/// Reference tools the tests run (exiftool, ffmpeg): their standard output, stderr dropped.
public enum ExternalTool {
    public static let exiftool = "/usr/bin/exiftool"
    public static let ffmpeg = "/usr/bin/ffmpeg"

    /// Whether both exiftool and ffmpeg are installed.
    public static var hasExiftoolAndFFmpeg: Bool {
        FileManager.default.isExecutableFile(atPath: exiftool) && FileManager.default.isExecutableFile(atPath: ffmpeg)
    }

    /// A tool that ended with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        public let tool: String
        public let arguments: [String]
        public let status: Int32
        public var description: String { "\(tool) \(arguments.joined(separator: " ")) exited with status \(status)" }
    }

    /// Runs `tool` with `arguments` and waits; its standard output. Throws `Failure` when the
    /// tool exits with a status other than 0.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(tool: tool, arguments: arguments, status: process.terminationStatus)
        }
        return data
    }
}
