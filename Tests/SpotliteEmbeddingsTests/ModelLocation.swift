import Foundation
import SpotliteEmbeddings

/// The default model as `make deps` installs it: `$SPOTLITE_MODEL_DIR`, or Index/models/all-MiniLM-L6-v2 in the
/// package. Tests that need it fail (never skip) when it is absent.
enum ModelLocation {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_MODEL_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.appendingPathComponent("Index/models/all-MiniLM-L6-v2")
    }

    struct Absent: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "The embedding model is not installed at \(path): run `make deps` (it downloads all-MiniLM-L6-v2), or set SPOTLITE_MODEL_DIR to its folder."
        }
    }

    /// One encoder for the whole test run (loading maps 90 MB).
    static let shared: Result<SentenceEncoder, any Error> = {
        let folder = ModelLocation.directory
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("model.safetensors").path) else {
            return .failure(Absent(path: folder.path))
        }
        return Result { try SentenceEncoder(directory: folder) }
    }()

    static func encoder() throws -> SentenceEncoder { try shared.get() }
}
