import CFFmpeg
import CLibass
import Media

/// Blends libass images straight into an 8-bit 4:2:0 frame, so pixels without captions stay
/// bit-exact (a round trip through RGB would degrade the whole picture).
struct OverlayBlender {
    let matrix: ColourMatrix

    func blend(_ image: UnsafePointer<ASS_Image>, into frame: UnsafeMutablePointer<AVFrame>) {
        let img = image.pointee
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let x0 = max(0, Int(img.dst_x)), y0 = max(0, Int(img.dst_y))
        let x1 = min(width, Int(img.dst_x) + Int(img.w)), y1 = min(height, Int(img.dst_y) + Int(img.h))
        guard x0 < x1, y0 < y1, let bitmap = img.bitmap else { return }

        // `color` is 0xRRGGBBAA with AA as transparency.
        let opacity = 255 - Int(img.color & 0xFF)
        guard opacity > 0 else { return }
        let colour = matrix.convert(red: UInt8(img.color >> 24), green: UInt8((img.color >> 16) & 0xFF), blue: UInt8((img.color >> 8) & 0xFF))
        let stride = Int(img.stride)
        let mask = { (x: Int, y: Int) -> Int in Int(bitmap[(y - Int(img.dst_y)) * stride + (x - Int(img.dst_x))]) }
        let full = 255 * 255

        let luma = shim_frame_data(frame, 0)!, lumaStride = Int(shim_frame_linesize(frame, 0))
        for y in y0..<y1 {
            let row = luma + y * lumaStride
            for x in x0..<x1 {
                let m = mask(x, y)
                if m == 0 { continue }
                let alpha = m * opacity
                row[x] = UInt8((Int(row[x]) * (full - alpha) + colour.y * alpha + full / 2) / full)
            }
        }

        // Each chroma sample takes the mean coverage of its 2x2 luma block.
        let cb = shim_frame_data(frame, 1)!, cr = shim_frame_data(frame, 2)!
        let cbStride = Int(shim_frame_linesize(frame, 1)), crStride = Int(shim_frame_linesize(frame, 2))
        for cy in (y0 / 2)..<((y1 + 1) / 2) {
            for cx in (x0 / 2)..<((x1 + 1) / 2) {
                var coverage = 0
                for y in (2 * cy)..<(2 * cy + 2) where y >= y0 && y < y1 {
                    for x in (2 * cx)..<(2 * cx + 2) where x >= x0 && x < x1 { coverage += mask(x, y) }
                }
                if coverage == 0 { continue }
                let alpha = coverage * opacity / 4
                let u = cb + cy * cbStride + cx, v = cr + cy * crStride + cx
                u.pointee = UInt8((Int(u.pointee) * (full - alpha) + colour.cb * alpha + full / 2) / full)
                v.pointee = UInt8((Int(v.pointee) * (full - alpha) + colour.cr * alpha + full / 2) / full)
            }
        }
    }
}
