import SpotliteStore

extension Identifier {
    /// Why `name` cannot be an entity name, in the configuration's words, or nil when it can.
    package static func problemWithEntityName(_ name: String) -> String? {
        problem(with: name, as: .table).map { configurationMessage($0, name: name) }
    }

    /// Why `name` cannot be a column (key or field) name, in the configuration's words, or nil when it can.
    package static func problemWithColumnName(_ name: String) -> String? {
        problem(with: name, as: .column).map { configurationMessage($0, name: name) }
    }

    private static func configurationMessage(_ problem: Problem, name: String) -> String {
        switch problem {
        case .syntax:
            return "expected \(Expectation.identifier); found \(ConfigurationKeyPath.quoted(name))"
        case .reservedPrefix(let prefix):
            return "expected a name not starting with \(prefix) (reserved for Spotlite and SQLite); found "
                + "\(ConfigurationKeyPath.quoted(name)); rename it"
        case .reservedColumnName:
            return "expected a column name other than " + reservedColumnNames.joined(separator: ", ")
                + " (reserved by SQLite and the importer); found \(ConfigurationKeyPath.quoted(name)); rename the column"
        }
    }
}
