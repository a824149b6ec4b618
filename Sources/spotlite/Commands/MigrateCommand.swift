import ArgumentParser
import Foundation
import Spotlite
import SpotliteJSON

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Show or run the store's model migrations described by the configuration's [model] table.",
        discussion: """
        [model] names the version [entities] describe, the older versions a store may still be at and the stages \
        between them (see docs/migrations.md). `status` says where the store is and what would run; `run` runs the \
        pending stages, each in one SQLite transaction (an interrupted stage leaves the store at the version before \
        it, and the next run resumes). Data changes of a stage's SQL files are recorded in history under the author \
        spotlite.migration. Other commands refuse a store that needs migrating.

        EXAMPLES
          spotlite migrate status
          spotlite migrate run --json
        """,
        subcommands: [Status.self, Run.self]
    )

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the store's model version, the pending stages and the migration log.",
            discussion: """
            EXAMPLES
              spotlite migrate status
              spotlite migrate status --assume-version v1 --json
            """)

        @Option(help: ArgumentHelp("For a store that records no version: the version it is at.", valueName: "name"))
        var assumeVersion: String?
        @Flag(help: "Print the status as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let manager = try environment.requireMigrationManager(loadingSQLFiles: false)
            let path = environment.configuration.storePath
            let status = try manager.status(ofStoreAtPath: path, assumingVersion: assumeVersion)
            if json {
                JSONOutput.print([
                    "store": path,
                    "exists": status.storeExists,
                    "recorded_version": status.recordedVersion.map(MigrateCommand.jsonObject) ?? NSNull(),
                    "store_version": status.storeVersion.map(MigrateCommand.jsonObject) ?? NSNull(),
                    "newest_version": MigrateCommand.jsonObject(status.newestVersion),
                    "up_to_date": status.isUpToDate,
                    "pending": try status.pendingStages.map { stage -> [String: Any] in
                        ["from": stage.currentVersion.name, "to": stage.nextVersion.name, "kind": stage.kind.rawValue,
                         "changes": try stage.schemaChanges().map(\.description)]
                    },
                    "log": status.log.map(MigrateCommand.jsonObject),
                ] as [String: Any])
                return
            }
            let location: String
            if !status.storeExists {
                location = "does not exist yet; it will be created at \(status.newestVersion.name)"
            } else if let version = status.storeVersion {
                location = "is at model version \(version)" + (status.recordedVersion == nil ? ", found from its tables (not recorded yet)" : "")
            } else {
                location = "has no model tables yet; they will be created at \(status.newestVersion.name)"
            }
            print("Store \(path) \(location).")
            print("Newest version: \(status.newestVersion).")
            if status.isUpToDate {
                print("Up to date: nothing to migrate.")
            } else {
                print(Terminal.strong("\(status.pendingStages.count) pending stage\(status.pendingStages.count == 1 ? "" : "s")") + " (run `spotlite migrate run`):")
                for stage in status.pendingStages {
                    let changes = try stage.schemaChanges().map(\.description)
                    print("  \(stage): \(changes.isEmpty ? "no schema change" : changes.joined(separator: ", "))")
                }
            }
            if !status.log.isEmpty {
                print("Migration log:")
                for record in status.log { print("  " + MigrateCommand.describe(record)) }
            }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the pending stages, bringing the store to the newest model version.",
            discussion: """
            EXAMPLES
              spotlite migrate run
              spotlite migrate run --assume-version v1
            """)

        @Option(help: ArgumentHelp("For a store that records no version: the version it is at.", valueName: "name"))
        var assumeVersion: String?
        @Flag(help: "Print what was done as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let manager = try environment.requireMigrationManager()
            let path = environment.configuration.storePath
            try environment.createStoreDirectory()
            let records = try manager.migrateStore(atPath: path, assumingVersion: assumeVersion)
            if json {
                JSONOutput.print(["store": path, "version": MigrateCommand.jsonObject(manager.newestVersion.id),
                                  "migrations": records.map(MigrateCommand.jsonObject)] as [String: Any])
                return
            }
            if records.isEmpty {
                print("Store \(path) is already at model version \(manager.newestVersion.name): nothing to migrate.")
                return
            }
            for record in records { print(MigrateCommand.describe(record)) }
            print("Store \(path) is at model version \(manager.newestVersion.name). Run `spotlite index update` to rebuild the index for it.")
        }
    }

    static func describe(_ record: MigrationRecord) -> String {
        let date = ISO8601.string(from: record.date)
        switch record.event {
        case .created: return "\(date)  created at \(record.to.name)"
        case .adopted: return "\(date)  recorded as \(record.to.name) (found from its tables)"
        case .lightweight, .custom:
            let history = record.token.map { "history token \($0), author \(StagedMigrationManager.author)" } ?? "no row changes"
            return "\(date)  migrated \(record.from?.name ?? "?") → \(record.to.name) (\(record.event.rawValue), \(history))"
        }
    }

    static func jsonObject(_ version: ModelVersionID) -> [String: Any] {
        ["name": version.name, "checksum": version.checksum]
    }

    static func jsonObject(_ record: MigrationRecord) -> [String: Any] {
        [
            "event": record.event.rawValue,
            "from": record.from.map(jsonObject) ?? NSNull(),
            "to": jsonObject(record.to),
            "token": record.token.map { $0.rawValue as Any } ?? NSNull(),
            "date": ISO8601.string(from: record.date),
        ]
    }
}

extension CommandEnvironment {
    /// The manager of the configuration's `[model]`, or a failure saying how to add one.
    func requireMigrationManager(loadingSQLFiles: Bool = true) throws -> StagedMigrationManager {
        guard let manager = try configuration.stagedMigrationManager(
            source: configurationSource ?? "configuration", loadingSQLFiles: loadingSQLFiles) else {
            let source = configurationSource.map { "the configuration \($0) has no [model] table" }
                ?? "there is no configuration (config/spotlite.toml is missing)"
            throw CommandFailure(message: "\(source); add [model] with the version [entities] describe, older versions and stages (see docs/migrations.md)")
        }
        return manager
    }

    func createStoreDirectory() throws {
        let directory = (configuration.storePath as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(message: "cannot create the store's directory \(directory) (\(error.localizedDescription)); choose a writable path with --store")
        }
    }

    /// Opens the store at the configuration's model. With `[model]`, a store that needs migrating is refused (other
    /// commands never migrate behind the user's back), and a new one is created at the newest version.
    func openModelStore(path: String) throws -> SpotliteStore {
        // Up-to-date stores run no stage, so the SQL files are not needed (nor required to still exist).
        guard let manager = try configuration.stagedMigrationManager(
            source: configurationSource ?? "configuration", loadingSQLFiles: false) else {
            return try SpotliteStore(path: path, model: configuration.storeModel)
        }
        let status = try manager.status(ofStoreAtPath: path)
        guard status.isUpToDate else {
            let stages = status.pendingStages.map(\.name).joined(separator: ", ")
            throw CommandFailure(message: "the store \(path) is at model version \(status.storeVersion?.name ?? "?") but the configuration's newest is \(status.newestVersion.name) (pending: \(stages)); run `spotlite migrate run` first (`spotlite migrate status` shows the plan)")
        }
        return try SpotliteStore(path: path, migrationManager: manager)
    }
}
