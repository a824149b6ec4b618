import CXapian

/// The Xapian library Spotlite runs on.
package enum XapianVersion {
    /// Xapian's version string, e.g. "1.4.22".
    package static var string: String {
        String(cString: cx_version_string())
    }
}
