import Foundation

/// A `.safetensors` file, memory-mapped read-only: an 8-byte little-endian header length, a JSON header giving each
/// tensor's dtype, shape and byte range, then the raw data. Opening checks every range against the file's size, so
/// a truncated or damaged file is an error naming its path, never a read past the end.
///
/// The mapping lives as long as the value: tensors handed out point into it.
public final class SafetensorsFile: @unchecked Sendable {
    /// One tensor's description.
    public struct TensorInfo: Sendable, Equatable {
        /// The element type, as the file names it ("F32", "F16", "I64", ...).
        public var dtype: String
        /// The dimensions, outermost first.
        public var shape: [Int]
        /// Where its bytes start and end, relative to the end of the header.
        public var byteRange: Range<Int>
    }

    /// The file's path.
    public let path: String
    /// Every tensor by name.
    public let tensors: [String: TensorInfo]
    // Immutable after init and only read: safe to share (the reason for @unchecked Sendable).
    private let base: UnsafeRawPointer
    private let length: Int
    private let dataOffset: Int

    /// Maps and checks the file at `path`.
    ///
    /// - Throws: ``EmbeddingError/modelMissing(path:)`` when there is no file; ``EmbeddingError/modelDamaged(path:problem:)``
    ///   when it is shorter than its header says, or its header is not a valid safetensors header.
    public init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw EmbeddingError.modelMissing(path: path) }
            throw EmbeddingError.modelDamaged(path: path, problem: "it cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw EmbeddingError.modelDamaged(path: path, problem: "its size cannot be read (\(String(cString: strerror(errno))))")
        }
        let size = Int(status.st_size)
        guard size >= 8 else {
            throw EmbeddingError.modelDamaged(path: path, problem: "it has \(size) bytes, too few for a safetensors header (truncated?)")
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw EmbeddingError.modelDamaged(path: path, problem: "it cannot be mapped (\(String(cString: strerror(errno))))")
        }
        let base = UnsafeRawPointer(mapped)
        do {
            let headerLength = Int(UInt64(littleEndian: base.loadUnaligned(as: UInt64.self)))
            guard headerLength > 1, headerLength <= size - 8 else {
                throw EmbeddingError.modelDamaged(path: path, problem: "its header claims \(headerLength) bytes but the file has \(size) (truncated or not a safetensors file)")
            }
            let header = Data(bytes: base + 8, count: headerLength)
            guard let object = try? JSONSerialization.jsonObject(with: header) as? [String: Any] else {
                throw EmbeddingError.modelDamaged(path: path, problem: "its header is not a JSON object (damaged or not a safetensors file)")
            }
            let dataOffset = 8 + headerLength
            var tensors: [String: TensorInfo] = [:]
            for (name, value) in object where name != "__metadata__" {
                tensors[name] = try Self.tensorInfo(name: name, value: value, available: size - dataOffset, path: path)
            }
            self.tensors = tensors
            self.dataOffset = dataOffset
        } catch {
            munmap(mapped, size)
            throw error
        }
        self.base = base
        self.length = size
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    private static func tensorInfo(name: String, value: Any, available: Int, path: String) throws -> TensorInfo {
        guard let entry = value as? [String: Any], let dtype = entry["dtype"] as? String,
              let shape = entry["shape"] as? [Int], let offsets = entry["data_offsets"] as? [Int], offsets.count == 2
        else {
            throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) has no dtype, shape or data_offsets in the header")
        }
        let (begin, end) = (offsets[0], offsets[1])
        guard begin >= 0, begin <= end else {
            throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) has the byte range \(begin)..<\(end)")
        }
        guard end <= available else {
            throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) ends at data byte \(end) but the file holds only \(available) bytes of data (truncated)")
        }
        if let width = elementWidth(dtype) {
            let elements = shape.reduce(1, *)
            guard shape.allSatisfy({ $0 >= 0 }), elements * width == end - begin else {
                throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) has shape \(shape) of \(dtype) but \(end - begin) bytes")
            }
        }
        return TensorInfo(dtype: dtype, shape: shape, byteRange: begin..<end)
    }

    private static func elementWidth(_ dtype: String) -> Int? {
        switch dtype {
        case "F64", "I64", "U64": return 8
        case "F32", "I32", "U32": return 4
        case "F16", "BF16", "I16", "U16": return 2
        case "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2": return 1
        default: return nil
        }
    }

    /// The F32 tensor `name`, checked against `shape`: a pointer into the mapping, valid while this file lives.
    ///
    /// - Throws: ``EmbeddingError/modelDamaged(path:problem:)`` when the tensor is absent, not F32, of another
    ///   shape, or misaligned.
    public func floats(_ name: String, shape expected: [Int]) throws -> UnsafePointer<Float> {
        guard let info = tensors[name] else {
            throw EmbeddingError.modelDamaged(path: path, problem: "it has no tensor \(name) (not a BERT model of this layout?)")
        }
        guard info.dtype == "F32" else {
            throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) is \(info.dtype); only F32 models are supported")
        }
        guard info.shape == expected else {
            throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) has shape \(info.shape) where config.json implies \(expected)")
        }
        let address = base + dataOffset + info.byteRange.lowerBound
        guard Int(bitPattern: address) % MemoryLayout<Float>.alignment == 0 else {
            throw EmbeddingError.modelDamaged(path: path, problem: "tensor \(name) is not aligned to 4 bytes")
        }
        return address.assumingMemoryBound(to: Float.self)
    }
}
