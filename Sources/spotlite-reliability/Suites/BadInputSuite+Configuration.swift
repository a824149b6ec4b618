import Foundation

extension BadInputSuite {
    /// Each malformed configuration, used by `spotlite import` in an empty directory: one clear error line naming the
    /// file and the key, and nothing created.
    mutating func malformedConfigurations() throws {
        var cases = ConfigurationCorpus.cases.map { (name: $0.name, data: Data($0.text.utf8), names: $0.names) }
        cases.append((name: "not UTF-8", data: Data("store = \"data/".utf8) + Data([0xFF, 0xFE]) + Data("\"\n".utf8),
                      names: "UTF-8"))
        var failed = 0
        for (number, malformed) in cases.enumerated() {
            let directory = "config-cases/\(number)"
            try workspace.write(malformed.data, to: "\(directory)/spotlite.toml")
            try workspace.write(#"{"id": "a", "title": "one"}"# + "\n", to: "\(directory)/items.jsonl")
            let before = Self.contents(of: workspace.path(directory))
            let run = try workspace.run(workspace.spotlite, ["import", "items.jsonl", "--entity", "Item", "--config", "spotlite.toml"],
                                        label: "config-\(number)", directory: workspace.path(directory), timeout: 60)
            var problems: [String] = []
            if let problem = Self.unclearFailure(run) { problems.append(problem) }
            let line = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
            if !line.hasPrefix("spotlite: spotlite.toml: ") { problems.append("the error does not name the file: \(line.prefix(200))") }
            if !line.contains(malformed.names) { problems.append("the error does not name \(malformed.names): \(line.prefix(200))") }
            let after = Self.contents(of: workspace.path(directory))
            if after != before { problems.append("it created \(Set(after).subtracting(before).sorted().joined(separator: ", "))") }
            if !problems.isEmpty { failed += 1 }
            report.record("malformed configuration: \(malformed.name)", problems: problems)
        }
        try FileManager.default.removeItem(atPath: workspace.path("config-cases"))

        // Unknown entities and fields named on the command line.
        var problems: [String] = []
        let commands: [(String, [String], String)] = [
            ("import into an unknown entity", ["import", workspace.path("initial.jsonl"), "--entity", "Ghost"], "Ghost"),
            ("search an unknown entity", ["search", "x", "--entity", "Ghost"], "Ghost"),
            ("search an entity with SQL in its name", ["search", "x", "--entity", "Item; DROP TABLE Item"], "Item; DROP TABLE Item"),
            ("filter on an unknown field", ["search", "x", "--filter", "ghost:1"], "ghost"),
            ("filter on a text field", ["search", "x", "--filter", "title:x"], "title"),
            ("sort by an unknown field", ["search", "x", "--sort", "ghost"], "ghost"),
            ("facet on a field that is no facet", ["search", "x", "--facet", "title"], "title"),
            ("a filter without a colon", ["search", "x", "--filter", "tag"], "tag"),
        ]
        for (name, arguments, mentions) in commands {
            let run = try workspace.runSpotlite(arguments, timeout: 60)
            if let problem = Self.unclearFailure(run) { problems.append("\(name): \(problem)") }
            else if !run.stderr.contains(mentions) { problems.append("\(name): the error does not name \(mentions): \(run.errorLine)") }
        }
        report.record("unknown entities and fields on the command line: clear errors naming them", problems: problems)
        report.figure("configuration corpus", "\(cases.count) malformed files, \(cases.count - failed) refused clearly with nothing created")
    }
}
