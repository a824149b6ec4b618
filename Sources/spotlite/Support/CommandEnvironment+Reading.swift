import Foundation
import GRDB
import SpotliteSearch
import SpotliteStore

extension CommandEnvironment {
    /// Opens the store for a command that only reads (`search`, `index status`, `history list`): for writing when
    /// the file and its folder allow it, so that changes by other programs are sealed into history first; read-only
    /// otherwise (a read-only file, folder or mount), where those changes are simply not listed yet.
    func openStoreForReading() throws -> SpotliteStore {
        let path = configuration.storePath
        let directory = (path as NSString).deletingLastPathComponent
        let files = FileManager.default
        let writable = files.isWritableFile(atPath: path) && files.isWritableFile(atPath: directory.isEmpty ? "." : directory)
        guard files.fileExists(atPath: path), !writable else { return try openStore(create: false) }
        do {
            return try SpotliteStore(path: path, model: configuration.storeModel, options: StoreOptions(readOnly: true))
        } catch let error as DatabaseError {
            throw CommandFailure(message: "cannot open the read-only store \(path): \(error.message ?? "\(error)") (SQLite error \(error.resultCode.rawValue)); a reader still needs to create SQLite's shared-memory file (-shm) beside it, so make its folder writable or copy the store somewhere writable")
        }
    }
}
