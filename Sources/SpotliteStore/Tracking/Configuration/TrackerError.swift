import Foundation

/// A tracker configuration or registration that cannot work, with the way out.
public enum TrackerError: Error, Hashable, CustomStringConvertible, LocalizedError {
    /// An author name that is empty or has leading or trailing spaces.
    case invalidAuthorName(String, role: String)
    /// The current author must be one of ``HistoryTrackerConfiguration/allAuthors``.
    case currentAuthorNotListed(String)
    /// A batch author that is not one of ``HistoryTrackerConfiguration/allAuthors``.
    case batchAuthorNotListed(String)
    /// The current author reads history, so it cannot also be a write-only batch author.
    case currentAuthorIsBatchAuthor(String)
    /// `.notifications(_:)` needs a count of at least 1.
    case invalidNotificationCount(Int)
    /// A deletion interval or maximum duration that is zero or negative.
    case invalidDuration(Duration, role: String)
    /// A fetch batch size below 1.
    case invalidBatchSize(Int)
    /// `registerMergeHook(before:)` named a hook that is not registered.
    case unknownMergeHook(UUID)

    /// The problem and the way out, in one line.
    public var description: String {
        switch self {
        case .invalidAuthorName(let name, let role):
            return "\(role) \"\(name)\" is not a usable author name; use a non-empty name without leading or trailing spaces"
        case .currentAuthorNotListed(let author):
            return "the current author \"\(author)\" is not in allAuthors; add it there, since cleanup must wait for its position"
        case .batchAuthorNotListed(let author):
            return "the batch author \"\(author)\" is not in allAuthors; batch authors are write-only members of allAuthors, so add it there or remove it from batchAuthors"
        case .currentAuthorIsBatchAuthor(let author):
            return "the current author \"\(author)\" is also a batch author, but it reads history; remove it from batchAuthors (use batchContextNames for its batch operations)"
        case .invalidNotificationCount(let count):
            return ".notifications(\(count)) would never delete history; use a count of at least 1, or .none"
        case .invalidDuration(let duration, let role):
            return "the \(role) must be longer than zero, not \(duration); use a positive duration, or nil / .none to turn it off"
        case .invalidBatchSize(let size):
            return "a fetch batch size must be at least 1, not \(size)"
        case .unknownMergeHook(let id):
            return "no merge hook with id \(id) is registered, so nothing can be inserted before it; register that hook first or leave out before:"
        }
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
