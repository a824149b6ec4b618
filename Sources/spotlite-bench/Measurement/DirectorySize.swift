import Foundation

/// Bytes on disk taken by files, as `du --apparent-size` counts them (file lengths, not blocks).
enum DirectorySize {
    static func bytes(atPath path: String) -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return 0 }
        guard isDirectory.boolValue else { return fileBytes(path) }
        var total = 0
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            total += fileBytes(path + "/" + name)
        }
        return total
    }

    private static func fileBytes(_ path: String) -> Int {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              (attributes[.type] as? FileAttributeType) == .typeRegular
        else { return 0 }
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}
