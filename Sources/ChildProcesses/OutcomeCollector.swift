#if canImport(Glibc)
import Glibc
#endif

/// Runs the loop of `ChildProcess.run`: writes the child's input bytes and reads its output
/// and error pipes as they become ready (all three in one `poll`, so neither side ever
/// blocks on a full pipe), until the child exits, outlives the deadline or writes too much.
struct OutcomeCollector {
    private let processID: pid_t
    private var inputWriter: Int32?
    private var outputReader: Int32?
    private var errorReader: Int32?
    private let standardOutput: ChildProcess.Output
    private let standardError: ChildProcess.Output
    private var collectedOutput: [UInt8] = []
    private var collectedError: [UInt8] = []
    private var outputTooLarge = false
    private var consumedOutputCount = 0
    /// Given standard output as it is read, instead of collecting it (see
    /// `ChildProcess.run(timeoutSeconds:consumingOutput:)`).
    var outputConsumer: ((UnsafeBufferPointer<UInt8>) -> Void)?

    init(spawned: SpawnedChild, standardOutput: ChildProcess.Output, standardError: ChildProcess.Output) {
        processID = spawned.processID
        inputWriter = spawned.inputWriter
        outputReader = spawned.outputReader
        errorReader = spawned.errorReader
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Feeds and reads the child until it ends; reaps it. Wraps `poll(2)` and `wait4(2)`.
    consuming func collect(input: ChildProcess.Input, deadline: Double?) -> ChildProcess.Outcome {
        var pending: ArraySlice<UInt8> = if case .bytes(let bytes) = input { bytes[...] } else { [] }
        var ended: (status: Int32, usage: rusage)?
        var timedOut = false
        var idleWait = 0.000_5
        while ended == nil {
            let remaining = deadline.map { $0 - monotonicSeconds() }
            if outputTooLarge || (remaining.map { $0 <= 0 } ?? false) {
                timedOut = !outputTooLarge
                kill(processID, SIGKILL)
                ended = reap(blocking: true)
                break
            }
            let open = [inputWriter, outputReader, errorReader].compactMap { $0 }
            if open.isEmpty {
                // Every stream is done: wait for the exit itself, in growing naps while a
                // deadline must be watched.
                if remaining == nil { ended = reap(blocking: true); break }
                ended = reap(blocking: false)
                if ended == nil { usleep(UInt32(min(idleWait, remaining ?? 0) * 1e6)); idleWait = min(idleWait * 2, 0.02) }
                continue
            }
            waitForStreams(pending: &pending, timeout: min(remaining ?? 0.1, 0.1))
            // A grandchild may hold a pipe open after the child exits: the exit ends the wait.
            ended = reap(blocking: false)
        }
        drain()
        [inputWriter, outputReader, errorReader].compactMap { $0 }.forEach { close($0) }
        var outcome = ChildProcess.Outcome(status: ended?.status ?? 0, usage: ended?.usage ?? rusage())
        outcome.timedOut = timedOut
        outcome.outputTooLarge = outputTooLarge
        outcome.standardOutput = Self.trimmed(collectedOutput, standardOutput)
        outcome.standardError = Self.trimmed(collectedError, standardError)
        return outcome
    }

    /// One `poll` over the open streams, then the writes and reads they are ready for.
    private mutating func waitForStreams(pending: inout ArraySlice<UInt8>, timeout: Double) {
        var watched: [pollfd] = []
        if let inputWriter { watched.append(pollfd(fd: inputWriter, events: Int16(POLLOUT), revents: 0)) }
        for reader in [outputReader, errorReader].compactMap({ $0 }) {
            watched.append(pollfd(fd: reader, events: Int16(POLLIN), revents: 0))
        }
        let ready = poll(&watched, nfds_t(watched.count), Int32(max(1, timeout * 1000)))
        guard ready > 0 else { return }
        for entry in watched where entry.revents != 0 {
            if entry.fd == inputWriter {
                writeInput(&pending)
            } else {
                read(entry.fd)
            }
        }
    }

    /// Sends what the socket takes of the input; closes it when all is sent or the child
    /// stopped reading. Wraps `send(2)` with `MSG_NOSIGNAL`.
    private mutating func writeInput(_ pending: inout ArraySlice<UInt8>) {
        guard let writer = inputWriter else { return }
        while !pending.isEmpty {
            let sent = pending.withUnsafeBytes { send(writer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { pending = pending.dropFirst(sent); continue }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            break  // EPIPE and the like: the child will read no more.
        }
        close(writer)
        inputWriter = nil
    }

    /// Reads what is there on one output pipe; closes it at end-of-file. Wraps `read(2)`.
    private mutating func read(_ reader: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(reader, &buffer, buffer.count)
            if count > 0 {
                append(buffer[0..<count], from: reader)
                if outputTooLarge { return }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            close(reader)
            if reader == outputReader { outputReader = nil } else { errorReader = nil }
            return
        }
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>, from reader: Int32) {
        let isOutput = reader == outputReader
        if isOutput, let outputConsumer {
            consumedOutputCount += bytes.count
            if case .collect(let limit) = standardOutput, consumedOutputCount > limit { outputTooLarge = true; return }
            bytes.withUnsafeBufferPointer { outputConsumer($0) }
            return
        }
        let destination = isOutput ? standardOutput : standardError
        if isOutput { collectedOutput += bytes } else { collectedError += bytes }
        let count = isOutput ? collectedOutput.count : collectedError.count
        switch destination {
        case .collect(let limit) where count > limit:
            outputTooLarge = true
        case .collectLast(let kept) where count > 2 * kept + 65_536:
            // Trimmed now and then, not on every read: amortised, and exact at the end.
            if isOutput { collectedOutput.removeFirst(count - kept) } else { collectedError.removeFirst(count - kept) }
        default:
            break
        }
    }

    /// Reads what the child left in its pipes before it ended.
    private mutating func drain() {
        for reader in [outputReader, errorReader].compactMap({ $0 }) where !outputTooLarge { read(reader) }
    }

    /// The kept bytes of a collected stream: all of them up to a `collect` limit, or the last
    /// ones of a `collectLast`.
    private static func trimmed(_ bytes: [UInt8], _ output: ChildProcess.Output) -> [UInt8] {
        switch output {
        case .collect(let limit): return bytes.count > limit ? Array(bytes.prefix(limit)) : bytes
        case .collectLast(let kept): return bytes.count > kept ? Array(bytes.suffix(kept)) : bytes
        case .null, .inherit, .fileDescriptor: return []
        }
    }

    /// The child's status and resource usage once it has ended; nil while it runs (when not
    /// blocking). Wraps `wait4(2)`, retrying on `EINTR`.
    private func reap(blocking: Bool) -> (status: Int32, usage: rusage)? {
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let waited = wait4(processID, &status, blocking ? 0 : WNOHANG, &usage)
            if waited == processID { return (status, usage) }
            if waited < 0 && errno == EINTR { continue }
            // 0: still running; ECHILD: someone else reaped it (SIGCHLD ignored), nothing to wait for.
            return waited == 0 ? nil : (0, usage)
        }
    }
}
