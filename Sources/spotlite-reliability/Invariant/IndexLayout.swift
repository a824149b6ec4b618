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

    /// The Xapian databases of the live generation: its shards (`shard-N`, listed in the generation's own stub), or
    /// the generation itself when it has no stub (an index written before sharding).
    var liveDatabasePaths: [String] {
        guard let generation = liveGenerationPath else { return [] }
        guard let stub = try? String(contentsOfFile: generation + "/XAPIANDB", encoding: .utf8) else { return [generation] }
        return stub.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? generation + "/" + parts[1] : nil
        }
    }
}
