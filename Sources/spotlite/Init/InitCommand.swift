import ArgumentParser
import Foundation
import Spotlite

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented configuration, with fields guessed from a JSON Lines file.",
        discussion: """
        Writes config/spotlite.toml (or the file given by --config): where the store and the index live, the \
        history settings, and one entity. With --from FILE, the entity's fields are guessed from the first lines of \
        the file (text, keyword, number, date or stored) and its key is --key, else `id` when present, else the \
        first field whose values are unique in those lines. Without --from, the entity is an example to edit. \
        Relative paths in the file are relative to the file's folder; the store and index go to Index/ in the \
        current folder unless --store or --index say otherwise. An existing file is kept unless --force is given.

        EXAMPLES
          spotlite init --from packages.jsonl --entity Package
          spotlite init --from notes.jsonl.xz --key uuid --config notes.toml
          spotlite init --entity Note
        """
    )

    @Option(help: ArgumentHelp("The entity (table) name (default: from the file name, e.g. Package for packages.jsonl).", valueName: "name"))
    var entity: String?

    @Option(help: ArgumentHelp("A JSON Lines file (.xz or .gz too) to guess the fields from.", valueName: "file"))
    var from: String?

    @Option(help: ArgumentHelp("The field that identifies a record (default: id, else the first unique field).", valueName: "field"))
    var key: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("How many lines of the file to read for the guess.", valueName: "lines"))
    var sample = 1000

    @Flag(help: "Overwrite an existing configuration file.")
    var force = false

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try OptionRange.check(sample, in: OptionRange.initSample, option: "--sample")
    }

    func run() async throws {
        let currentDirectory = FileManager.default.currentDirectoryPath
        let configurationPath = options.config ?? CommandEnvironment.defaultConfigurationPath
        let absoluteConfiguration = SpotliteConfiguration.resolvePath(configurationPath, against: currentDirectory)
        let configurationDirectory = (absoluteConfiguration as NSString).deletingLastPathComponent
        if FileManager.default.fileExists(atPath: absoluteConfiguration) && !force {
            throw CommandFailure(message: "\(configurationPath) already exists; edit it, remove it, or pass --force to overwrite it", status: ExitStatus.input)
        }
        let storePath = SpotliteConfiguration.resolvePath(options.store ?? "Index/store.sqlite", against: currentDirectory)
        let indexPath = SpotliteConfiguration.resolvePath(options.index ?? "Index/search", against: currentDirectory)

        var entityName = entity ?? from.map(Self.entityName(forFile:)) ?? "Item"
        if entity == nil && !ConfigurationText.isIdentifier(entityName) { entityName = "Item" }
        guard ConfigurationText.isIdentifier(entityName) else {
            throw CommandFailure(message: "--entity \(entityName): not a valid entity name; use letters, digits and _ (starting with a letter)", status: ExitStatus.usage)
        }

        var text = ConfigurationText(
            store: Self.relativePath(storePath, from: configurationDirectory),
            index: Self.relativePath(indexPath, from: configurationDirectory))
        var summary: String
        var searchWord = "WORD"
        if let from {
            let sampled = try Self.readSample(from, lines: sample)
            guard sampled.inference.records > 0 else {
                throw CommandFailure(message: "\(from) has no JSON objects in its first \(sample) lines; give a JSON Lines file (one object per line)", status: ExitStatus.input)
            }
            let keyName = try sampled.inference.key(requested: key)
            let fields = sampled.inference.fields(key: keyName)
            for field in fields where !ConfigurationText.isIdentifier(field.name) {
                throw CommandFailure(message: "the field \"\(field.name)\" of \(from) cannot be a column: names are letters, digits and _ (starting with a letter or _); rename it in the file", status: ExitStatus.input)
            }
            text.entity(entityName, key: keyName, keyIsInteger: sampled.inference.keyIsInteger(keyName), fields: fields,
                        source: "the first \(Terminal.number(sampled.inference.records)) records of \((from as NSString).lastPathComponent)")
            searchWord = sampled.searchWord(fields: fields) ?? searchWord
            summary = "entity \(entityName) with key \(keyName) and \(fields.count) field\(fields.count == 1 ? "" : "s") guessed from \(Terminal.number(sampled.inference.records)) record\(sampled.inference.records == 1 ? "" : "s") of \(from)"
        } else {
            text.exampleEntity(entityName, key: key ?? "id")
            summary = "an example entity \(entityName) (key \(key ?? "id"), fields title, body, tags, created): edit its fields to match your data"
        }
        let toml = text.render()
        // What init writes must load: check it the way every other command will read it.
        do {
            _ = try SpotliteConfiguration(tomlString: toml, source: configurationPath, baseDirectory: configurationDirectory)
        } catch {
            throw CommandFailure(message: "the guessed configuration is not valid (\(error)); pass --key, rename the fields in the file, or write the configuration by hand (see docs/configuration.md)", status: ExitStatus.input)
        }
        do {
            try FileManager.default.createDirectory(atPath: configurationDirectory, withIntermediateDirectories: true)
            try Data(toml.utf8).write(to: URL(fileURLWithPath: absoluteConfiguration), options: .atomic)
        } catch {
            throw CommandFailure(message: "cannot write \(configurationPath): \(error.localizedDescription); choose a writable place with --config", status: ExitStatus.input)
        }
        let configOption = options.config.map { " --config \(Self.shellQuoted($0))" } ?? ""
        print("Wrote \(configurationPath): \(summary).")
        print("Next:")
        print("  spotlite import \(from.map(Self.shellQuoted) ?? "FILE.jsonl") --entity \(entityName)\(configOption)")
        print("  spotlite index update\(configOption)")
        print("  spotlite search \(searchWord)\(configOption)")
    }

    /// `packages.jsonl.xz` → `Package`; `user-events.ndjson` → `UserEvent`.
    static func entityName(forFile path: String) -> String {
        var name = (path as NSString).lastPathComponent
        if path == "-" { return "Item" }
        for suffix in [".xz", ".gz", ".bz2", ".zst", ".jsonl", ".ndjson", ".json", ".txt"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        let words = name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        var joined = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if joined.hasSuffix("ies") {
            joined.removeLast(3)
            joined += "y"
        } else if joined.hasSuffix("s") && !joined.hasSuffix("ss") && joined.count > 1 {
            joined.removeLast()
        }
        return joined.isEmpty ? "Item" : joined
    }

    /// `path` relative to `directory` when it is inside the same tree (both absolute), else `path` itself.
    static func relativePath(_ path: String, from directory: String) -> String {
        let target = path.split(separator: "/").map(String.init)
        let base = directory.split(separator: "/").map(String.init)
        var common = 0
        while common < target.count, common < base.count, target[common] == base[common] { common += 1 }
        // Only the root in common: an absolute path reads better than a chain of ../
        guard common > 0 || base.isEmpty else { return path }
        let ups = Array(repeating: "..", count: base.count - common)
        let relative = (ups + target[common...]).joined(separator: "/")
        return relative.isEmpty ? "." : relative
    }

    static func shellQuoted(_ text: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,")
        if !text.isEmpty && text.unicodeScalars.allSatisfy(safe.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// What was read of the file.
    struct Sample {
        var inference = FieldInference()
        var firstRecord: [String: Any] = [:]

        /// A word of the first record's title-like text field, to suggest a first search that finds something.
        func searchWord(fields: [FieldInference.Field]) -> String? {
            let texts = fields.filter { $0.kind == .text }.sorted { $0.weight > $1.weight }
            for field in texts {
                guard let value = firstRecord[field.name] as? String else { continue }
                let words = value.split(whereSeparator: { !$0.isLetter }).map(String.init)
                if let word = words.first(where: { $0.count >= 4 && $0.allSatisfy(\.isASCII) }) { return word.lowercased() }
            }
            return nil
        }
    }

    static func readSample(_ path: String, lines limit: Int) throws -> Sample {
        let input = try InputSource(path: path)
        defer { input.abandon() }
        var sample = Sample()
        var buffer: [UInt8] = []
        var lineNumber = 0
        var reachedEnd = false
        func consume(_ line: ArraySlice<UInt8>) throws {
            lineNumber += 1
            let bytes = Array(line)
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(bytes))
            } catch {
                let hint = String(validating: bytes, as: UTF8.self) == nil ? "not UTF-8 text" : "not valid JSON"
                throw CommandFailure(message: "line \(lineNumber) of \(path): \(hint); give a JSON Lines file (one JSON object per line)", status: ExitStatus.input)
            }
            guard let record = object as? [String: Any] else {
                throw CommandFailure(message: "line \(lineNumber) of \(path): not a JSON object; give a JSON Lines file (one JSON object per line)", status: ExitStatus.input)
            }
            if sample.inference.records == 0 { sample.firstRecord = record }
            let order = JSONKeyOrder.keys(of: bytes).filter { $0 != "_delete" }
            sample.inference.add(record, order: order)
        }
        while lineNumber < limit {
            if let newline = buffer.firstIndex(of: 0x0A) {
                try consume(buffer[..<newline])
                buffer.removeSubrange(...newline)
                continue
            }
            if reachedEnd {
                if !buffer.isEmpty { try consume(buffer[...]) }
                buffer.removeAll()
                break
            }
            let chunk = try input.handle.read(upToCount: 1 << 16) ?? Data()
            if chunk.isEmpty { reachedEnd = true } else { buffer.append(contentsOf: chunk) }
            if buffer.count > 64 << 20 {
                throw CommandFailure(message: "line \(lineNumber + 1) of \(path) is longer than 64 MB; give a JSON Lines file (one object per line)", status: ExitStatus.input)
            }
        }
        if reachedEnd { try input.finish() }
        return sample
    }
}
