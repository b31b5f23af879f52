import CICU
import Foundation

/// Where words begin in text, as ICU's word-break rules find them: for Chinese and Japanese,
/// written without spaces, from ICU's dictionaries.
enum WordSegmentation {
    /// libicuuc, opened once. Debian names it, and every function in it, by ICU's major version.
    private static let icu: Result<cicu_functions, CaptionError> = {
        for version in stride(from: 99, through: 60, by: -1) {
            guard let library = dlopen("libicuuc.so.\(version)", RTLD_NOW | RTLD_LOCAL) else { continue }
            let table = UnsafeMutablePointer<cicu_functions>.allocate(capacity: 1)
            defer { table.deallocate() }
            var missing = [CChar](repeating: 0, count: 64)
            if let absent = cicu_bind(library, "_\(version)", table, &missing, Int32(missing.count)) {
                dlclose(library)
                return .failure(.wordSegmentation("libicuuc.so.\(version) has no \(String(cString: absent))"))
            }
            return .success(table.pointee)
        }
        return .failure(.wordSegmentation("libicuuc is not installed"))
    }()

    /// Fails when ICU cannot be used here, so that a run says so before it starts.
    static func check() throws {
        _ = try wordStarts(in: "图书馆")
    }

    /// For consecutive pieces of unspaced text (recogniser tokens, single characters), whether
    /// each begins a word of the text they make; nil when ICU cannot segment it.
    static func startsWords(_ pieces: [String]) -> [Bool]? {
        guard let starts = try? wordStarts(in: pieces.joined()) else { return nil }
        var offset = 0
        return pieces.map { piece in
            defer { offset += piece.count }
            return starts.contains(offset)
        }
    }

    /// Character offsets at which a word (or a run of spaces or punctuation) begins, 0 included.
    static func wordStarts(in text: String) throws -> Set<Int> {
        let icu = try icu.get()
        let utf16 = Array(text.utf16)
        var status: Int32 = 0
        guard let iterator = icu.ubrk_open(CICU_UBRK_WORD, "", utf16, Int32(utf16.count), &status), status <= 0 else {
            throw CaptionError.wordSegmentation(icu.u_errorName(status).map { String(cString: $0) } ?? "error \(status)")
        }
        defer { icu.ubrk_close(iterator) }
        var boundaries = Set<Int>()
        var boundary = icu.ubrk_first(iterator)
        while boundary != CICU_UBRK_DONE {
            boundaries.insert(Int(boundary))
            boundary = icu.ubrk_next(iterator)
        }
        // UTF-16 offsets to character offsets.
        var starts = Set<Int>()
        var offset = 0
        for (index, character) in text.enumerated() {
            if boundaries.contains(offset) { starts.insert(index) }
            offset += character.utf16.count
        }
        return starts
    }
}
