import Foundation
import SpotliteEmbeddings

/// Normalised synthetic vectors for the HNSW measurement, the same for the same recipe and seed, and each computed
/// from its own index alone (so any of them, and the queries, can be drawn without the others, on several threads).
///
/// - ``Kind/uniform``: uniform components; all nearly equidistant in 384 dimensions, the worst case of a graph index.
/// - ``Kind/clusters(_:)``: Gaussian noise around that many Gaussian centres, every direction alike.
/// - ``Kind/spectrum(_:)``: a Gaussian with the mean and covariance spectrum of real sentence vectors
///   (``CovarianceSpectrum``): variance concentrated in few directions, as a sentence model's is.
/// - ``Kind/spectrumMixture(_:clusterSize:within:)``: clusters of about `clusterSize` vectors whose centres follow that
///   spectrum with a share 1 − `within` of its variance, and the vectors around them the share `within`.
///
/// Inner products do not change under a rotation, so the spectrum's Gaussians are drawn in the eigenvectors' basis:
/// component k has the mean's coordinate k and the k-th eigenvalue as variance.
struct VectorGenerator: Sendable {
    enum Kind: Sendable {
        case uniform
        case clusters(Int)
        case spectrum(CovarianceSpectrum)
        case spectrumMixture(CovarianceSpectrum, clusterSize: Int, within: Double)
    }

    let kind: Kind
    let dimensions: Int
    let seed: UInt64
    /// Clusters of the mixtures, `dimensions` floats each.
    private let centres: [Float]
    private let centreCount: Int
    /// Per component: the mean and the standard deviation of the noise (spectrum kinds).
    private let means: [Float]
    private let deviations: [Float]

    /// Where queries are drawn from: indexes far beyond any set's vectors, so never one of them.
    static let queryBase = 1 << 40

    /// A generator of `kind` for a set of `count` vectors (the mixture's clusters are `count / clusterSize`).
    init(kind: Kind, dimensions: Int, seed: UInt64, count: Int) {
        self.kind = kind
        self.dimensions = dimensions
        self.seed = seed
        var means = [Float](repeating: 0, count: dimensions), deviations = [Float](repeating: 1, count: dimensions)
        var centreDeviations = [Float](repeating: 1, count: dimensions)
        var centreCount = 0
        switch kind {
        case .uniform:
            break
        case .clusters(let clusters):
            centreCount = max(clusters, 1)
            deviations = [Float](repeating: 0.7, count: dimensions)
        case .spectrum(let spectrum):
            precondition(spectrum.dimensions == dimensions, "a spectrum of \(spectrum.dimensions) dimensions for \(dimensions)")
            means = spectrum.meanCoordinates.map { Float($0) }
            deviations = spectrum.eigenvalues.map { Float($0.squareRoot()) }
        case .spectrumMixture(let spectrum, let clusterSize, let within):
            precondition(spectrum.dimensions == dimensions, "a spectrum of \(spectrum.dimensions) dimensions for \(dimensions)")
            centreCount = max(1, count / max(clusterSize, 1))
            means = spectrum.meanCoordinates.map { Float($0) }
            deviations = spectrum.eigenvalues.map { Float(($0 * within).squareRoot()) }
            centreDeviations = spectrum.eigenvalues.map { Float(($0 * (1 - within)).squareRoot()) }
        }
        self.means = means
        self.deviations = deviations
        self.centreCount = centreCount
        var centres = [Float](repeating: 0, count: centreCount * dimensions)
        for centre in 0..<centreCount {
            var random = SplitMix(seed: seed ^ 0xC3A5_C85C_97CB_3127, index: centre)
            for component in 0..<dimensions {
                switch kind {
                case .spectrumMixture:
                    centres[centre * dimensions + component] = means[component] + centreDeviations[component] * random.gaussian()
                default:
                    centres[centre * dimensions + component] = random.gaussian()
                }
            }
        }
        self.centres = centres
    }

    /// What the recipe is, for figures and cache folders.
    var name: String {
        switch kind {
        case .uniform: "uniform"
        case .clusters(let count): "clusters-\(count)"
        case .spectrum: "spectrum"
        case .spectrumMixture(_, let size, let within): "spectrum-mixture-\(size)-\(Int((within * 100).rounded()))"
        }
    }

