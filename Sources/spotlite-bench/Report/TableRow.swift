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
