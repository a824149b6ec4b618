import Foundation
import SpotliteStore
import SpotliteSearch
/// A small, fast random generator whose sequence depends only on its seed (SplitMix64), so that every suite run
/// with the same `--seed` makes the same choices: the same records, queries, operations and kill delays.
///
/// The benchmark, the reliability suites and the relevance query generator share it.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is determined by `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// A generator for a sub-task, independent of how many numbers the parent draws later.
    package mutating func split() -> SeededGenerator {
        SeededGenerator(seed: next() ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`, without modulo bias worth mentioning (64-bit multiply-high).
    package mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        if width == 0 { return Int(bitPattern: UInt(next())) }
        return range.lowerBound + Int(next().multipliedFullWidth(by: width).high)
    }

    /// A number in `0..<bound`.
    package mutating func int(below bound: Int) -> Int {
        precondition(bound > 0)
        return int(in: 0...(bound - 1))
    }

    /// A number in [0, 1).
    package mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }

    /// True with probability `probability`.
    package mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// One of `items`, which must not be empty.
    package mutating func pick<T>(_ items: [T]) -> T {
        items[int(below: items.count)]
    }
}
