import Foundation

/// Reference tools the tests run (exiftool, ffmpeg): their standard output, stderr dropped.
public enum ExternalTool {
    public static let exiftool = "/usr/bin/exiftool"
    public static let ffmpeg = "/usr/bin/ffmpeg"

    /// Whether both exiftool and ffmpeg are installed.
    public static var hasExiftoolAndFFmpeg: Bool {
        FileManager.default.isExecutableFile(atPath: exiftool) && FileManager.default.isExecutableFile(atPath: ffmpeg)
    }

    /// Runs `tool` with `arguments` and waits; its standard output.
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
        return data
    }
}
