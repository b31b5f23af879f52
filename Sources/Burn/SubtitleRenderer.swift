import CLibass
import Media

/// A libass library, renderer and track for one script at one frame size.
final class SubtitleRenderer {
    static let glyphCacheEntries: Int32 = 2000
    static let bitmapCacheMegabytes: Int32 = 64

    private let library: OpaquePointer
    private let renderer: OpaquePointer
    private let track: UnsafeMutablePointer<ASS_Track>

    init(script: String, width: Int, height: Int, pixelAspect: Double) throws {
        guard let library = ass_library_init() else { throw BurnError.invalidScript(reason: "libass could not start") }
        shim_ass_silence(library)
        guard let renderer = ass_renderer_init(library) else {
            ass_library_done(library)
            throw BurnError.invalidScript(reason: "libass could not create a renderer")
        }
        var bytes = Array(script.utf8)
        let track = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                ass_read_memory(library, $0, buffer.count, nil)
            }
        }
        guard let track else {
            ass_renderer_done(renderer)
            ass_library_done(library)
            throw BurnError.invalidScript(reason: "libass could not parse it as ASS")
        }
        self.library = library
        self.renderer = renderer
        self.track = track
        // Frame and storage size are both the encoded picture: libass then derives square pixels
        // unless the video is anamorphic, which the pixel aspect corrects.
        ass_set_frame_size(renderer, Int32(width), Int32(height))
        ass_set_storage_size(renderer, Int32(width), Int32(height))
        if pixelAspect > 0 { ass_set_pixel_aspect(renderer, pixelAspect) }
        ass_set_fonts(renderer, nil, "sans-serif", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
        // libass's defaults let its caches grow to hundreds of megabytes on a hostile script.
        ass_set_cache_limits(renderer, Self.glyphCacheEntries, Self.bitmapCacheMegabytes)
    }

    deinit {
        ass_free_track(track)
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// Renders the script at `milliseconds` and hands each image to `draw`.
    /// The images are only valid during the call.
    func render(atMilliseconds milliseconds: Int64, draw: (UnsafePointer<ASS_Image>) throws -> Void) rethrows {
        var changed: Int32 = 0
        var image = ass_render_frame(renderer, track, milliseconds, &changed)
        while let current = image {
            if current.pointee.w > 0 && current.pointee.h > 0 { try draw(current) }
            image = current.pointee.next
        }
    }
}
