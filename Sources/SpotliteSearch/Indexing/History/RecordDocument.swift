/// A record's document as the index builds it: its id term (the record's identity in the index, made once from the
/// row read), its entity's indexing rules and the attributes to index.
struct RecordDocument: Sendable {
    var idTerm: String
    var entity: IndexSchema.Entity
    var attributes: AttributeSet
}
