/// A small, fast random generator whose sequence depends only on its seed (SplitMix64), so that every suite run
/// with the same `--seed` makes the same choices: the same records, queries, operations and kill delays.
///
/// Only the choices are reproducible: when a SIGKILL lands inside a child process still depends on the machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for a sub-task, independent of how many numbers the parent draws later.
    mutating func split() -> SeededGenerator {
        SeededGenerator(seed: next() ^ 0x9E37_79B9_7F4A_7C15)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`, without modulo bias worth mentioning (64-bit multiply-high).
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        if width == 0 { return Int(bitPattern: UInt(next())) }
        return range.lowerBound + Int(next().multipliedFullWidth(by: width).high)
    }

    mutating func int(below bound: Int) -> Int {
        precondition(bound > 0)
        return int(in: 0...(bound - 1))
    }

    /// A number in [0, 1).
    mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[int(below: items.count)]
    }
}
