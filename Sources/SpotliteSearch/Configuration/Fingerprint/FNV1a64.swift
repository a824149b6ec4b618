/// The 64-bit FNV-1a hash: tiny, fully specified and the same on every machine and run, unlike `Hasher`, which is
/// seeded per process. It detects changes; it is not meant to resist deliberate collisions.
struct FNV1a64 {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    private(set) var value = FNV1a64.offsetBasis

    mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* Self.prime
        }
    }

    /// The hash of `text`'s UTF-8 bytes as 16 lowercase hex digits.
    static func hexDigest(of text: String) -> String {
        var hasher = FNV1a64()
        hasher.combine(text.utf8)
        let hex = String(hasher.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
