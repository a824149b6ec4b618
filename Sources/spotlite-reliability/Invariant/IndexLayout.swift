import Foundation

/// What is on disk in an index directory: the Xapian generations (`gen-NNNNNN`) and the stub naming the live one.
/// Read from the outside, as a user would see it, to count what killed rebuilds leave behind.
struct IndexLayout {
    let path: String

    var generationNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasPrefix("gen-") }.sorted()
    }

    var generationCount: Int { generationNames.count }

    /// The live generation's directory, from the `XAPIANDB` stub.
    var liveGenerationPath: String? {
        guard let stub = try? String(contentsOfFile: path + "/XAPIANDB", encoding: .utf8),
              let name = stub.split(whereSeparator: \.isWhitespace).last, name.hasPrefix("gen-") else { return nil }
        return path + "/" + name
    }
}
