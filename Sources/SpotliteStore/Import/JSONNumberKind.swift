import Foundation

/// What a number from JSONSerialization was in the JSON text: Foundation bridges booleans, integers and reals to
/// NSNumber alike, and only the Objective-C type code tells them apart (`true` is not `1`). Shared by the importer,
/// the indexer reading arrays the importer stored, and `spotlite init` sampling a file.
package enum JSONNumberKind {
    case boolean, integer, real

    package init(_ number: NSNumber) {
        switch String(cString: number.objCType) {
        case "c", "B": self = .boolean
        case "d", "f": self = .real
        default: self = .integer
        }
    }
}
