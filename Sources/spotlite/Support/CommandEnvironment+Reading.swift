import Foundation
import GRDB
import SpotliteSearch
import SpotliteStore

extension CommandEnvironment {
    /// Opens the store for a command that only reads (`search`, `index status`, `history list`): for writing when
    /// the file and its folder allow it, so that changes by other programs are sealed into history first; read-only
    /// otherwise (a read-only file, folder or mount), where those changes are simply not listed yet.
    ///
    /// With `sealingForeignChanges` false (`search`, which reads rows, not history), a store that can be read as it
    /// is opens read-only: opening for writing runs a write transaction (the history schema and triggers checked in
    /// place), which starts the WAL and syncs it at every search. A store that needs anything written first (a
    /// missing table, a pending migration) still opens for writing, which does it or says what to run.
    func openStoreForReading(sealingForeignChanges: Bool = true) throws -> SpotliteStore {
        let path = configuration.storePath
        let directory = (path as NSString).deletingLastPathComponent
        let files = FileManager.default
        let writable = files.isWritableFile(atPath: path) && files.isWritableFile(atPath: directory.isEmpty ? "." : directory)
        if !sealingForeignChanges, writable, files.fileExists(atPath: path), let store = try? openReadOnly(path: path) {
            return store
        }
        guard files.fileExists(atPath: path), !writable else { return try openStore(create: false) }
        do {
            return try SpotliteStore(path: path, model: configuration.storeModel, options: StoreOptions(readOnly: true))
        } catch let error as DatabaseError {
            throw CommandFailure(message: "cannot open the read-only store \(path): \(error.message ?? "\(error)") (SQLite error \(error.resultCode.rawValue)); a reader still needs to create SQLite's shared-memory file (-shm) beside it, so make its folder writable or copy the store somewhere writable", status: ExitStatus.failure)
        }
    }

    /// The store opened read-only at the configuration's model version (without running any migration).
    private func openReadOnly(path: String) throws -> SpotliteStore {
        let options = StoreOptions(readOnly: true)
        if let manager = try configuration.stagedMigrationManager(source: configurationSource ?? "configuration",
                                                                  loadingSQLFiles: false) {
            return try SpotliteStore(path: path, migrationManager: manager, options: options)
        }
        return try SpotliteStore(path: path, model: configuration.storeModel, options: options)
    }
}
