/// The checksum of a model's shape: a digest of a canonical text listing its entities and attributes.
enum ModelChecksum {
    /// Names the layout of ``canonicalText(of:)``; changing that layout would change every store's checksum.
    static let layoutVersion = "spotlite-model/1"

    static func checksum(of model: StoreModel) -> String {
        hexDigest(of: canonicalText(of: model))
    }

    /// One line per entity and per attribute, sorted, so that declaration order does not matter.
    static func canonicalText(of model: StoreModel) -> String {
        var lines = [layoutVersion]
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name) key \(entity.key) \(entity.keyType.rawValue)")
            for attribute in entity.attributes.filter({ $0.name != entity.key }).sorted(by: { $0.name < $1.name }) {
                lines.append("  attribute \(attribute.name) \(attribute.type.rawValue)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// FNV-1a, 64 bits: stable across runs, machines and Swift versions, unlike `Hasher`.
    static func hexDigest(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
