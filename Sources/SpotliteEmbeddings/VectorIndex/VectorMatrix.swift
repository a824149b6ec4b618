import CEmbeddings
import SpotliteStore

/// The vectors in memory, one contiguous row-major Float32 matrix, with each row's record and label (its row id in
/// the vector table, stable across updates: the HNSW graph's label), and the compact copy exact search scans: one
/// signed byte per component with a scale and an error radius per row (`ce_quantize`), a quarter of the bytes.
struct VectorMatrix {
    let dimensions: Int
    private(set) var values: [Float] = []
    private(set) var codes: [Int8] = []
    private(set) var scales: [Float] = []
    private(set) var radii: [Float] = []
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
        codes.reserveCapacity(rows * dimensions)
        scales.reserveCapacity(rows)
        radii.reserveCapacity(rows)
        records.reserveCapacity(rows)
        labels.reserveCapacity(rows)
    }

    /// Writes the compact copy of the row's vector.
    private mutating func quantize(row: Int) {
        let start = row * dimensions
        values.withUnsafeBufferPointer { values in
            codes.withUnsafeMutableBufferPointer { codes in
                scales.withUnsafeMutableBufferPointer { scales in
                    radii.withUnsafeMutableBufferPointer { radii in
                        // Only fails for missing arguments, which these never are.
                        _ = ce_quantize(values.baseAddress! + start, 1, Int32(dimensions), codes.baseAddress! + start,
                                        scales.baseAddress! + row, radii.baseAddress! + row, nil)
                    }
                }
            }
        }
    }

    /// Copies row `source` over row `target` in `array` of `width` values per row, in place (a slice of the array
    /// passed to its own `replaceSubrange` would copy all of it first).
    private static func copyRow<T>(_ array: inout [T], from source: Int, to target: Int, width: Int) {
        array.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            (base + target * width).update(from: base + source * width, count: width)
        }
    }

    /// Adds or replaces the vector of `record`.
    mutating func upsert(_ record: RecordID, label: Int64, vector: [Float], truncated: Bool) {
        precondition(vector.count == dimensions)
        if truncated { truncatedRows.insert(label) } else { truncatedRows.remove(label) }
        if let row = rowOfRecord[record] {
            values.replaceSubrange((row * dimensions)..<((row + 1) * dimensions), with: vector)
            quantize(row: row)
            if labels[row] != label {
                rowOfLabel[labels[row]] = nil
                labels[row] = label
                rowOfLabel[label] = row
            }
            return
        }
        let row = records.count
        rowOfRecord[record] = row
        rowOfLabel[label] = row
        records.append(record)
        labels.append(label)
        values.append(contentsOf: vector)
        codes.append(contentsOf: repeatElement(0, count: dimensions))
        scales.append(0)
        radii.append(0)
        quantize(row: row)
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
            Self.copyRow(&values, from: last, to: row, width: dimensions)
            Self.copyRow(&codes, from: last, to: row, width: dimensions)
            scales[row] = scales[last]
            radii[row] = radii[last]
            rowOfRecord[records[row]] = row
            rowOfLabel[labels[row]] = row
        }
        records.removeLast()
        labels.removeLast()
        values.removeLast(dimensions)
        codes.removeLast(dimensions)
        scales.removeLast()
        radii.removeLast()
        return label
    }
}
