import ArgumentParser
import Foundation

/// `spotlite manual`: the man page, generated from the command definitions (what `--help` shows, every command on
/// one page). `make install` writes it to share/man/man1/spotlite.1.
///
/// It reads the argument parser's own description of the commands (`--experimental-dump-help`, the input of
/// swift-argument-parser's generate-manual plugin) from a child process of the same binary, so the page needs only
/// the binary: the plugin would need SwiftPM, which cannot run while `swift test` holds the build folder.
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual",
        abstract: "Print the manual page (roff), generated from the command definitions.",
        discussion: """
        EXAMPLES
          spotlite manual > spotlite.1 && man ./spotlite.1
          spotlite manual | man -l -
        """,
        shouldDisplay: false
    )

    @Option(help: ArgumentHelp("The date printed in the page footer (default: today).", valueName: "yyyy-mm-dd"))
    var date: String?

    func run() throws {
        let executable = FileManager.default.fileExists(atPath: "/proc/self/exe") ? "/proc/self/exe" : CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--experimental-dump-help"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let command = root["command"] as? [String: Any] else {
            throw CommandFailure(message: "cannot read the command definitions from \(executable) --experimental-dump-help; reinstall spotlite", status: ExitStatus.failure)
        }
        let day = date ?? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: Date())
        }()
        print(ManualPage(root: command, date: day).render(), terminator: "")
    }
}

/// The roff text of the man page.
struct ManualPage {
    let root: [String: Any]
    let date: String

    func render() -> String {
        var out = ".TH SPOTLITE 1 \"\(date)\" \"spotlite\" \"User Commands\"\n"
        out += ".SH NAME\nspotlite \\- \(Self.escape(root["abstract"] as? String ?? ""))\n"
        out += ".SH SYNOPSIS\n.B spotlite\n.I command\n[\n.I options\n]\n"
        let (description, trailing) = Self.splitSections(root["discussion"] as? String ?? "")
        out += ".SH DESCRIPTION\n" + Self.paragraphs(description)
        out += ".SH COMMANDS\n"
        for command in Self.leaves(root, path: ["spotlite"]) {
            out += commandSection(command.info, path: command.path)
        }
        for (title, body) in trailing {
            out += ".SH \(title)\n.nf\n\(Self.escape(body))\n.fi\n"
        }
        out += ".SH FILES\n.TP\n.I config/spotlite.toml\nThe configuration read by default; relative paths in it are relative to its folder.\n"
        out += ".SH SEE ALSO\n.BR sqlite3 (1),\n.BR xapian-delve (1).\n"
        out += "The project's docs/cli.md and docs/configuration.md.\n"
        return out
    }

    /// The runnable commands, depth first: `index` itself only groups `index update`, `index status`, ...
    static func leaves(_ command: [String: Any], path: [String]) -> [(path: [String], info: [String: Any])] {
        var result: [(path: [String], info: [String: Any])] = []
        for sub in command["subcommands"] as? [[String: Any]] ?? [] {
            guard sub["shouldDisplay"] as? Bool ?? true, let name = sub["commandName"] as? String, name != "help" else { continue }
            if let children = sub["subcommands"] as? [[String: Any]], !children.isEmpty {
                result += leaves(sub, path: path + [name])
            } else {
                result.append((path + [name], sub))
            }
        }
        return result
    }

    private func commandSection(_ info: [String: Any], path: [String]) -> String {
        let arguments = (info["arguments"] as? [[String: Any]] ?? []).filter {
            ($0["shouldDisplay"] as? Bool ?? true) && ($0["preferredName"] as? [String: Any])?["name"] as? String != "help"
        }
        var synopsis = path.joined(separator: " ")
        for argument in arguments where argument["kind"] as? String == "positional" {
            let name = argument["valueName"] as? String ?? "value"
            synopsis += argument["isOptional"] as? Bool ?? false ? " [\(name)…]" : " <\(name)>"
        }
        if arguments.contains(where: { $0["kind"] as? String != "positional" }) { synopsis += " [options]" }
        var out = ".SS \"\(Self.escape(synopsis))\"\n"
        out += Self.escape(info["abstract"] as? String ?? "") + "\n"
        let (discussion, sections) = Self.splitSections(info["discussion"] as? String ?? "")
        if !discussion.isEmpty { out += ".PP\n" + Self.paragraphs(discussion) }
        for argument in arguments {
            out += ".TP\n" + Self.bold(Self.label(argument)) + "\n" + Self.escape(Self.help(argument)) + "\n"
        }
        for (title, body) in sections {
            out += ".PP\n.B \(title)\n.nf\n.RS\n\(Self.escape(Self.dedent(body)))\n.RE\n.fi\n"
        }
        return out
    }

    static func label(_ argument: [String: Any]) -> String {
        let valueName = argument["valueName"] as? String ?? "value"
        if argument["kind"] as? String == "positional" { return "<\(valueName)>" }
        let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
            guard let text = name["name"] as? String else { return nil }
            return (name["kind"] as? String == "short" ? "-" : "--") + text
        }
        let joined = names.joined(separator: ", ")
        return argument["kind"] as? String == "option" ? "\(joined) <\(valueName)>" : joined
    }

    static func help(_ argument: [String: Any]) -> String {
        var text = argument["abstract"] as? String ?? ""
        if let defaultValue = argument["defaultValue"] as? String, argument["kind"] as? String == "option" {
            text += " (default: \(defaultValue))"
        }
        if argument["isRepeating"] as? Bool ?? false, argument["kind"] as? String != "positional" {
            text += " Repeatable."
        }
        if let values = argument["allValues"] as? [String], !values.isEmpty, !text.contains(values.joined(separator: ", ")) {
            text += " Values: \(values.joined(separator: ", "))."
        }
        return text
    }

    /// The discussion's prose, and its trailing sections (lines in capitals such as EXAMPLES or EXIT STATUS, with
    /// the indented lines under them).
    static func splitSections(_ discussion: String) -> (String, [(String, String)]) {
        var prose: [Substring] = []
        var sections: [(String, [Substring])] = []
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, !line.hasPrefix(" "), trimmed == trimmed.uppercased(), trimmed.contains(where: \.isLetter) {
                sections.append((trimmed, []))
            } else if sections.isEmpty {
                prose.append(line)
            } else {
                sections[sections.count - 1].1.append(line)
            }
        }
        let trimmedSections = sections.map { ($0.0, $0.1.joined(separator: "\n").trimmingCharacters(in: .newlines)) }
        return (prose.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines), trimmedSections)
    }

    static func paragraphs(_ text: String) -> String {
        text.components(separatedBy: "\n\n").map { escape($0.replacingOccurrences(of: "\n", with: " ")) }
            .joined(separator: "\n.PP\n") + "\n"
    }

    static func dedent(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")
    }

    static func bold(_ text: String) -> String { "\\fB" + escape(text) + "\\fR" }

    /// Text safe in roff: backslashes doubled, hyphens as \-, and no line starting with a control character.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e")
            .replacingOccurrences(of: "-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }
            .joined(separator: "\n")
    }
}
