/// SpotliteStore's API speaks GRDB where an app touches SQLite itself: ``SpotliteStore/write(author:context:_:)`` hands
/// the closure a GRDB `Database`, custom migration stages and tombstones use `Row`, `DatabaseValue` and
/// `StatementArguments`. GRDB is re-exported so that depending on Spotlite's products is enough: an app does not add
/// GRDB to its own package, and always gets the version Spotlite was built and tested with.
@_exported import GRDB
