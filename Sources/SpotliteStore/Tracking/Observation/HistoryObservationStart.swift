/// Where a ``HistoryObservation`` starts.
public enum HistoryObservationStart: Sendable, Hashable {
    /// After the store's current token when the observation is created: only what is written from then on.
    case now
    /// After this token; nil: from the first transaction ever recorded.
    case after(HistoryToken?)
    /// After the position saved under this name (from the beginning when there is none), and saving the position
    /// as the consumer moves on, so that a later observation under the same name resumes where this one stopped.
    case savedPosition(String)
}
