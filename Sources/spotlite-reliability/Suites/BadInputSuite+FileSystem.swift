import Foundation
import Spotlite
#if canImport(Glibc)
import Glibc
#endif

extension BadInputSuite {
    /// A command for an unprivileged user: root ignores file modes, so as root the command runs as `nobody` (setpriv).
    var unprivileged: (executable: String, prefix: [String]) {
        getuid() == 0 ? ("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--"]) : ("", [])
    }

    func runUnprivileged(_ executable: String, _ arguments: [String], label: String, directory: String? = nil) throws -> Workspace.Run {
        let (wrapper, prefix) = unprivileged
        if wrapper.isEmpty { return try workspace.run(executable, arguments, label: label, directory: directory) }
        return try workspace.run(wrapper, prefix + [executable] + arguments, label: label, directory: directory)
    }

    /// Hands `path` (recursively) to the user that ``runUnprivileged`` runs as.
    func giveToUnprivileged(_ path: String) throws {
        guard getuid() == 0 else { return }
        let run = try workspace.run("/bin/chown", ["-R", "65534:65534", path], label: "chown")
        guard run.succeeded else { throw HarnessError("chown \(path): \(run.errorLine)") }
    }

    /// Missing directories, read-only directories and files, paths of the wrong kind.
    mutating func missingAndReadOnlyDirectories() throws {
        let fs = workspace.path("fs")
        try FileManager.default.createDirectory(atPath: fs + "/ro", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: fs + "/rw", withIntermediateDirectories: true)
        // The way down to fs must be open to the unprivileged user.
        chmod(workspace.root, 0o755)
        chmod(fs, 0o755)
        chmod(fs + "/ro", 0o555)
        try giveToUnprivileged(fs + "/rw")
        chmod(workspace.configurationPath, 0o644)
        let spotlite = workspace.spotlite
        let config = ["--config", workspace.configurationPath]
        func storeCopy(_ name: String, index: Bool) throws -> String {
            let directory = fs + "/rw/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let checkpoint = try workspace.sqlite("PRAGMA wal_checkpoint(TRUNCATE);")
            guard checkpoint.succeeded else { throw HarnessError("checkpoint: \(checkpoint.errorLine)") }
            try FileManager.default.copyItem(atPath: workspace.storePath, toPath: directory + "/store.sqlite")
            if index { try FileManager.default.copyItem(atPath: workspace.indexPath, toPath: directory + "/search") }
            try giveToUnprivileged(directory)
            return directory
        }

        var cases: [(String, [String])] = []
        func expectClearFailure(_ name: String, _ run: Workspace.Run, mentions: String? = nil) {
            var problems: [String] = []
            if let problem = Self.unclearFailure(run) { problems.append(problem) }
            if let mentions, !run.errorLine.contains(mentions) { problems.append("the error does not mention \(mentions): \(run.errorLine)") }
            cases.append((name, problems))
        }
        func expectSuccess(_ name: String, _ run: Workspace.Run) {
            cases.append((name, run.succeeded ? [] : ["\(run.termination): \(run.errorLine)"]))
        }

        // 1. No store where one is needed.
        expectClearFailure("index update with the store in a missing directory",
                           try workspace.run(spotlite, ["index", "update", "--store", fs + "/missing/deep/store.sqlite"] + config, label: "missing-store"),
                           mentions: "no store")
        // 2. A missing store directory is created when writing.
        expectSuccess("import creates a missing store directory",
                      try runUnprivileged(spotlite, ["import", workspace.path("initial.jsonl"), "--entity", "Item",
                                                     "--store", fs + "/rw/new/deeper/store.sqlite", "--index", fs + "/rw/new/search"] + config,
                                          label: "create-store"))
        // 3. A store that cannot be created.
        let roBefore = Self.contents(of: fs + "/ro")
        expectClearFailure("import into a read-only directory",
                           try runUnprivileged(spotlite, ["import", workspace.path("initial.jsonl"), "--entity", "Item",
                                                          "--store", fs + "/ro/sub/store.sqlite"] + config, label: "ro-store"),
                           mentions: fs + "/ro/sub")
        if Self.contents(of: fs + "/ro") != roBefore { cases.append(("nothing created in the read-only directory", ["it created files"])) }
        // 4. An index that cannot be created; the store stays usable.
        let s4 = try storeCopy("s4", index: false)
        expectClearFailure("index update into a read-only directory",
                           try runUnprivileged(spotlite, ["index", "update", "--store", s4 + "/store.sqlite", "--index", fs + "/ro/search"] + config,
                                               label: "ro-index"),
                           mentions: fs + "/ro/search")
        expectSuccess("the store is usable after the failed update",
                      try runUnprivileged(spotlite, ["history", "stats", "--store", s4 + "/store.sqlite"] + config, label: "stats-after"))
        // 5. A read-only index with a change pending: updates fail clearly, searches still answer.
        let s5 = try storeCopy("s5", index: true)
        let pending = try runUnprivileged(try Binaries.sqlite3(), [s5 + "/store.sqlite", "UPDATE Item SET title = 'pending', rev = rev + 1 WHERE id = 'r-1';"],
                                          label: "pending")
        if !pending.succeeded { throw HarnessError("cannot prepare the read-only index case: \(pending.errorLine)") }
        _ = try workspace.run("/bin/chmod", ["-R", "a-w", s5 + "/search"], label: "chmod")
        let s5Options = ["--store", s5 + "/store.sqlite", "--index", s5 + "/search"] + config
        expectClearFailure("index update of a read-only index",
                           try runUnprivileged(spotlite, ["index", "update"] + s5Options, label: "ro-index-update"))
        expectSuccess("searching a read-only index",
                      try runUnprivileged(spotlite, ["search", "--json", "search"] + s5Options, label: "ro-index-search"))
        _ = try workspace.run("/bin/chmod", ["-R", "u+w", s5 + "/search"], label: "chmod")
        // 6. A store file the user may read but not write.
        let s6 = try storeCopy("s6", index: true)
        _ = try workspace.run("/bin/chown", ["-R", "0:0", s6 + "/store.sqlite"], label: "chown-root")
        chmod(s6 + "/store.sqlite", 0o444)
        let s6Options = ["--store", s6 + "/store.sqlite", "--index", s6 + "/search"] + config
        expectClearFailure("import into a read-only store file",
                           try runUnprivileged(spotlite, ["import", workspace.path("initial.jsonl"), "--entity", "Item"] + s6Options,
                                               label: "ro-store-import"))
        let roSearch = try runUnprivileged(spotlite, ["search", "--json", "search"] + s6Options, label: "ro-store-search")
        cases.append(("searching with a read-only store file answers or fails clearly", Self.answeredOrClear(roSearch).map { [$0] } ?? []))
        // 7. Paths of the wrong kind.
        try workspace.write("not a directory", to: "fs/a-file")
        expectClearFailure("an index path that is a file",
                           try workspace.run(spotlite, ["index", "update", "--index", fs + "/a-file"] + config, label: "index-file"),
                           mentions: fs + "/a-file")
        expectClearFailure("a store path that is a directory",
                           try workspace.run(spotlite, ["import", workspace.path("initial.jsonl"), "--entity", "Item", "--store", fs + "/rw"] + config,
                                             label: "store-dir"),
                           mentions: fs + "/rw")

        for (name, problems) in cases { report.record(name, problems: problems) }
        _ = try workspace.run("/bin/chmod", ["-R", "u+w", fs], label: "chmod")
    }

    /// A full disk, simulated with a file size limit (`ulimit -f`, SIGXFSZ ignored so writes fail with EFBIG): the
    /// import, a rebuild and an incremental update each fail with one clear line, and afterwards the store and the
    /// index are usable and consistent.
    mutating func fullDisk() throws {
        let directory = workspace.path("full")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var limited = configuration
        limited.storePath = directory + "/store.sqlite"
        limited.indexPath = directory + "/search"
        let options = ["--store", limited.storePath, "--index", limited.indexPath, "--config", workspace.configurationPath]
        func underLimit(kilobytes: Int, _ arguments: [String]) throws -> Workspace.Run {
            try workspace.run("/bin/sh", ["-c", #"trap "" XFSZ; ulimit -f "$0"; exec "$@""#, String(kilobytes * 2),
                                          workspace.spotlite] + arguments + options, label: "ulimit")
        }
        func fileSize(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }
        var records = RecordGenerator(random: random.split())
        let lines = (0..<3000).map { index -> String in
            var item = records.item(id: "full-\(index)")
            item.body = records.text(words: 300)
            return item.jsonLine
        }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "full/items.jsonl")
        var problems: [String] = []

        // The import runs out of space half-way.
        let importRun = try underLimit(kilobytes: 1024, ["import", directory + "/items.jsonl", "--entity", "Item", "--batch", "100"])
        if let problem = Self.unclearFailure(importRun) { problems.append("import: \(problem)") }
        let afterImport = try workspace.runSpotlite(["history", "stats", "--json", "--store", limited.storePath])
        if !afterImport.succeeded { problems.append("the store after the failed import: \(afterImport.errorLine)") }
        problems += historyProblems(limited)
        let retry = try workspace.runSpotlite(["import", directory + "/items.jsonl", "--entity", "Item"] + Array(options.dropLast(2)))
        if !retry.succeeded { problems.append("importing again without the limit: \(retry.errorLine)") }
        report.record("full disk during import: a clear error, the store consistent and usable", problems: problems)

        // A rebuild runs out of space: the error is clear and the index (none yet) is built afterwards.
        problems = []
        let rebuildRun = try underLimit(kilobytes: 512, ["index", "rebuild"])
        if let problem = Self.unclearFailure(rebuildRun) { problems.append("index rebuild: \(problem)") }
        let build = try workspace.runSpotlite(["index", "update", "--json"] + Array(options.dropLast(2)))
        if !build.succeeded { problems.append("index update without the limit: \(build.errorLine)") }
        problems += invariantProblems(of: limited)
        report.record("full disk during a rebuild: a clear error, then a good index", problems: problems)

        // An incremental update runs out of space: the old index still answers, and the next update completes.
        problems = []
        let more = (3000..<5000).map { index -> String in
            var item = records.item(id: "full-\(index)")
            item.body = records.text(words: 300)
            return item.jsonLine
        }
        try workspace.write(more.joined(separator: "\n") + "\n", to: "full/more.jsonl")
        let moreRun = try workspace.runSpotlite(["import", directory + "/more.jsonl", "--entity", "Item"] + Array(options.dropLast(2)))
        if !moreRun.succeeded { throw HarnessError("import without a limit failed: \(moreRun.errorLine)") }
        let largest = IndexLayout(path: limited.indexPath).liveDatabasePaths.flatMap { live in
            ((try? FileManager.default.contentsOfDirectory(atPath: live)) ?? []).map { fileSize(live + "/" + $0) }
        }.max() ?? 0
        let updateRun = try underLimit(kilobytes: largest / 1024 + 8, ["index", "update"])
        if let problem = Self.unclearFailure(updateRun) { problems.append("index update: \(problem)") }
        let search = try workspace.runSpotlite(["search", "--json", "search"] + Array(options.dropLast(2)))
        if !search.succeeded { problems.append("searching the old index after the failed update: \(search.errorLine)") }
        let update = try workspace.runSpotlite(["index", "update", "--json"] + Array(options.dropLast(2)))
        if !update.succeeded { problems.append("index update without the limit: \(update.errorLine)") }
        problems += invariantProblems(of: limited)
        report.record("full disk during an update: a clear error, the old index answers, the next update completes", problems: problems)
        report.figure("full disk", "import, rebuild and update each stopped by a file size limit: \(importRun.errorLine.prefix(120)) | \(rebuildRun.errorLine.prefix(120)) | \(updateRun.errorLine.prefix(120))")
    }

    func historyProblems(_ configuration: SpotliteConfiguration) -> [String] {
        do {
            let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                          options: StoreOptions(readOnly: true))
            return try store.read { db in try HistoryAudit.audit(db, ledger: true).problems }
        } catch {
            return ["the history check could not run: \(error)"]
        }
    }

    func invariantProblems(of configuration: SpotliteConfiguration) -> [String] {
        do {
            return try InvariantChecker(configuration: configuration).check().problems
        } catch {
            return ["the invariant check could not run: \(error)"]
        }
    }
}
