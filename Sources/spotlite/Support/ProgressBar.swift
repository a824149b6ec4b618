import Foundation
import Synchronization

/// A progress bar on stderr: done/total, a bar, the rate and the time left. Drawn at most ten times a second, and
/// only when enabled (stderr is a terminal, or `--progress`).
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: Double = 0
        var drawn = false
    }

    private let label: String
    private let unit: String
    private let enabled: Bool
    private let start = Date().timeIntervalSince1970
    private let state = Mutex(State())

    init(label: String, unit: String, enabled: Bool) {
        self.label = label
        self.unit = unit
        self.enabled = enabled
    }

    func update(done: Int, total: Int?) {
        guard enabled else { return }
        let now = Date().timeIntervalSince1970
        let shouldDraw = state.withLock { state -> Bool in
            guard now - state.lastDraw >= 0.1 || (total != nil && done >= total!) else { return false }
            state.lastDraw = now
            state.drawn = true
            return true
        }
        guard shouldDraw else { return }
        let elapsed = max(now - start, 0.001)
        let rate = Double(done) / elapsed
        var line = "\r\(label) \(Terminal.number(done))"
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let width = 24
            let filled = Int(fraction * Double(width))
            line += "/\(Terminal.number(total)) \(unit) [" + String(repeating: "#", count: filled)
                + String(repeating: "-", count: width - filled) + "] \(Int(fraction * 100))%"
            let left = rate > 0 ? Double(total - done) / rate : 0
            line += String(format: "  %@/s  %d:%02d left", Terminal.number(Int(rate)), Int(left) / 60, Int(left) % 60)
        } else {
            line += " \(unit)  \(Terminal.number(Int(rate)))/s"
        }
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
    }

    /// Ends the bar's line.
    func finish() {
        guard enabled, state.withLock({ $0.drawn }) else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
