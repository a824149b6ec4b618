import SpotliteTooling
/// The transactions a writer runs, as SQL text: the same mix for the library writers and the plain `sqlite3` ones —
/// single-row upserts, updates and deletes, and batch statements (`UPDATE … WHERE`, `INSERT … SELECT`, `DELETE … WHERE`)
/// over the writer's own keys and a range of keys shared by every writer.
///
/// Transaction `seq` of a writer depends only on the seed, the namespace and `seq`, so a transaction retried after
/// "database is locked" is the same SQL. Every statement keeps the `rev` ledger (see ``ItemModel``), and the first
/// statement always changes a row, so every transaction leaves history.
struct WriteScript {
    let seed: UInt64
    /// The writer's own key prefix (`a` gives keys `a-17-0`, …).
    let namespace: String
    /// Keys `s-0000` … shared by every writer.
    let sharedKeys: Int

    static func sharedKey(_ number: Int) -> String { "s-" + String(format: "%04d", number) }

    func statements(for seq: Int) -> [String] {
        var random = SeededGenerator(seed: seed ^ UInt64(seq &* 0x2545_F491) ^ Self.hash(namespace))
        var records = RecordGenerator(random: random.split())
        var statements = [records.item(id: "\(namespace)-\(seq)-0").upsertSQL]
        for index in 1...random.int(in: 1...3) {
            switch random.int(below: 13) {
            case 0...2:
                statements.append(records.item(id: "\(namespace)-\(seq)-\(index)").upsertSQL)
            case 3...4:
                statements.append(records.item(id: Self.sharedKey(random.int(below: sharedKeys))).upsertSQL)
            case 5...7:
                let start = random.chance(0.5) ? Self.sharedKey(random.int(below: sharedKeys))
                    : "\(namespace)-\(random.int(in: 0...max(0, seq)))"
                statements.append("""
                    UPDATE Item SET title = \(SQLText.literal(records.text(words: 3))), n = \(random.int(in: 0...9999)), \
                    rev = rev + 1 WHERE id = (SELECT id FROM Item WHERE id >= \(SQLText.literal(start)) ORDER BY id LIMIT 1);
                    """)
            case 8...9:
                let start = "\(namespace)-\(random.int(in: 0...max(0, seq)))"
                statements.append("""
                    DELETE FROM Item WHERE id = (SELECT id FROM Item WHERE id >= \(SQLText.literal(start)) \
                    AND id LIKE \(SQLText.literal(namespace + "-%")) ORDER BY id LIMIT 1);
                    """)
            case 10:
                let digit = random.int(below: 10)
                statements.append("UPDATE Item SET n = n + 1, rev = rev + 1 WHERE id LIKE 's-00\(digit)%';")
            case 11:
                let count = random.int(in: 5...25)
                statements.append("""
                    INSERT INTO Item (id, title, body, tag, n, rev) \
                    WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < \(count)) \
                    SELECT \(SQLText.literal("\(namespace)-\(seq)-b")) || x, 'batch row ' || x, \
                    \(SQLText.literal(records.text(words: 8))), \(SQLText.literal(records.pick(RecordGenerator.tags))), x, 0 \
                    FROM k WHERE true ON CONFLICT(id) DO UPDATE SET n = n + 1, rev = rev + 1;
                    """)
            default:
                statements.append("""
                    DELETE FROM Item WHERE id LIKE \(SQLText.literal(namespace + "-%")) AND abs(n) % 17 = \(random.int(below: 17));
                    """)
            }
        }
        return statements
    }

    /// A script for the `sqlite3` shell running transactions `range`: each one `BEGIN IMMEDIATE … COMMIT`, followed
    /// by `ok <seq>` on stdout so a runner knows which committed.
    func shellScript(_ range: Range<Int>, busyTimeoutMilliseconds: Int = 30_000) -> String {
        var script = ".bail on\n.timeout \(busyTimeoutMilliseconds)\n"
        for seq in range {
            script += "BEGIN IMMEDIATE;\n" + statements(for: seq).joined(separator: "\n") + "\nCOMMIT;\nSELECT 'ok \(seq)';\n"
        }
        return script
    }

    private static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return value
    }
}
