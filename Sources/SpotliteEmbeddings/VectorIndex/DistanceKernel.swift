import CEmbeddings

extension VectorIndex {
    /// The dot-product loop the HNSW graph measures distances with. Every kernel gives the same distances up to
    /// float rounding; they differ in speed only.
    public enum DistanceKernel: String, Sendable, Hashable, CaseIterable {
        /// ``avx2`` where the processor has AVX2 and FMA, ``portable`` elsewhere (decided at run time).
        case automatic
        /// A plain loop with eight partial sums, on any processor.
        case portable
        /// Eight floats at a time with fused multiply-adds (x86-64 processors with AVX2 and FMA).
        case avx2
        /// hnswlib's own loop, whose SIMD width its headers choose at compile time (SSE, four floats at a time, in
        /// a build for any x86-64 processor): kept to measure the others against.
        case hnswlib

        /// Whether this processor runs the kernel.
        public var isAvailable: Bool { ce_distance_kernel_available(native) }

        /// The kernel ``automatic`` stands for on this processor; any other kernel as it is.
        public var resolved: DistanceKernel { DistanceKernel(ce_distance_kernel_resolved(native)) }

        /// The dot product of `a` and `b` (of equal length) as this kernel computes it. hnswlib's loop is read through
        /// its distance (1 − the dot product), so its result also carries that subtraction's rounding.
        ///
        /// - Throws: ``EmbeddingError/computation(_:)`` when the processor does not run the kernel.
        public func innerProduct(_ a: [Float], _ b: [Float]) throws -> Float {
            precondition(a.count == b.count, "vectors of different lengths")
            var product: Float = 0
            var message: UnsafeMutablePointer<CChar>?
            guard ce_inner_product(native, a, b, Int32(a.count), &product, &message) else {
                throw EmbeddingError.computation(EncoderCore.take(message) ?? "the \(rawValue) kernel cannot run here")
            }
            return product
        }

        var native: ce_distance_kernel {
            switch self {
            case .automatic: CE_KERNEL_AUTOMATIC
            case .portable: CE_KERNEL_PORTABLE
            case .avx2: CE_KERNEL_AVX2
            case .hnswlib: CE_KERNEL_HNSWLIB
            }
        }

        init(_ native: ce_distance_kernel) {
            switch native {
            case CE_KERNEL_PORTABLE: self = .portable
            case CE_KERNEL_AVX2: self = .avx2
            case CE_KERNEL_HNSWLIB: self = .hnswlib
            default: self = .automatic
            }
        }
    }
}
