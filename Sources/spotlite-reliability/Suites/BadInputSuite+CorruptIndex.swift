import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension BadInputSuite {
    /// Ways an index gets damaged on disk: truncated or missing Xapian files, garbage, a stub naming nothing.
    struct Damage: Sendable {
        var name: String
        /// Damages the index at `index` (the index directory) whose live generation's first Xapian database (its
        /// first shard) is `database`.
        var apply: @Sendable (_ index: String, _ database: String) throws -> Void
    }

    static func truncate(_ path: String, toFraction fraction: Double) throws {
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard Glibc.truncate(path, off_t(Double(size) * fraction)) == 0 else {
            throw HarnessError("cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
    }

    static let damages: [Damage] = [
        Damage(name: "postlist.glass truncated to half") { try truncate($1 + "/postlist.glass", toFraction: 0.5) },
        Damage(name: "termlist.glass truncated to nothing") { try truncate($1 + "/termlist.glass", toFraction: 0) },
        Damage(name: "docdata.glass truncated to half") { try truncate($1 + "/docdata.glass", toFraction: 0.5) },
        Damage(name: "position.glass truncated to nothing") { try truncate($1 + "/position.glass", toFraction: 0) },
        Damage(name: "every table truncated to a third") { _, generation in
            for name in try FileManager.default.contentsOfDirectory(atPath: generation) where name.hasSuffix(".glass") {
                try truncate(generation + "/" + name, toFraction: 0.33)
            }
        },
        Damage(name: "iamglass removed") { try FileManager.default.removeItem(atPath: $1 + "/iamglass") },
        Damage(name: "iamglass overwritten with garbage") { try Data("not a version file".utf8).write(to: URL(fileURLWithPath: $1 + "/iamglass")) },
        Damage(name: "postlist.glass overwritten with zeros in the middle") { _, generation in
            let path = generation + "/postlist.glass"
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: UInt64(size / 4))
            try handle.write(contentsOf: Data(repeating: 0, count: max(1, size / 2)))
            try handle.close()
        },
        Damage(name: "the stub names a generation that does not exist") { index, _ in
            try Data("auto gen-999999\n".utf8).write(to: URL(fileURLWithPath: index + "/XAPIANDB"))
        },
        Damage(name: "the stub is garbage") { index, _ in
            try Data([0xFF, 0x00, 0x13, 0x37]).write(to: URL(fileURLWithPath: index + "/XAPIANDB"))
        },
        Damage(name: "a shard removed") { try FileManager.default.removeItem(atPath: $1) },
        Damage(name: "the generation's list of shards is garbage") { _, shard in
            let generation = (shard as NSString).deletingLastPathComponent
            try Data("auto nowhere\n\u{1}".utf8).write(to: URL(fileURLWithPath: generation + "/XAPIANDB"))
        },
        Damage(name: "the live generation removed") { _, shard in
            try FileManager.default.removeItem(atPath: (shard as NSString).deletingLastPathComponent)
        },
    ]

    /// Each damage, on a fresh copy of a good index with one change pending: searching and `index status` answer or
    /// fail clearly; `index update` detects the damage, rebuilds and says why; afterwards the invariant holds.
    mutating func corruptIndex() throws {
        let pristine = workspace.path("pristine-index")
        try? FileManager.default.removeItem(atPath: pristine)
        try FileManager.default.copyItem(atPath: workspace.indexPath, toPath: pristine)
        var detected = 0
        for (number, damage) in Self.damages.enumerated() {
            try FileManager.default.removeItem(atPath: workspace.indexPath)
            try FileManager.default.copyItem(atPath: pristine, toPath: workspace.indexPath)
            let change = try workspace.sqlite("UPDATE Item SET title = 'damaged index \(number)', rev = rev + 1 WHERE id = 'r-\(number)';")
            guard change.succeeded, let generation = IndexLayout(path: workspace.indexPath).liveDatabasePaths.first else {
                throw HarnessError("cannot prepare the damaged-index case: \(change.errorLine)")
            }
            try damage.apply(workspace.indexPath, generation)
            var problems: [String] = []
            let search = try workspace.runSpotlite(["search", "--json", "search"], timeout: 120)
            if let problem = Self.answeredOrClear(search) { problems.append("search: \(problem)") }
            let status = try workspace.runSpotlite(["index", "status", "--json"], timeout: 120)
            if let problem = Self.answeredOrClear(status) { problems.append("index status: \(problem)") }
            let update = try workspace.runSpotlite(["index", "update", "--json"], timeout: 600)
            if !update.succeeded {
                problems.append("index update failed: \(update.errorLine.prefix(300))")
            } else if update.jsonObject?["rebuilt"] as? Bool == true {
                if let reason = update.jsonObject?["reason"] as? String, !reason.isEmpty { detected += 1 } else {
                    problems.append("index update rebuilt without saying why")
                }
            } else {
                problems.append("index update did not notice the damage (no rebuild)")
            }
            problems += invariantProblems()
            report.record("damaged index: \(damage.name)", problems: problems)
        }
        try FileManager.default.removeItem(atPath: pristine)
        report.figure("damaged indexes", "\(Self.damages.count) kinds, \(detected) detected and rebuilt with the reason shown")
    }
}