    /// A fingerprint of the recipe, its parameters, its seed and dimensions: vectors of equal fingerprints are equal.
    var fingerprint: String {
        var hasher = StableHasher()
        hasher.add(name)
        hasher.add(String(dimensions))
        hasher.add(String(seed))
        hasher.add(String(centreCount))
        for value in means + deviations { hasher.add(String(value.bitPattern)) }
        if case .spectrumMixture(let spectrum, _, _) = kind {
            for value in spectrum.eigenvalues { hasher.add(String(value.bitPattern)) }
        }
        return String(hasher.value, radix: 16)
    }

    /// The vector number `index`, normalised.
    func vector(at index: Int) -> [Float] {
        var values = [Float](repeating: 0, count: dimensions)
        values.withUnsafeMutableBufferPointer { write(index: index, into: $0.baseAddress!) }
        return values
    }

    /// Vectors `range`, row after row, drawn on every core.
    func vectors(_ range: Range<Int>) -> [Float] {
        var values = [Float](repeating: 0, count: range.count * dimensions)
        let chunk = 4_096
        let chunks = (range.count + chunk - 1) / chunk
        values.withUnsafeMutableBufferPointer { buffer in
            let base = UnsafeSendable(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: chunks) { number in
                let start = number * chunk
                for offset in start..<min(start + chunk, range.count) {
                    write(index: range.lowerBound + offset, into: base.pointer + offset * dimensions)
                }
            }
        }
        return values
    }

    private func write(index: Int, into values: UnsafeMutablePointer<Float>) {
        var random = SplitMix(seed: seed, index: index)
        switch kind {
        case .uniform:
            for component in 0..<dimensions { values[component] = random.uniform() * 2 - 1 }
        case .clusters, .spectrumMixture:
            let centre = Int(random.next() % UInt64(centreCount)) * dimensions
            for component in 0..<dimensions {
                values[component] = centres[centre + component] + deviations[component] * random.gaussian()
            }
        case .spectrum:
            for component in 0..<dimensions { values[component] = means[component] + deviations[component] * random.gaussian() }
        }
        var norm: Float = 0
        for component in 0..<dimensions { norm += values[component] * values[component] }
        norm = norm.squareRoot()
        if norm > 0 { for component in 0..<dimensions { values[component] /= norm } }
    }
}

/// A pointer handed to the threads of `concurrentPerform`, each writing its own rows.
private struct UnsafeSendable: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Float>
    init(_ pointer: UnsafeMutablePointer<Float>) { self.pointer = pointer }
}

/// SplitMix64, seeded from a seed and an index: a stream of its own for each vector.
struct SplitMix {
    private var state: UInt64
    private var spare: Float?

    init(seed: UInt64, index: Int) {
        state = seed &+ UInt64(bitPattern: Int64(index)) &* 0x9E37_79B9_7F4A_7C15
        _ = next()
    }

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Float { Float(next() >> 40) / Float(1 << 24) }

    /// Standard normal (Box–Muller, both values used).
    mutating func gaussian() -> Float {
        if let spare {
            self.spare = nil
            return spare
        }
        let u = max(uniform(), 1e-7), v = uniform()
        let radius = (-2 * log(u)).squareRoot()
        spare = radius * sin(2 * Float.pi * v)
        return radius * cos(2 * Float.pi * v)
    }
}

/// FNV-1a over strings: the same value in every run (Swift's `Hasher` is seeded per process).
struct StableHasher {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
    mutating func add(_ text: String) {
        for byte in text.utf8 + [0] {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01B3
        }
    }
}

/// Normalised uniform random vectors, the same for the same seed: what completes the catalogue's vectors in the
/// exact-search measurement.
struct SyntheticVectors {
    private let generator: VectorGenerator
    private var index = 0

    init(dimensions: Int, seed: UInt64) {
        generator = VectorGenerator(kind: .uniform, dimensions: dimensions, seed: seed, count: 0)
    }

    mutating func next() -> [Float] {
        defer { index += 1 }
        return generator.vector(at: index)
    }
}
