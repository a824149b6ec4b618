import Foundation
import SpotliteJSON

/// Prints JSON documents on stdout, one per line, with stable key order.
enum JSONOutput {
    static func print(_ object: Any) {
        FileHandle.standardOutput.write(JSONDocument.line(object))
    }
}
