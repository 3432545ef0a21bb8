import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// Two roots of copied corpus files, a library, and a watcher with short delays.
final class WatchedTree {
    let folder = TemporaryFolder()
    var first: String { folder.file("first") }
    var second: String { folder.file("second") }
    let library: MediaLibrary
    var configuration = LibraryWatcher.Configuration()
    private(set) var watcher: LibraryWatcher?
    private let recorder = EventRecorder()

    /// A 100 × 68 Canon EOS 40D JPEG (exiftool: File:ImageWidth 100, File:ImageHeight 68).
    static let canon = "ianare-exif-samples/jpg/Canon_40D.jpg"
    static let tinyJPEG = "mathiasbynens-small/jpeg.jpg"
    static let tinyPNG = "mathiasbynens-small/png-transparent.png"

    init(roots: Int = 1, files: [(String, String)] = []) throws {
        library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: true)
        if roots > 1 { try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true) }
        for (source, name) in files { try copy(source, to: first + "/" + name) }
        try library.blocking.index(roots: roots > 1 ? [PathBytes(first), PathBytes(second)] : [PathBytes(first)])
        configuration.quietPeriod = 0.2
        configuration.maximumDelay = 0.4
        configuration.rootsRefreshInterval = 0.3
    }

    deinit { watcher?.stop() }

    func copy(_ source: String, to target: String) throws {
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + source, toPath: target)
    }

    /// Starts the watcher and waits for its catch-up run.
    @discardableResult
    func start() throws -> LibraryWatcher {
        // Events are recorded on the watcher's thread: a task reading `events()` could
        // starve while the tests' waits hold the cooperative pool's few threads.
        var configuration = configuration
        configuration.hooks.events = { [recorder] event in recorder.append(event) }
        let watcher = LibraryWatcher(library: library, configuration: configuration)
        try watcher.start()
        self.watcher = watcher
        #expect(eventually { watcher.status.runCount >= 1 }, "the startup run ended")
        return watcher
    }

    var events: [WatcherEvent] { recorder.events }
    var runs: [WatchRun] { events.compactMap { if case .run(let run) = $0 { run } else { nil } } }

    func asset(_ path: String) -> Asset? { try? library.blocking.asset(path: PathBytes(path)) }

    func changes(since token: ChangeToken = .initial) -> [AssetChange] { (try? library.blocking.changes(since: token).changes) ?? [] }
}

/// Collects a watcher's events as its test hook hands them over, on the watcher's thread.
final class EventRecorder: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [WatcherEvent] = []

    func append(_ event: WatcherEvent) {
        lock.lock()
        stored.append(event)
        lock.unlock()
    }

    var events: [WatcherEvent] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// Runs the jobs of the tasks that prefer it on one thread of its own, so that such a task
