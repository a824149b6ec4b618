/// When history is cleaned automatically (`[history] clean`).
public enum CleanPolicy: Sendable, Hashable {
    /// Never automatically; only when asked (`spotlite history clean`). The default.
    case none
    /// At most once per interval (`{ every = "4h" }`).
    case every(Duration)
    /// On every n-th change notification (`{ notifications = 50 }`), n ≥ 1.
    case notifications(Int)
}
