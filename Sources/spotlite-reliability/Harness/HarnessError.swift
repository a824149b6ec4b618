/// A problem of the harness itself (a child that cannot start, a file that cannot be written), as opposed to a
/// failed check of the software under test.
struct HarnessError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
