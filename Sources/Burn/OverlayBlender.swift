import Media

/// Lays rendered captions on a picture in its own colour matrix and range.
struct OverlayBlender {
    let matrix: ColourMatrix

    func blend(_ image: CaptionImage, coverage: Span<UInt8>, into picture: Frame) {
        // `rgba`'s last byte is transparency.
        let colour = matrix.convert(red: UInt8(image.rgba >> 24), green: UInt8((image.rgba >> 16) & 0xFF), blue: UInt8((image.rgba >> 8) & 0xFF))
        picture.blend(coverage, stride: image.stride, x: image.x, y: image.y, width: image.width, height: image.height,
                      colour: colour, opacity: 255 - Int(image.rgba & 0xFF))
    }
}
