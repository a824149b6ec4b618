/// Prints table rows as a Markdown table (readable in a terminal, and pasted as is into docs/benchmarks.md).
enum ResultTable {
    static func render(_ rows: [TableRow]) -> String {
        let header = ["Figure", "Measure", "Value", "Target", "Met"]
        let cells = rows.map { row in
            [row.figure, row.measure, row.value, row.target, row.met.map { $0 ? "yes" : "**no**" } ?? ""]
        }
        var widths = header.map(\.count)
        for line in cells {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func format(_ line: [String]) -> String {
            "| " + line.enumerated().map { index, cell in
                cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: " | ") + " |"
        }
        var lines = [format(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
        lines += cells.map(format)
        return lines.joined(separator: "\n")
    }
}
