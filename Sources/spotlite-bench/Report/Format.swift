import Foundation

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
