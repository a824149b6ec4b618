import Foundation
import SpotliteTooling

/// The records a run works on: the corpus's JSON Lines (decompressed when `.xz`), cut to `--limit`, kept both as a
/// plain JSON Lines file in the workspace (what the importer reads) and parsed in memory (what the raw engine loop,
/// FTS5 and the query sets read).
struct Corpus {
    /// One record: column name to text. Non-text JSON values are kept as their JSON text; nulls are left out.
    typealias Record = [String: String]

    let records: [Record]
    /// The JSON Lines file holding exactly `records`.
    let path: String
    let key: String

    /// Reads `source`, keeps its first `limit` records, and writes them to `destination`.
    static func prepare(source: String, limit: Int?, key: String, destination: String) throws -> Corpus {
        let data = try read(source)
        var records: [Record] = []
        var kept = Data()
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if let limit, records.count >= limit { break }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw BenchError("line \(lineNumber) of \(source) is not a JSON object; give a JSON Lines file with one object per line")
            }
            guard let keyValue = object[key], !(keyValue is NSNull) else {
                throw BenchError("line \(lineNumber) of \(source) has no \"\(key)\", the entity's key; every record needs one")
            }
            _ = keyValue
            var record: Record = [:]
            for (name, value) in object {
                switch value {
                case let text as String: record[name] = text
                case is NSNull: break
                default:
                    let json = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
                    record[name] = String(decoding: json, as: UTF8.self)
                }
            }
            records.append(record)
            kept.append(contentsOf: line)
            kept.append(UInt8(ascii: "\n"))
        }
        guard !records.isEmpty else {
            throw BenchError("the corpus \(source) holds no records; give a JSON Lines file with at least one object")
        }
        try kept.write(to: URL(fileURLWithPath: destination))
        return Corpus(records: records, path: destination, key: key)
    }

    private static func read(_ path: String) throws -> Data {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw BenchError("cannot read the corpus \(path): no readable file there; pass --corpus PATH (JSON Lines, optionally .xz)")
        }
        guard path.hasSuffix(".xz") else { return try Data(contentsOf: URL(fileURLWithPath: path)) }
        let outcome: ChildProcess.Outcome
        do { outcome = try ChildProcess.run("/usr/bin/xz", ["-dc", path], error: .discard) } catch {
            throw BenchError("cannot run /usr/bin/xz to decompress \(path) (\(error)); install xz-utils or pass an uncompressed file")
        }
        guard outcome.status == 0 else {
            throw BenchError("xz could not decompress \(path) (exit status \(outcome.status)); check the file")
        }
        return outcome.standardOutput
    }
}
