/// One line of the printed table: a measured figure, and the target it is held to when there is one.
struct TableRow: Codable, Sendable {
    var figure: String
    var measure: String
    var value: String
    var target: String
    /// nil when the figure has no target.
    var met: Bool?

    init(_ figure: String, _ measure: String, _ value: String, target: String = "", met: Bool? = nil) {
        self.figure = figure
        self.measure = measure
        self.value = value
        self.target = target
        self.met = met
    }
}

/// A figure's result: what goes into the JSON, and its lines in the table.
protocol FigureResult: Codable, Sendable {
    var rows: [TableRow] { get }
}

/// Formatting shared by the figures.
enum Format {
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if value >= 1 { return String(format: "%.2f s", value) }
        if value >= 0.001 { return String(format: "%.2f ms", value * 1000) }
        return String(format: "%.1f µs", value * 1_000_000)
    }

    static func milliseconds(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f ms", value * 1000) : "n/a"
    }

    static func ratio(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f×", value) : "n/a"
    }

    static func bytes(_ value: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1024 && unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        return unit == 0 ? "\(value) B" : String(format: "%.1f %@", amount, units[unit])
    }

    static func fraction(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f", value) : "n/a"
    }
}
