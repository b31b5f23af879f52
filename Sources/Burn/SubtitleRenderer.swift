import CapforgeCore
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

    /// Renders the script at `time` and hands each image, with its coverage (one byte a pixel,
    /// rows `stride` apart), to `draw`.
    func render(at time: MediaTime, draw: (CaptionImage, Span<UInt8>) throws -> Void) rethrows {
        var changed: Int32 = 0
        // Integer time: a frame exactly at a cue's end must not count as inside it.
        var image = ass_render_frame(renderer, track, Int64(time.flooredMilliseconds), &changed)
        while let current = image {
            let i = current.pointee
            if i.w > 0 && i.h > 0, i.stride >= i.w, let bitmap = i.bitmap {
                let coverage = UnsafeBufferPointer(start: bitmap, count: Int(i.stride) * Int(i.h - 1) + Int(i.w))
                try draw(CaptionImage(x: Int(i.dst_x), y: Int(i.dst_y), width: Int(i.w), height: Int(i.h), stride: Int(i.stride), rgba: i.color), coverage.span)
            }
            image = i.next
        }
    }
}

/// One solid-colour layer of rendered captions (a glyph run's fill, outline or shadow).
struct CaptionImage {
    /// Where its top-left pixel lands on the picture (may be off it).
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var stride: Int
    /// 0xRRGGBBAA, AA being transparency.
    var rgba: UInt32
}