/// goes on at once even while other tests' waits hold every thread of the cooperative pool.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `stopped` are only touched under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init(name: String) {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs already enqueued have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty { condition.unlock(); return }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Waits up to `seconds` for `condition`; gives whether it came true.
func eventually(_ seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

@Suite("Library watcher", .serialized, .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct LibraryWatcherTests {
    @Test("a file written slowly is indexed once, after it is closed, with its real dimensions")
    func slowWrite() throws {
        let tree = try WatchedTree()
        try tree.start()
        let bytes = [UInt8](try Data(contentsOf: Corpus.media!.appendingPathComponent(WatchedTree.canon)))
        let target = tree.first + "/slow.jpg"
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        let half = bytes.count / 2
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, half) }
        usleep(600_000)  // longer than the quiet period and the maximum delay
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + half, bytes.count - half) }
        usleep(600_000)
        #expect(tree.asset(target) == nil, "not indexed while still open for writing")
        #expect(try tree.library.blocking.errors().isEmpty, "no error recorded for the half-written file")
        close(fd)

        #expect(eventually { tree.asset(target) != nil })
        let asset = try #require(tree.asset(target))
        let readings = try #require(Corpus.exiftool[WatchedTree.canon])
        #expect(asset.pixelWidth.map(Double.init) == readings["File:ImageWidth"]?.number)
        #expect(asset.pixelHeight.map(Double.init) == readings["File:ImageHeight"]?.number)
        let entries = tree.changes().filter { $0.id == asset.id }
        #expect(entries.map(\.kind) == [.inserted], "inserted once, never as a partial file")
    }

    /// How a copy tool writes: in one open, or opening, appending and closing per chunk.
    enum CopyStyle: String, CaseIterable { case oneOpen, openPerChunk }

    @Test("a file copied in slowly (1 MB/s) while other files arrive gets one asset, one identifier, one inserted entry",
          arguments: CopyStyle.allCases)
    func slowCopyIndexedOnce(style: CopyStyle) throws {
        let tree = try WatchedTree()
        try tree.start()
        let token = try tree.library.blocking.currentChangeToken()
        // A JPEG with 1.2 MB of trailing bytes: readable (and fingerprinted) at any cut.
        let jpeg = [UInt8](try Data(contentsOf: Corpus.media!.appendingPathComponent(WatchedTree.canon)))
        let bytes = jpeg + [UInt8](repeating: 0xA5, count: 1_200_000)
        let target = tree.first + "/copied.jpg"
        let chunk = 50_000
        var fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        for (index, start) in stride(from: 0, to: bytes.count, by: chunk).enumerated() {
            if style == .openPerChunk { fd = open(target, O_WRONLY | O_APPEND) }
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + start, min(chunk, bytes.count - start)) }
            if style == .openPerChunk { close(fd) }
            // Other files arrive meanwhile and are indexed (the runs walk the whole root).
            if index % 8 == 4 { try tree.copy(WatchedTree.tinyJPEG, to: tree.first + "/other-\(index).jpg") }
            usleep(50_000)  // 50 KB every 50 ms: 1 MB/s, about 1.3 s in all
        }
        if style == .oneOpen { close(fd) }

        #expect(eventually { tree.asset(target) != nil })
        #expect(eventually { (try? tree.library.blocking.asset(path: PathBytes(tree.first + "/other-20.jpg"))) != nil })
        usleep(600_000)  // past the quiet period: any later run has happened
        let asset = try #require(tree.asset(target))
        #expect(asset.resources.first?.bytes == Int64(bytes.count), "indexed from its whole content")
        #expect(asset.revision == 1, "never updated from partial content")
        let entries = tree.changes(since: token).filter { $0.id == asset.id }
        #expect(entries.map(\.kind) == [.inserted], "\(style): \(entries.map(\.kind))")
        #expect(tree.runs.contains { ($0.summary?.deferred ?? 0) > 0 }, "a run met the copy and left it for later")
    }

    @Test("events() delivers the run that indexed a new file, with the file counted as added")
    func eventsStream() async throws {
        let tree = try WatchedTree()
        let watcher = try tree.start()
        let stream = watcher.events()  // subscribed before the file appears: its run cannot be missed
        // The stream is read on a thread of its own: a task on the shared pool may resume minutes late.
        let reader = DedicatedThreadExecutor(name: "watcher-events-test")
        defer { reader.stop() }
        let firstRunWithAFile = Task(executorPreference: reader) { () -> WatchRun? in
            for await event in stream {
                if case .run(let run) = event, (run.summary?.added ?? 0) > 0 { return run }
            }
            return nil  // the watcher stopped first
        }
        let target = tree.first + "/new.jpg"
        try tree.copy(WatchedTree.canon, to: target)
        // Ends the stream (and so the reader) if no such run comes within a minute.
        let giveUp = DispatchWorkItem { watcher.stop() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: giveUp)
        let run = await firstRunWithAFile.value
        giveUp.cancel()
        #expect(run != nil, "events() delivered no run with an added file within 60 s")
        #expect(run?.summary?.added == 1)
        #expect(run?.error == nil)
        #expect(run?.roots == [PathBytes(tree.first)])
        let asset = try #require(tree.asset(target), "the run's file is in the library")
        #expect(tree.changes().filter { $0.id == asset.id }.map(\.kind) == [.inserted])
    }

    @Test("a renamed file keeps its identifier, and the feed says moved")
    func rename() throws {
        let tree = try WatchedTree(files: [(WatchedTree.canon, "a.jpg")])
        let before = try #require(tree.asset(tree.first + "/a.jpg"))
        try tree.start()
        let token = try tree.library.blocking.currentChangeToken()
        try FileManager.default.moveItem(atPath: tree.first + "/a.jpg", toPath: tree.first + "/renamed.jpg")
        #expect(eventually { tree.asset(tree.first + "/renamed.jpg") != nil })
        #expect(tree.asset(tree.first + "/renamed.jpg")?.id == before.id)
        #expect(tree.asset(tree.first + "/a.jpg") == nil)
        #expect(tree.changes(since: token).map(\.kind) == [.moved])
    }

    @Test("a file moved between two roots keeps its identifier (one run sees both ends)")
    func moveBetweenRoots() throws {
        let tree = try WatchedTree(roots: 2, files: [(WatchedTree.canon, "a.jpg")])
        let before = try #require(tree.asset(tree.first + "/a.jpg"))
        try tree.start()
        let token = try tree.library.blocking.currentChangeToken()
        // Another file system would copy and delete; rename(2) within /tmp gives the event pair.
        try FileManager.default.moveItem(atPath: tree.first + "/a.jpg", toPath: tree.second + "/a.jpg")
        #expect(eventually { tree.asset(tree.second + "/a.jpg") != nil })
        #expect(tree.asset(tree.second + "/a.jpg")?.id == before.id)
        #expect(tree.changes(since: token).map(\.kind) == [.moved])
        #expect(eventually { tree.runs.last?.roots.count == 2 })
    }

    @Test("a deleted file leaves the assets, and the feed says deleted")
    func deletion() throws {
        let tree = try WatchedTree(files: [(WatchedTree.canon, "a.jpg"), (WatchedTree.tinyPNG, "b.png")])
        let gone = try #require(tree.asset(tree.first + "/a.jpg"))
        try tree.start()
        let token = try tree.library.blocking.currentChangeToken()
        try FileManager.default.removeItem(atPath: tree.first + "/a.jpg")
        #expect(eventually { (try? tree.library.blocking.asset(id: gone.id)) == nil })
        let entries = tree.changes(since: token)
        #expect(entries.map(\.kind) == [.deleted])
        #expect(entries.first?.id == gone.id)
        #expect(tree.asset(tree.first + "/b.png") != nil)
    }

    @Test("new folders are watched as they appear, and a folder moved in is indexed whole")
    func newFolders() throws {
        let tree = try WatchedTree()
        let outside = tree.folder.file("outside")
        try tree.copy(WatchedTree.tinyJPEG, to: outside + "/inner/x.jpg")
        let watcher = try tree.start()
        let folders = watcher.status.roots.first?.watchedFolders ?? 0

        try FileManager.default.createDirectory(atPath: tree.first + "/2026/12", withIntermediateDirectories: true)
        #expect(eventually { (watcher.status.roots.first?.watchedFolders ?? 0) == folders + 2 })
        try tree.copy(WatchedTree.canon, to: tree.first + "/2026/12/deep.jpg")
        #expect(eventually { tree.asset(tree.first + "/2026/12/deep.jpg") != nil })

        try FileManager.default.moveItem(atPath: outside, toPath: tree.first + "/moved-in")
        #expect(eventually { tree.asset(tree.first + "/moved-in/inner/x.jpg") != nil })
        #expect(eventually { (watcher.status.roots.first?.watchedFolders ?? 0) == folders + 4 })
        // Moved out again: its watches go with it, and its file leaves the index.
        try FileManager.default.moveItem(atPath: tree.first + "/moved-in", toPath: outside)
        #expect(eventually { tree.asset(outside + "/inner/x.jpg") == nil && (watcher.status.roots.first?.watchedFolders ?? 0) == folders + 2 })
        try tree.copy(WatchedTree.tinyPNG, to: outside + "/inner/after.png")
        usleep(800_000)
        #expect(tree.asset(outside + "/inner/after.png") == nil, "a folder moved out is no longer watched")
    }

    @Test("a hard link appears complete: it is indexed without waiting for a close")
    func hardLink() throws {
        let tree = try WatchedTree()
        try tree.copy(WatchedTree.canon, to: tree.folder.file("elsewhere.jpg"))
        try tree.start()
        #expect(link(tree.folder.file("elsewhere.jpg"), tree.first + "/linked.jpg") == 0)
        #expect(eventually(3) { tree.asset(tree.first + "/linked.jpg") != nil }, "well before the 30 s abandoned-write delay")
    }

    @Test("a root that follows symbolic links watches the linked folder: a file added there is indexed under the link")
    func followedLinkIsWatched() throws {
        let tree = try WatchedTree()
        let outside = tree.folder.file("outside")
        try FileManager.default.createDirectory(atPath: outside + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: tree.first + "/linked", withDestinationPath: outside)
        var options = MediaLibrary.IndexOptions()
        options.followSymlinks = true
        try tree.library.blocking.index(roots: [PathBytes(tree.first)], options: options)
        try tree.start()
        try tree.copy(WatchedTree.canon, to: outside + "/sub/new.jpg")
        #expect(eventually(5) { tree.asset(tree.first + "/linked/sub/new.jpg") != nil })
    }

    @Test("a burst of 2,000 files becomes a few runs, and every file is indexed")
    func burst() throws {
        let tree = try WatchedTree()
        let watcher = try tree.start()
        let startupRuns = watcher.status.runCount
        let source = Corpus.media!.path + "/" + WatchedTree.tinyJPEG
        for index in 0..<2_000 {
            try FileManager.default.copyItem(atPath: source, toPath: tree.first + "/burst-\(index).jpg")
        }
        #expect(eventually(30) { ((try? tree.library.blocking.statistics().assets) ?? 0) == 2_000 })
        usleep(700_000)
        let runs = watcher.status.runCount - startupRuns
        #expect(runs >= 1 && runs <= 12, "2,000 files in \(runs) runs")
        // A run's event is published just after its commit is visible: wait for the last one.
        #expect(eventually { tree.runs.filter { $0.trigger == .events }.reduce(0) { $0 + ($1.summary?.added ?? 0) } == 2_000 })
    }

    @Test("an overflowing event queue turns the root to polling, said once, and a run catches up")
    func overflow() throws {
        let tree = try WatchedTree()
        tree.configuration.pollInterval = 0.5
        let watcher = try tree.start()
        #expect(watcher.status.roots.first?.mode == .inotify)
        watcher.simulateQueueOverflow(root: PathBytes(tree.first))
        #expect(eventually { watcher.status.roots.first?.mode == .polling })
        #expect(watcher.status.roots.first?.reason?.contains("IN_Q_OVERFLOW") == true)
        let runs = watcher.status.runCount
        #expect(eventually { watcher.status.runCount >= runs + 2 }, "a catch-up run, then periodic ones")
        #expect(tree.runs.contains { $0.trigger == .poll })
        // Its watches still work meanwhile.
        try tree.copy(WatchedTree.canon, to: tree.first + "/after.jpg")
        #expect(eventually { tree.asset(tree.first + "/after.jpg") != nil })
        watcher.simulateQueueOverflow(root: PathBytes(tree.first))
        usleep(300_000)
        let announcements = tree.events.filter { if case .mode(let root) = $0 { root.mode == .polling } else { false } }
        #expect(announcements.count == 1, "said once in the log")
    }

    @Test("a root on NFS, CIFS or FUSE is polled, and a poll run finds a new file")
    func remoteFileSystem() throws {
        let tree = try WatchedTree()
        tree.configuration.pollInterval = 0.5
        tree.configuration.hooks.fileSystemType = { _ in 0x6969 }  // NFS_SUPER_MAGIC
        let watcher = try tree.start()
        let root = try #require(watcher.status.roots.first)
        #expect(root.mode == .polling)
        #expect(root.watchedFolders == 0)
        #expect(root.reason?.contains("NFS") == true)
        // Said once the root is set up; the startup run (of an empty root) may be logged first.
        #expect(tree.events.contains { $0.logLine.contains("polling instead of inotify") }, "\(tree.events.map(\.logLine))")
        try tree.copy(WatchedTree.canon, to: tree.first + "/polled.jpg")
        #expect(eventually { tree.asset(tree.first + "/polled.jpg") != nil })
        // The run's event is published just after its commit is visible.
        #expect(eventually { tree.runs.contains { $0.trigger == .poll && ($0.summary?.added ?? 0) >= 1 } })
        #expect(!tree.runs.contains { $0.trigger == .events }, "no inotify events on a polled root")
    }

    @Test("reaching the watch limit turns the root to polling with the limit named")
    func watchLimit() throws {
        let tree = try WatchedTree(files: [(WatchedTree.tinyJPEG, "a/one.jpg"), (WatchedTree.tinyJPEG, "b/two.jpg")])
        tree.configuration.hooks.watchLimit = 2
        let watcher = try tree.start()
        let root = try #require(watcher.status.roots.first)
        #expect(root.mode == .polling)
        // The limit in force (here the hook's 2), the root's 3 folders (itself, a, b), and
        // what to raise it to: the limit plus the folders, rounded up to 1024.
        #expect(root.reason?.contains("fs.inotify.max_user_watches is 2 and this root has 3 folders") == true,
                "\(root.reason ?? "")")
        #expect(root.reason?.contains("raise it to 1024 or more (sudo sysctl fs.inotify.max_user_watches=1024") == true)
        #expect(root.watchedFolders == 0, "its watches are released")
    }

    @Test("statfs types: NFS, CIFS, SMB2, FUSE and 9P are remote; ext4, btrfs, tmpfs, XFS are local")
    func fileSystemKinds() {
        #expect(FileSystemKind(type: 0x6969) == .remote("NFS"))
        #expect(FileSystemKind(type: 0xFF53_4D42) == .remote("CIFS"))
        #expect(FileSystemKind(type: 0xFE53_4D42) == .remote("SMB2"))
        #expect(FileSystemKind(type: 0x6573_5546) == .remote("FUSE"))
        #expect(FileSystemKind(type: 0x0102_1997) == .remote("9P"))
        // f_type is a signed long: CIFS's magic can arrive sign-extended.
        #expect(FileSystemKind(type: Int64(Int32(bitPattern: 0xFF53_4D42))) == .remote("CIFS"))
        for local: Int64 in [0xEF53, 0x9123_683E, 0x0102_1994, 0x5846_5342] {
            #expect(FileSystemKind(type: local) == .local)
        }
        #expect(FileSystemKind.of(PathBytes(NSTemporaryDirectory())) != nil)
    }

    @Test("each run holds the index lock: mediaindex index meanwhile exits 75, or waits with --wait")
    func lockDuringRun() throws {
        try #require(FaultSupport.binary != nil, "build first: swift build")
        let tree = try WatchedTree()
        let inRun = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let armed = Flag()
        tree.configuration.hooks.progress = { progress in
            if progress.phase == .finishing && armed.take() {
                inRun.signal()
                release.wait()
            }
        }
        try tree.start()
        armed.set()
        try tree.copy(WatchedTree.canon, to: tree.first + "/a.jpg")
        #expect(inRun.wait(timeout: .now() + 10) == .success, "the watcher's run is paused inside the lock")
        let library = tree.library.location.directory
        let refused = try FaultSupport.run(["index", "--library", library], in: tree.folder)
        #expect(refused.status == 75)
        #expect(refused.stderr.contains("another index run is in progress"))

        let waiting = try FaultSupport.spawn(["index", "--quiet", "--wait", "--library", library].map { Array($0.utf8) },
                                             stdout: tree.folder.file("wait.out"), stderr: tree.folder.file("wait.err"))
        usleep(300_000)
        #expect(waiting.isRunning, "index --wait is still waiting")
        release.signal()
        #expect(FaultSupport.wait(waiting) == 0)
        #expect(tree.asset(tree.first + "/a.jpg") != nil)
    }

    @Test("a run waits while another process holds the index lock, then indexes")
    func waitsForCron() throws {
        let tree = try WatchedTree()
        try tree.start()
        var cronLock: IndexLock? = try IndexLock(path: tree.library.location.lockPath, wait: false)
        try tree.copy(WatchedTree.canon, to: tree.first + "/a.jpg")
        #expect(eventually { tree.events.contains { if case .waitingForLock = $0 { true } else { false } } })
        #expect(tree.asset(tree.first + "/a.jpg") == nil)
        withExtendedLifetime(cronLock) {}
        cronLock = nil
        #expect(eventually { tree.asset(tree.first + "/a.jpg") != nil })
    }

    @Test("a second watcher on the same library is refused")
    func oneWatcher() throws {
        let tree = try WatchedTree()
        try tree.start()
        let second = LibraryWatcher(library: try MediaLibrary(location: tree.library.location))
        #expect {
            try second.start()
        } throws: { error in
            guard case WatcherError.alreadyWatching = error else { return false }
            return "\(error)".contains("already being watched")
        }
    }

    @Test("a root folder that goes away is polled, and watched again once it is back")
    func rootComesBack() throws {
        let tree = try WatchedTree(files: [(WatchedTree.canon, "a.jpg")])
        let watcher = try tree.start()
        let away = tree.folder.file("unmounted")
        try FileManager.default.moveItem(atPath: tree.first, toPath: away)
        #expect(eventually { watcher.status.roots.first?.mode == .polling })
        #expect(watcher.status.roots.first?.reason == RootWatch.vanishedReason)
        try FileManager.default.moveItem(atPath: away, toPath: tree.first)
        #expect(eventually { watcher.status.roots.first?.mode == .inotify })
        #expect(tree.asset(tree.first + "/a.jpg") != nil, "its assets were kept while it was away")
        try tree.copy(WatchedTree.tinyPNG, to: tree.first + "/back.png")
        #expect(eventually { tree.asset(tree.first + "/back.png") != nil })
    }

    @Test("roots registered while it runs are watched too")
    func newRoot() throws {
        let tree = try WatchedTree()
        let watcher = try tree.start()
        try FileManager.default.createDirectory(atPath: tree.second, withIntermediateDirectories: true)
        try MediaLibrary(location: tree.library.location).blocking.index(roots: [PathBytes(tree.second)])
        #expect(eventually { watcher.status.roots.count == 2 })
        #expect(eventually { watcher.status.roots.allSatisfy { $0.mode == .inotify && $0.watchedFolders == 1 } })
        try tree.copy(WatchedTree.canon, to: tree.second + "/late.jpg")
        #expect(eventually { tree.asset(tree.second + "/late.jpg") != nil })
    }
}

