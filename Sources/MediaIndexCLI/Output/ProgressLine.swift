import Synchronization

/// One status line on a terminal's stderr, rewritten in place (`\r` + text + clear to
/// end of line), at most about ten times a second; silent when the output is not a
/// terminal, so logs and pipes never see it.
///
/// Call `clear()` before writing anything else to the same terminal, and when done.
public final class ProgressLine: Sendable {
    private struct State {
        var lastDrawn: ContinuousClock.Instant?
        var isVisible = false
    }

    private let output: TextOutput
    private let isEnabled: Bool
    private let width: Int?
    private let minimumInterval: Duration
    private let state = Mutex(State())

    /// A progress line on `output`, drawn only when `output` is a terminal; text is cut
    /// to `width - 1` columns (by default stderr's terminal width) so it never wraps,
    /// which would break the rewrite.
    public init(
        output: TextOutput = .standardError,
        width: Int? = Terminal.width(of: 2, environment: [:]),
        minimumInterval: Duration = .milliseconds(100)
    ) {
        self.output = output
        self.isEnabled = output.isTerminal
        self.width = width
        self.minimumInterval = minimumInterval
    }

    /// Shows `text`, unless the line was drawn less than the minimum interval ago (the
    /// text is then dropped: a newer one follows soon).
    public func update(_ text: String) {
        draw(text, force: false)
    }

    /// Shows `text` now, throttle or not (a final count, say).
    public func show(_ text: String) {
        draw(text, force: true)
    }

    /// Erases the line, leaving the cursor at its start.
    public func clear() {
        guard isEnabled else { return }
        state.withLock { state in
            guard state.isVisible else { return }
            output.write("\r\u{1B}[K")
            state.isVisible = false
            state.lastDrawn = nil
        }
    }

    private func draw(_ text: String, force: Bool) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            if !force, let last = state.lastDrawn, now - last < minimumInterval { return }
            var line = text.replacing("\n", with: " ")
            if let width { line = DisplayWidth.truncate(line, toWidth: max(0, width - 1)) }
            output.write("\r" + line + "\u{1B}[K")
            state.lastDrawn = now
            state.isVisible = true
        }
    }
}
