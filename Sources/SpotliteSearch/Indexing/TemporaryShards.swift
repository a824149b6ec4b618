import Foundation
extension Configuration {
    struct TemporaryShards { var count: Int? }
    var shards: TemporaryShards { TemporaryShards(count: ProcessInfo.processInfo.environment["SPOTLITE_SHARDS"].flatMap(Int.init)) }
}