/// A one-shot flag for hooks called on other threads.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    /// Gives whether it was set, and clears it.
    func take() -> Bool { lock.lock(); defer { lock.unlock() }; let was = value; value = false; return was }
}

@Suite("Pending changes")
struct PendingChangesTests {
    let timing = PendingChanges.Timing(quietPeriod: 1, maximumDelay: 1.5, abandonedWrite: 30)
    let file = PathBytes("/root/a.jpg")

    @Test("a file being written holds its root until it is closed and the root is quiet")
    func heldWhileWriting() {
        var pending = PendingChanges()
        pending.wrote(file, at: 0)
        pending.wrote(file, at: 2)
        #expect(!pending.isDue(at: 5, timing: timing), "written, not closed: nothing settled")
        pending.settled(file, at: 6)
        #expect(!pending.isDue(at: 6.5, timing: timing))
        #expect(pending.isDue(at: 7, timing: timing))
        #expect(pending.nextDeadline(timing: timing) == 7)
    }

    @Test("a busy root is indexed every maximum delay, not at the end of the burst")
    func busyRoot() {
        var pending = PendingChanges()
        var time = 0.0
        var due: [Double] = []
        while time < 10 {
            pending.wrote(PathBytes("/root/\(time).jpg"), at: time)
            pending.settled(PathBytes("/root/\(time).jpg"), at: time + 0.01)
            time += 0.05
            if pending.isDue(at: time, timing: timing) { due.append(time); _ = pending.runStarted(at: time, timing: timing) }
        }
        #expect(due.count >= 5 && due.count <= 7, "runs at \(due)")
    }

