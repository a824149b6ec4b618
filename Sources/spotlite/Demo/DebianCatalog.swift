import Foundation

/// The Debian package catalog of this machine, read from `apt-cache dumpavail` and, when present, the English long
/// descriptions in `/var/lib/apt/lists/*_i18n_Translation-en*`. Records have the corpus's shape: name, version,
/// section, maintainer, homepage, summary, description, tags.
struct DebianCatalog {
    var records: [[String: String]]
    var longDescriptions: Int
    var source: String

    /// Reads the catalog, or returns nil when apt is not there or knows no packages.
    static func load(listsDirectory: String = "/var/lib/apt/lists") -> DebianCatalog? {
        guard let dump = run("/usr/bin/apt-cache", ["dumpavail"]), !dump.isEmpty else { return nil }
        let translations = loadTranslations(listsDirectory: listsDirectory)
        var records: [[String: String]] = []
        var seen = Set<String>()
        var withLong = 0
        for paragraph in paragraphs(dump) {
            guard let name = paragraph["Package"], seen.insert(name).inserted else { continue }
            let descriptionField = paragraph["Description"] ?? ""
            let (summary, inlineLong) = splitDescription(descriptionField)
            var long = inlineLong
            if long.isEmpty, let md5 = paragraph["Description-md5"], let translated = translations[md5] {
                long = splitDescription(translated).1
            }
            if !long.isEmpty { withLong += 1 }
            let tags = (paragraph["Tag"] ?? "")
                .split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" })
                .map(String.init).filter { !$0.isEmpty }.joined(separator: " ")
            records.append([
                "name": name,
                "version": paragraph["Version"] ?? "",
                "section": paragraph["Section"].map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "",
                "maintainer": paragraph["Maintainer"] ?? "",
                "homepage": paragraph["Homepage"] ?? "",
                "summary": summary,
                "description": long,
                "tags": tags,
            ])
        }
        guard !records.isEmpty else { return nil }
        return DebianCatalog(records: records, longDescriptions: withLong,
                             source: "apt-cache dumpavail" + (translations.isEmpty ? "" : " + Translation-en lists"))
    }

    /// Long descriptions by `Description-md5`, from every English translation list apt has downloaded.
    private static func loadTranslations(listsDirectory: String) -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: listsDirectory)) ?? []
        var result: [String: String] = [:]
        for name in names.sorted() where name.contains("_i18n_Translation-en") {
            // apt-helper decompresses whatever apt stored (lz4, xz, gz or plain).
            guard let text = run("/usr/lib/apt/apt-helper", ["cat-file", listsDirectory + "/" + name]) else { continue }
            for paragraph in paragraphs(text) {
                if let md5 = paragraph["Description-md5"], let description = paragraph["Description-en"] {
                    result[md5] = description
                }
            }
        }
        return result
    }

    /// Splits a Debian description into its summary line and its long text (`.` lines are paragraph breaks).
    static func splitDescription(_ field: String) -> (String, String) {
        var lines = field.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let summary = lines.isEmpty ? "" : lines.removeFirst().trimmingCharacters(in: .whitespaces)
        let body = lines.map { line -> String in
            let trimmed = line.hasPrefix(" ") ? String(line.dropFirst()) : line
            return trimmed == "." ? "" : trimmed
        }
        return (summary, body.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Parses RFC 822-style control paragraphs; continuation lines (starting with a space) join their field.
    /// Works on UTF-8 bytes: the catalog is about 100 MB of text, and splitting it by Characters takes seconds.
    static func paragraphs(_ text: String) -> [[String: String]] {
        var result: [[String: String]] = []
        var current: [String: String] = [:]
        var field: String?
        for line in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            guard let first = line.first else {
                if !current.isEmpty { result.append(current) }
                current = [:]
                field = nil
                continue
            }
            if first == 0x20 || first == 0x09 {
                if let field { current[field, default: ""] += "\n" + String(Substring(line)) }
            } else if let colon = line.firstIndex(of: 0x3A) {
                let name = String(Substring(line[..<colon]))
                var valueStart = line.index(after: colon)
                while valueStart < line.endIndex, line[valueStart] == 0x20 { valueStart = line.index(after: valueStart) }
                current[name] = String(Substring(line[valueStart...]))
                field = name
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    private static func run(_ executable: String, _ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
