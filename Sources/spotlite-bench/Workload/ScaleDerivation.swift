import Foundation

/// Derives a larger corpus from the real one, deterministically: record `i` is corpus row `i mod N`; for copy
/// `k = i div N ≥ 1` its key gets the suffix `~k` (Debian names never contain `~`, so keys stay unique), and its
/// text fields other than the key and the descriptive field (for Debian: description and maintainer) come from row
/// `(i + 7919·k) mod N`, so copies are new combinations of real text rather than exact duplicates (term statistics
/// stay those of real prose).
struct ScaleDerivation {
    let records: [Corpus.Record]
    let key: String
    let mixedFields: [String]

    func record(_ index: Int) -> Corpus.Record {
        let count = records.count
        let copy = index / count
        var record = records[index % count]
        guard copy > 0 else { return record }
        record[key] = (record[key] ?? "") + "~\(copy)"
        let donor = records[(index + 7919 * copy) % count]
        for field in mixedFields { record[field] = donor[field] }
        return record
    }

    /// Writes `total` derived records as JSON Lines to `handle` on a thread of its own, closing it at the end, so that
    /// an importer can read them from the other end of a pipe without the whole file ever existing.
    func stream(total: Int, to handle: FileHandle) {
        let derivation = self
        let thread = Thread {
            var buffer = Data()
            for index in 0..<total {
                if let line = try? JSONSerialization.data(withJSONObject: derivation.record(index), options: [.sortedKeys]) {
                    buffer.append(line)
                    buffer.append(UInt8(ascii: "\n"))
                }
                if buffer.count >= 1 << 20 {
                    handle.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            handle.write(buffer)
            try? handle.close()
        }
        thread.start()
    }
}
