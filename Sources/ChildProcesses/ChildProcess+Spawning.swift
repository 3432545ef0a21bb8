#if canImport(Glibc)
import Glibc
#endif

/// A child just started: its id and this process's ends of its stream pipes.
struct SpawnedChild {
    var processID: pid_t
    /// Where its `.bytes` standard input is written (a socket, so a child that stops
    /// reading gives `EPIPE`, never `SIGPIPE`), non-blocking.
    var inputWriter: Int32?
    /// Where its collected standard output and error are read, non-blocking.
    var outputReader: Int32?
    var errorReader: Int32?
}

extension ChildProcess {
    /// Spawns the program with its streams, environment and directory set up; the parent's
    /// ends of the pipes are returned, the child's closed here. Wraps `posix_spawn(3)`.
    func spawn() throws -> SpawnedChild {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        var spawned = SpawnedChild(processID: 0)
        do {
            spawned.inputWriter = try connect(standardInput, actions: &actions, childEnds: &childEnds)
            spawned.outputReader = try connect(standardOutput, to: 1, actions: &actions, childEnds: &childEnds)
            spawned.errorReader = try connect(standardError, to: 2, actions: &actions, childEnds: &childEnds)
            try SpawnActions.closeFrom(3, in: &actions, executable: executable)
            if let workingDirectory { try SpawnActions.changeDirectory(workingDirectory, in: &actions, executable: executable) }
            spawned.processID = try spawnProcess(actions: &actions)
            return spawned
        } catch {
            [spawned.inputWriter, spawned.outputReader, spawned.errorReader].compactMap { $0 }.forEach { close($0) }
            throw error
        }
    }

    /// `posix_spawn` (or `posix_spawnp` for a bare name) with argv, envp and default signals.
    private func spawnProcess(actions: inout posix_spawn_file_actions_t) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = CStringArray([Array(executable.utf8)] + arguments)
        let environment = environmentEntries().map(CStringArray.init)
        var processID: pid_t = 0
        let code = argv.withPointers { argvPointers in
            guard let environment else {
                return spawnCall(&processID, &actions, &attributes, argvPointers, environ)
            }
            return environment.withPointers { spawnCall(&processID, &actions, &attributes, argvPointers, $0) }
        }
        guard code == 0 else {
            var reason = String(cString: strerror(code))
            if let workingDirectory, code == ENOENT || code == ENOTDIR || code == EACCES,
               access(workingDirectory, X_OK) != 0 {
                reason = "its working directory \(workingDirectory): " + reason
            }
            throw ChildProcessError(executable: executable, reason: reason)
        }
        return processID
    }

    /// `posix_spawn` for a path, `posix_spawnp` (searching PATH) for a bare name.
    private func spawnCall(_ processID: inout pid_t, _ actions: inout posix_spawn_file_actions_t,
                           _ attributes: inout posix_spawnattr_t, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
                           _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
        executable.contains("/")
            ? posix_spawn(&processID, executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&processID, executable, &actions, &attributes, argv, envp)
    }

    /// `NAME=value` entries for the child, or nil to pass this process's `environ` as it is.
    private func environmentEntries() -> [[UInt8]]? {
        func entries(_ variables: [String: String]) -> [[UInt8]] {
            variables.sorted { $0.key < $1.key }.map { Array("\($0.key)=\($0.value)".utf8) }
        }
        switch environment {
        case .inherit:
            return nil
        case .replace(let variables):
            return entries(variables)
        case .inheritAdding(let variables):
            var kept: [[UInt8]] = []
            var entry = environ
            while let pointer = entry.pointee {
                let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
                let name = String(decoding: bytes.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
                if variables[name] == nil { kept.append(bytes) }
                entry += 1
            }
            return kept + entries(variables)
        }
    }

    /// Sets up standard input; returns this process's end of its socket for `.bytes`. The
    /// child's end is added to `childEnds`, closed after the spawn.
    private func connect(_ input: Input, actions: inout posix_spawn_file_actions_t,
                         childEnds: inout [Int32]) throws -> Int32? {
        switch input {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .inherit: break
        case .fileDescriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, 0)
        case .bytes:
            let ends = try SpawnActions.socketPair(executable: executable)
            childEnds.append(ends.child)
            posix_spawn_file_actions_adddup2(&actions, ends.child, 0)
            return ends.parent
        }
        return nil
    }

    /// Sets up standard output or error (`target` 1 or 2); returns this process's end of its
    /// pipe when collected. The child's end is added to `childEnds`, closed after the spawn.
    private func connect(_ output: Output, to target: Int32, actions: inout posix_spawn_file_actions_t,
                         childEnds: inout [Int32]) throws -> Int32? {
        switch output {
        case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        case .inherit: break
        case .fileDescriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
        case .collect, .collectLast:
            let ends = try SpawnActions.pipe(executable: executable)
            childEnds.append(ends.write)
            posix_spawn_file_actions_adddup2(&actions, ends.write, target)
            return ends.read
        }
        return nil
    }
}

/// NUL-terminated C strings with their exact bytes, and a NULL after the last, as argv and
/// envp want them; freed with the value.
final class CStringArray {
    private let storage: [UnsafeMutablePointer<CChar>]

    init(_ words: [[UInt8]]) {
        storage = words.map { word in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: word.count + 1)
            for (index, byte) in word.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[word.count] = 0
            return pointer
        }
    }

    deinit { storage.forEach { $0.deallocate() } }

    func withPointers<Result>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        let pointers: [UnsafeMutablePointer<CChar>?] = storage + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
