//! PNG files of rendered charts, written and read with the `png` crate: 8-bit RGB, zlib at its
//! default level, and a pHYs chunk carrying the export's dpi.

use std::fmt;

/// Why a pixel buffer could not be written as PNG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PngError {
    /// Width or height is zero.
    Empty { width: u32, height: u32 },
    /// The buffer does not hold `width * height` RGB pixels.
    WrongLength { width: u32, height: u32, expected: usize, got: usize },
    /// The encoder rejected the image or could not write it.
    Encoder(String),
}

impl fmt::Display for PngError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PngError::Empty { width, height } => write!(f, "a {width}×{height} image has no pixels"),
            PngError::WrongLength { width, height, expected, got } => {
                write!(f, "expected {expected} bytes of pixels for {width}×{height}, got {got}")
            }
            PngError::Encoder(m) => write!(f, "the PNG encoder failed: {m}"),
        }
    }
}

impl std::error::Error for PngError {}

impl From<png::EncodingError> for PngError {
    fn from(e: png::EncodingError) -> Self {
        PngError::Encoder(e.to_string())
    }
}

/// Pixels per metre for a resolution in dots per inch (as the pHYs chunk stores it).
fn pixels_per_metre(dpi: u32) -> u32 {
    (f64::from(dpi) / 0.0254).round() as u32
}

/// Encode an RGB buffer (`width * height * 3` bytes, rows top to bottom) as PNG. `dpi` is recorded
/// in a pHYs chunk so viewers show 2× exports at the size of the 1× ones.
pub fn encode_rgb(width: u32, height: u32, rgb: &[u8], dpi: u32) -> Result<Vec<u8>, PngError> {
    if width == 0 || height == 0 {
        return Err(PngError::Empty { width, height });
    }
    let expected = width as usize * height as usize * 3;
    if rgb.len() != expected {
        return Err(PngError::WrongLength { width, height, expected, got: rgb.len() });
    }
    let mut out = Vec::with_capacity(expected / 8 + 256);
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        // Charts are mostly flat colour, which deflate matches well unfiltered: on 2× charts this gave
        // the smallest files and the quickest encode of the filter choices (Sub, Up, Paeth, adaptive).
        enc.set_compression(png::Compression::Default);
        enc.set_filter(png::FilterType::NoFilter);
        let ppm = pixels_per_metre(dpi);
        enc.set_pixel_dims(Some(png::PixelDimensions { xppu: ppm, yppu: ppm, unit: png::Unit::Meter }));
        let mut writer = enc.write_header()?;
        writer.write_image_data(rgb)?;
        writer.finish()?;
    }
    Ok(out)
}

/// Width and height of a PNG, read from its header (`None` when the bytes are not a PNG).
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let reader = png::Decoder::new(png).read_info().ok()?;
    let info = reader.info();
    Some((info.width, info.height))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode a PNG into (width, height, pixels per metre, RGB bytes).
    fn decode(bytes: &[u8]) -> (u32, u32, Option<png::PixelDimensions>, Vec<u8>) {
        let mut reader = png::Decoder::new(bytes).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let frame = reader.next_frame(&mut buf).unwrap();
        assert_eq!(frame.color_type, png::ColorType::Rgb);
        assert_eq!(frame.bit_depth, png::BitDepth::Eight);
        buf.truncate(frame.buffer_size());
        let dims = reader.info().pixel_dims;
        (frame.width, frame.height, dims, buf)
    }

    #[test]
    fn round_trips_pixels_and_dpi() {
        let (w, h) = (37u32, 21u32);
        let mut rgb = Vec::new();
        for y in 0..h {
            for x in 0..w {
                rgb.extend_from_slice(&[(x * 7) as u8, (y * 11) as u8, if x > 20 { 255 } else { 0 }]);
            }
        }
        let png = encode_rgb(w, h, &rgb, 192).unwrap();
        assert_eq!(png_size(&png), Some((w, h)));
        let (dw, dh, dims, back) = decode(&png);
        assert_eq!((dw, dh), (w, h));
        assert_eq!(back, rgb);
        let dims = dims.unwrap();
        assert_eq!((dims.xppu, dims.yppu, dims.unit), (7559, 7559, png::Unit::Meter));
    }

    #[test]
    fn rejects_bad_buffers() {
        assert_eq!(
            encode_rgb(2, 2, &[0; 5], 96),
            Err(PngError::WrongLength { width: 2, height: 2, expected: 12, got: 5 })
        );
        assert_eq!(encode_rgb(0, 2, &[], 96), Err(PngError::Empty { width: 0, height: 2 }));
        assert_eq!(png_size(b"not a png"), None);
    }
}
