import Foundation
import SpotliteEmbeddings
import SpotliteStore
import SpotliteTestSupport
import Testing

/// The HNSW graph's dot-product loops: each against a double-precision reference, at lengths that end inside and
/// outside their vector widths, and the graph searched through each.
@Suite("HNSW distance kernels agree with a reference and with each other", .blockingWork)
struct DistanceKernelTests {
    private struct Generator {
        var state: UInt64
        mutating func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24) * 2 - 1
        }
        mutating func vector(_ count: Int) -> [Float] { (0..<count).map { _ in next() } }
    }

    private static func reference(_ a: [Float], _ b: [Float]) -> (sum: Double, magnitude: Double) {
        var sum = 0.0, magnitude = 0.0
        for index in a.indices {
            sum += Double(a[index]) * Double(b[index])
            magnitude += abs(Double(a[index]) * Double(b[index]))
        }
        return (sum, magnitude)
    }

    /// Lengths below, at and around the loops' widths (8 and 32 floats) and the model's 384.
    private static let lengths = [0, 1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33, 39, 63, 64, 65, 127, 383, 384, 385, 1000]

    @Test("Every kernel this processor runs equals the double-precision dot product within float rounding")
    func kernelsMatchReference() throws {
        var generator = Generator(state: 11)
        let kernels = VectorIndex.DistanceKernel.allCases.filter(\.isAvailable)
        #expect(kernels.contains(.portable) && kernels.contains(.automatic) && kernels.contains(.hnswlib))
        for length in Self.lengths {
            for _ in 0..<5 {
                let a = generator.vector(length), b = generator.vector(length)
                let (expected, magnitude) = Self.reference(a, b)
                // Each sum of n float products is within about n units of rounding of the magnitude.
                let tolerance = Double(length + 2) * Double(Float.ulpOfOne) * magnitude + 1e-30
                for kernel in kernels {
                    let product = try kernel.innerProduct(a, b)
                    // hnswlib's result comes back as 1 − (1 − the dot product): one more rounding near 1.
                    let allowed = tolerance + (kernel == .hnswlib ? 2 * Double(Float.ulpOfOne) : 0)
                    #expect(abs(Double(product) - expected) <= allowed,
                            "\(kernel) at \(length) dimensions: \(product), expected \(expected)")
                }
            }
        }
    }

    @Test("The automatic kernel is AVX2 exactly where the processor has it; asking for AVX2 elsewhere is an error")
    func dispatch() throws {
        let avx2 = VectorIndex.DistanceKernel.avx2.isAvailable
        #expect(VectorIndex.DistanceKernel.automatic.resolved == (avx2 ? .avx2 : .portable))
        #expect(VectorIndex.DistanceKernel.portable.resolved == .portable)
        #expect(VectorIndex.DistanceKernel.hnswlib.resolved == .hnswlib)
        var generator = Generator(state: 5)
        let a = generator.vector(384), b = generator.vector(384)
        if avx2 {
            // Both paths run here: they differ in the order of summation only.
            let fast = try VectorIndex.DistanceKernel.avx2.innerProduct(a, b)
            let portable = try VectorIndex.DistanceKernel.portable.innerProduct(a, b)
            #expect(abs(fast - portable) <= 1e-5 * max(1, abs(portable)))
            #expect(try VectorIndex.DistanceKernel.automatic.innerProduct(a, b) == fast)
        } else {
            #expect(throws: EmbeddingError.self) { try VectorIndex.DistanceKernel.avx2.innerProduct(a, b) }
            #expect(throws: EmbeddingError.self) { try VectorIndex(path: NSTemporaryDirectory(), distanceKernel: .avx2) }
            #expect(try VectorIndex.DistanceKernel.automatic.innerProduct(a, b) == VectorIndex.DistanceKernel.portable.innerProduct(a, b))
        }
    }

    @Test("The HNSW graph finds the exact neighbours through every kernel, with the same similarities", arguments: [16, 37])
    func graphThroughEveryKernel(dimensions: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-kernels-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var generator = Generator(state: UInt64(dimensions))
        func normalised(_ values: [Float]) -> [Float] {
            let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return values.map { $0 / norm }
        }
        let vectors = (0..<1_500).map { _ in normalised(generator.vector(dimensions)) }
        let exact = try VectorIndex(path: path, hnswThreshold: .max)
        try exact.commit(VectorChanges(upserts: vectors.enumerated().map {
            .init(record: RecordID(entity: "Doc", key: $0.offset.databaseValue), vector: $0.element)
        }), cursor: nil)
        let queries = (0..<40).map { _ in normalised(generator.vector(dimensions)) }
        let truths = try queries.map { try exact.search($0, limit: 10) }
        for kernel in VectorIndex.DistanceKernel.allCases where kernel.isAvailable {
            let graph = try VectorIndex(path: path, hnswThreshold: 1, graphThreads: 1, distanceKernel: kernel)
            var found = 0
            for (query, truth) in zip(queries, truths) {
                let hits = try graph.search(query, limit: 10, candidates: 200)
                let similarities = Dictionary(uniqueKeysWithValues: truth.map { ($0.record, $0.similarity) })
                found += hits.filter { similarities[$0.record] != nil }.count
                for hit in hits {
                    if let expected = similarities[hit.record] { #expect(abs(hit.similarity - expected) < 1e-5, "\(kernel)") }
                }
            }
            #expect(Double(found) / Double(10 * queries.count) >= 0.97, "\(kernel): \(found) of \(10 * queries.count)")
        }
    }
}
