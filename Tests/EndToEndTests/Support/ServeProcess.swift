import Foundation
import SpotliteReplication
import SpotliteSearch
import SpotliteTooling
#if canImport(Glibc)
import Glibc
#endif

/// `spotlite serve` (or `spotlite mcp`'s sibling commands) run by a test: on 127.0.0.1 and a free port, in a session
/// of its own, bounded in time, stopped by its pid in every path.
final class ServeProcess {
    private let process: SessionProcess
    let port: Int
    var http: LoopbackHTTP { LoopbackHTTP(port: port) }

    /// Starts `spotlite serve` for `tool`'s configuration with `arguments`, and waits (up to `timeout` seconds) for
    /// its `Listening on` line.
    init(tool: CommandLineTool, arguments: [String] = [], lifetime: Int = 300, timeout: Double = 60) throws {
        port = try LoopbackPort.free()
        let outputPath = tool.path("serve-\(UUID().uuidString).out")
        process = try SessionProcess(
            executable: CommandLineTool.binary,
            arguments: ["serve", "--config", tool.path("config/spotlite.toml"), "--port", String(port)] + arguments,
            outputPath: outputPath, errorPath: outputPath + ".err", lifetime: .seconds(lifetime))
        let deadline = Date().addingTimeInterval(timeout)
        while !process.output.contains("Listening on http://127.0.0.1:\(port)") {
            if !process.isRunning || Date() > deadline {
                let message = errorOutput
                stop()
                throw LoopbackHTTP.Failure(description: "spotlite serve did not start: \(message.isEmpty ? "no Listening line within \(Int(timeout)) s" : message)")
            }
            // The output goes to a file (the server outlives no pipe): a poll, bounded by `timeout` and the exit.
            usleep(20_000)
        }
    }

    var output: String { process.output }
    var errorOutput: String { process.errorOutput.trimmingCharacters(in: .whitespacesAndNewlines) }
    var isRunning: Bool { process.isRunning }
    var exitStatus: Int32? { process.exitStatus }

    /// Sends `signal` to the server only.
    func signal(_ signal: Int32) { process.signal(signal, wholeSession: false) }

    /// SIGTERM, then SIGKILL after `grace` seconds.
    func stop(grace: Double = 10) { process.stop(grace: grace) }

    deinit { stop() }
}
