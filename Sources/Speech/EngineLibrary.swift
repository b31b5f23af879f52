import Foundation

/// Opens an engine library with dlopen (found through the binary's run path: `.deps/lib/…` in a
/// checkout, `PREFIX/lib/capforge` installed) and binds its functions with the shim's bind
/// function, so a machine without it still starts and says what is missing.
enum EngineLibrary {
    static func load<Table>(
        _ fileName: String, name: String, lost: String,
        bind: (UnsafeMutableRawPointer, UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?
    ) -> Result<Table, SpeechError> {
        let reinstall = "in a checkout run Scripts/setup; an install keeps it in PREFIX/lib/capforge (reinstall with Scripts/install or the Debian package)"
        guard let library = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            return .failure(.libraryMissing(name: name, hint: "\(reason); \(lost). To add it: \(reinstall)"))
        }
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let missing = bind(library, table) {
            dlclose(library)
            return .failure(.libraryMissing(name: name, hint: "\(fileName) has no \(String(cString: missing)), so it is not the release Capforge was built for; \(lost). To replace it: \(reinstall)"))
        }
        // bind wrote every field before returning NULL.
        return .success(table.pointee)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
