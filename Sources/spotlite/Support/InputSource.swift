import Foundation

/// A JSON Lines input as the user names it: a file, a compressed file (`.xz`, `.gz`, `.bz2`, `.zst`, recognised by
/// its first bytes, not its name), or `-` for standard input. Compressed files are read through the system's
/// decompressor (`xz`, `gzip`, `bzip2`, `zstd`) writing to a pipe, so nothing is unpacked on disk.
final class InputSource {
    /// The compression formats recognised by their magic bytes, and the program that reads each.
    enum Compression: String, CaseIterable {
        case xz, gzip, bzip2, zstd

        var magic: [UInt8] {
            switch self {
            case .xz: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
            case .gzip: [0x1F, 0x8B]
            case .bzip2: [0x42, 0x5A, 0x68]
            case .zstd: [0x28, 0xB5, 0x2F, 0xFD]
            }
        }

        /// The Debian package providing the decompressor, for the error message when it is missing.
        var package: String {
            switch self {
            case .xz: "xz-utils"
            case .gzip: "gzip"
            case .bzip2: "bzip2"
            case .zstd: "zstd"
            }
        }

        static func detect(_ prefix: [UInt8]) -> Compression? {
            allCases.first { prefix.starts(with: $0.magic) }
        }
    }

    let name: String
    let handle: FileHandle
    /// The size of the file being read (compressed size for compressed files), for progress bars.
    let totalBytes: Int?
    let compression: Compression?
    private let decompressor: Process?
    private let decompressorErrors: Pipe?

    /// Opens `path` (or standard input for `-`). Fails, before anything is written anywhere, when the file cannot be
    /// read or its decompressor is not installed.
    init(path: String) throws {
        name = path == "-" ? "standard input" : path
        if path == "-" {
            handle = FileHandle.standardInput
            totalBytes = nil
            compression = nil
            decompressor = nil
            decompressorErrors = nil
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(message: "cannot read \(path): no such file; check the path (or use - for standard input)", status: ExitStatus.input)
        }
        guard !isDirectory.boolValue else {
            throw CommandFailure(message: "\(path) is a directory; give a JSON Lines file (or - for standard input)", status: ExitStatus.input)
        }
        guard let opened = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(message: "cannot read \(path): permission denied; check the file's permissions", status: ExitStatus.input)
        }
        totalBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let prefix = [UInt8]((try? opened.read(upToCount: 8)) ?? Data())
        compression = Compression.detect(prefix)
        guard let compression else {
            try? opened.seek(toOffset: 0)
            handle = opened
            decompressor = nil
            decompressorErrors = nil
            return
        }
        try? opened.close()
        guard let program = Self.findProgram(compression.rawValue) else {
            throw CommandFailure(message: "\(path) is \(compression.rawValue)-compressed and `\(compression.rawValue)` is not installed; install it (apt-get install \(compression.package)) or decompress the file first", status: ExitStatus.input)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["-dc", path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CommandFailure(message: "cannot start \(program) to read \(path): \(error.localizedDescription); decompress the file first", status: ExitStatus.input)
        }
        handle = output.fileHandleForReading
        decompressor = process
        decompressorErrors = errors
    }

    /// Waits for the decompressor (if any) and fails when it reported a damaged or truncated file. Call it after the
    /// whole input has been read.
    func finish() throws {
        guard let decompressor, let compression else { return }
        let message = String(decoding: decompressorErrors?.fileHandleForReading.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        decompressor.waitUntilExit()
        guard decompressor.terminationStatus == 0 else {
            let detail = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? "status \(decompressor.terminationStatus)"
            throw CommandFailure(message: "\(name) could not be decompressed (\(compression.rawValue): \(detail)); check that the file is complete", status: ExitStatus.input)
        }
    }

    /// After the importer stopped at a malformed line: the decompressor's own failure when it ended with one (a
    /// truncated or damaged file, whose last line is cut), else nil (the line itself is bad).
    func decompressionFailure() -> CommandFailure? {
        guard decompressor != nil else { return nil }
        var drained = 0
        while drained < 1 << 20, let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            drained += chunk.count
        }
        guard drained < 1 << 20 else { return nil }
        do {
            try finish()
            return nil
        } catch {
            return error as? CommandFailure
        }
    }

    /// Stops the decompressor when the input is abandoned early (a failed import, a sample that is long enough).
    func abandon() {
        guard let decompressor, decompressor.isRunning else { return }
        decompressor.terminate()
        decompressor.waitUntilExit()
    }

    /// The first `PATH` entry holding an executable `name`.
    static func findProgram(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
