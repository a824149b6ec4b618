import SpotliteStore

/// The vectors in memory, one contiguous row-major Float32 matrix (what one BLAS call scans), with each row's
/// record and label (its row id in the vector table, stable across updates: the HNSW graph's label).
struct VectorMatrix {
    let dimensions: Int
    private(set) var values: [Float] = []
    private(set) var records: [RecordID] = []
    private(set) var labels: [Int64] = []
    private(set) var truncatedRows = Set<Int64>()
    private var rowOfRecord: [RecordID: Int] = [:]
    private var rowOfLabel: [Int64: Int] = [:]

    init(dimensions: Int) {
        self.dimensions = dimensions
    }

    var count: Int { records.count }

    func row(of record: RecordID) -> Int? { rowOfRecord[record] }

    func row(ofLabel label: Int64) -> Int? { rowOfLabel[label] }

    func vector(at row: Int) -> ArraySlice<Float> { values[(row * dimensions)..<((row + 1) * dimensions)] }

    mutating func reserve(_ rows: Int) {
        values.reserveCapacity(rows * dimensions)
        records.reserveCapacity(rows)
        labels.reserveCapacity(rows)
    }

    /// Adds or replaces the vector of `record`.
    mutating func upsert(_ record: RecordID, label: Int64, vector: [Float], truncated: Bool) {
        precondition(vector.count == dimensions)
        if truncated { truncatedRows.insert(label) } else { truncatedRows.remove(label) }
        if let row = rowOfRecord[record] {
            values.replaceSubrange((row * dimensions)..<((row + 1) * dimensions), with: vector)
            if labels[row] != label {
                rowOfLabel[labels[row]] = nil
                labels[row] = label
                rowOfLabel[label] = row
            }
            return
        }
        rowOfRecord[record] = records.count
        rowOfLabel[label] = records.count
        records.append(record)
        labels.append(label)
        values.append(contentsOf: vector)
    }

    /// Removes the vector of `record` (the last row moves into its place); returns its label.
    @discardableResult
    mutating func remove(_ record: RecordID) -> Int64? {
        guard let row = rowOfRecord.removeValue(forKey: record) else { return nil }
        let label = labels[row]
        rowOfLabel[label] = nil
        truncatedRows.remove(label)
        let last = records.count - 1
        if row != last {
            records[row] = records[last]
            labels[row] = labels[last]
            values.replaceSubrange((row * dimensions)..<((row + 1) * dimensions),
                                   with: values[(last * dimensions)..<((last + 1) * dimensions)])
            rowOfRecord[records[row]] = row
            rowOfLabel[labels[row]] = row
        }
        records.removeLast()
        labels.removeLast()
        values.removeLast(dimensions)
        return label
    }
}
