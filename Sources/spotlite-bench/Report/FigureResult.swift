/// A figure's result: what goes into the JSON, and its lines in the table.
protocol FigureResult: Codable, Sendable {
    var rows: [TableRow] { get }
}