    @Test("a file written long ago and never closed is indexed after the abandoned-write delay")
    func abandonedWrite() {
        var pending = PendingChanges()
        pending.wrote(file, at: 0)
        #expect(pending.nextDeadline(timing: timing) == 30)
        #expect(!pending.isDue(at: 29, timing: timing))
        #expect(pending.isDue(at: 31, timing: timing))
    }

    @Test("a lost queue makes the root due at once")
    func requireRun() {
        var pending = PendingChanges()
        pending.requireRun(at: 100, timing: timing)
        #expect(pending.isDue(at: 100, timing: timing))
    }
}

@Suite("inotify events")
struct InotifyEventTests {
    @Test("reads struct inotify_event records with padded names")
    func parse() {
        func record(_ wd: Int32, _ mask: UInt32, _ cookie: UInt32, _ name: String, padTo: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for word in [UInt32(bitPattern: wd), mask, cookie, UInt32(padTo)] {
                bytes += [UInt8(word & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word >> 16 & 0xFF), UInt8(word >> 24)]
            }
            var name = Array(name.utf8)
            name += [UInt8](repeating: 0, count: padTo - name.count)
            return bytes + name
        }
        let bytes = record(1, UInt32(IN_CLOSE_WRITE), 0, "a.jpg", padTo: 16) + record(2, UInt32(IN_MOVED_TO), 7, "", padTo: 0)
            + Array(record(3, 0, 0, "cut", padTo: 16).prefix(20))
        let events = InotifyInstance.parse(bytes[...])
        #expect(events == [InotifyEvent(wd: 1, mask: UInt32(IN_CLOSE_WRITE), cookie: 0, name: Array("a.jpg".utf8)),
                           InotifyEvent(wd: 2, mask: UInt32(IN_MOVED_TO), cookie: 7, name: [])],
                "a truncated record is dropped")
    }
}
