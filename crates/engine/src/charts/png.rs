//! A small, dependency-free PNG encoder for 8-bit RGB images: per-row Sub/Up filtering and a
//! zlib stream compressed with LZ77 (hash chains) and the fixed Huffman code of RFC 1951. Charts
//! are mostly flat colour, which this compresses well.

/// Encode an RGB buffer (`width * height * 3` bytes, rows top to bottom) as PNG. `dpi` is recorded
/// in a pHYs chunk so viewers show 2× exports at the size of the 1× ones.
pub fn encode_rgb(width: u32, height: u32, rgb: &[u8], dpi: u32) -> Result<Vec<u8>, String> {
    let stride = width as usize * 3;
    if width == 0 || height == 0 {
        return Err("the image has no pixels".into());
    }
    if rgb.len() != stride * height as usize {
        return Err(format!(
            "expected {} bytes of pixels for {width}×{height}, got {}",
            stride * height as usize,
            rgb.len()
        ));
    }
    let filtered = filter_rows(rgb, stride);
    let idat = zlib(&filtered);

    let mut out = Vec::with_capacity(idat.len() + 128);
    out.extend_from_slice(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit, truecolour RGB, deflate, adaptive filter, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    let ppm = (f64::from(dpi) / 0.0254).round() as u32;
    let mut phys = Vec::with_capacity(9);
    phys.extend_from_slice(&ppm.to_be_bytes());
    phys.extend_from_slice(&ppm.to_be_bytes());
    phys.push(1); // unit: metre
    chunk(&mut out, b"pHYs", &phys);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

/// Read width and height from a PNG's IHDR chunk.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let h = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    Some((w, h))
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (n, slot) in t.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            }
            *slot = c;
        }
        t
    });
    let mut c = 0xFFFF_FFFFu32;
    for b in data {
        c = table[((c ^ u32::from(*b)) & 0xFF) as usize] ^ (c >> 8);
    }
    c ^ 0xFFFF_FFFF
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for x in chunk {
            a += u32::from(*x);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

/// Filter each row with Sub or Up, whichever gives the smaller sum of magnitudes (repeated rows
/// take Up directly). Paeth would shave a few percent off text-heavy rows but costs much more.
fn filter_rows(rgb: &[u8], stride: usize) -> Vec<u8> {
    const BPP: usize = 3;
    let rows = rgb.len() / stride;
    let mut out = Vec::with_capacity(rows * (stride + 1));
    let zero = vec![0u8; stride];
    let mut sub = vec![0u8; stride];
    let mut up = vec![0u8; stride];
    for r in 0..rows {
        let cur = &rgb[r * stride..(r + 1) * stride];
        let prev = if r == 0 { &zero[..] } else { &rgb[(r - 1) * stride..r * stride] };
        if r > 0 && cur == prev {
            // A repeated row filters to zeros with Up.
            out.push(2);
            out.extend_from_slice(&zero);
            continue;
        }
        let (mut s_sub, mut s_up) = (0u32, 0u32);
        sub[..BPP].copy_from_slice(&cur[..BPP]);
        for ((d, x), a) in sub[BPP..].iter_mut().zip(&cur[BPP..]).zip(cur) {
            *d = x.wrapping_sub(*a);
            s_sub += u32::from((*d as i8).unsigned_abs());
        }
        for ((d, x), b) in up.iter_mut().zip(cur).zip(prev) {
            *d = x.wrapping_sub(*b);
            s_up += u32::from((*d as i8).unsigned_abs());
        }
        if s_up <= s_sub {
            out.push(2);
            out.extend_from_slice(&up);
        } else {
            out.push(1);
            out.extend_from_slice(&sub);
        }
    }
    out
}

/// LSB-first bit writer for deflate.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, bits: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push((self.acc & 0xFF) as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// Huffman codes are defined MSB-first: reverse before writing.
    fn put_code(&mut self, code: u32, len: u32) {
        self.put(code.reverse_bits() >> (32 - len), len);
    }
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push((self.acc & 0xFF) as u8);
        }
        self.out
    }
}

const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] =
    [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/// Write literal/length symbol `sym` with the fixed Huffman code.
fn put_litlen(bits: &mut Bits, sym: u32) {
    match sym {
        0..=143 => bits.put_code(0x30 + sym, 8),
        144..=255 => bits.put_code(0x190 + sym - 144, 9),
        256..=279 => bits.put_code(sym - 256, 7),
        _ => bits.put_code(0xC0 + sym - 280, 8),
    }
}

fn put_match(bits: &mut Bits, len: usize, dist: usize) {
    let li = LEN_BASE.iter().rposition(|b| usize::from(*b) <= len).unwrap_or(0);
    put_litlen(bits, 257 + li as u32);
    if LEN_EXTRA[li] > 0 {
        bits.put((len - usize::from(LEN_BASE[li])) as u32, u32::from(LEN_EXTRA[li]));
    }
    let di = DIST_BASE.iter().rposition(|b| usize::from(*b) <= dist).unwrap_or(0);
    bits.put_code(di as u32, 5);
    if DIST_EXTRA[di] > 0 {
        bits.put((dist - usize::from(DIST_BASE[di])) as u32, u32::from(DIST_EXTRA[di]));
    }
}

/// A zlib stream (one fixed-Huffman deflate block) of `data`.
fn zlib(data: &[u8]) -> Vec<u8> {
    const WINDOW: usize = 32 * 1024;
    const HASH_BITS: u32 = 15;
    const MAX_CHAIN: usize = 24;
    const MAX_LEN: usize = 258;
    let hash = |i: usize| -> usize {
        let v = (u32::from(data[i]) << 16) | (u32::from(data[i + 1]) << 8) | u32::from(data[i + 2]);
        (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
    };
    let mut head = vec![usize::MAX; 1 << HASH_BITS];
    let mut prev = vec![usize::MAX; WINDOW];

    let mut bits = Bits { out: vec![0x78, 0x01], acc: 0, n: 0 };
    bits.put(1, 1); // final block
    bits.put(1, 2); // fixed Huffman codes
    let mut i = 0;
    let n = data.len();
    let insert = |pos: usize, head: &mut Vec<usize>, prev: &mut Vec<usize>| {
        if pos + 2 < n {
            let h = hash(pos);
            prev[pos % WINDOW] = head[h];
            head[h] = pos;
        }
    };
    while i < n {
        // Fast path: a full-length run of the previous byte (flat colour after filtering).
        if i > 0 && i + MAX_LEN <= n {
            let run = [data[i - 1]; MAX_LEN];
            if data[i..i + MAX_LEN] == run[..] {
                put_match(&mut bits, MAX_LEN, 1);
                i += MAX_LEN;
                continue;
            }
        }
        let mut best_len = 0;
        let mut best_dist = 0;
        if i + 2 < n {
            let mut cand = head[hash(i)];
            let mut steps = 0;
            while cand != usize::MAX && i - cand <= WINDOW && steps < MAX_CHAIN {
                let max = MAX_LEN.min(n - i);
                let mut l = 0;
                while l < max && data[cand + l] == data[i + l] {
                    l += 1;
                }
                if l > best_len {
                    best_len = l;
                    best_dist = i - cand;
                    if l == max {
                        break;
                    }
                }
                let next = prev[cand % WINDOW];
                if next == usize::MAX || next >= cand {
                    break;
                }
                cand = next;
                steps += 1;
            }
        }
        if best_len >= 3 {
            put_match(&mut bits, best_len, best_dist);
            for k in 0..best_len {
                insert(i + k, &mut head, &mut prev);
            }
            i += best_len;
        } else {
            put_litlen(&mut bits, u32::from(data[i]));
            insert(i, &mut head, &mut prev);
            i += 1;
        }
    }
    put_litlen(&mut bits, 256);
    let mut out = bits.finish();
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal inflater for fixed-Huffman blocks, enough to check the encoder round-trips.
    fn inflate_fixed(z: &[u8]) -> Vec<u8> {
        let data = &z[2..z.len() - 4];
        let mut pos = 0usize;
        let mut bit = |n: u32| -> u32 {
            let mut v = 0;
            for k in 0..n {
                let b = (data[pos / 8] >> (pos % 8)) & 1;
                v |= u32::from(b) << k;
                pos += 1;
            }
            v
        };
        assert_eq!(bit(1), 1);
        assert_eq!(bit(2), 1);
        let mut out: Vec<u8> = Vec::new();
        let code_msb = |bit: &mut dyn FnMut(u32) -> u32, n: u32| -> u32 {
            let mut v = 0;
            for _ in 0..n {
                v = (v << 1) | bit(1);
            }
            v
        };
        loop {
            // Read 7 bits, extend as the fixed code requires.
            let mut c = code_msb(&mut bit, 7);
            let sym = if c <= 0x17 {
                c + 256
            } else {
                c = (c << 1) | bit(1);
                if (0x30..=0xBF).contains(&c) {
                    c - 0x30
                } else if (0xC0..=0xC7).contains(&c) {
                    c - 0xC0 + 280
                } else {
                    c = (c << 1) | bit(1);
                    c - 0x190 + 144
                }
            };
            match sym {
                0..=255 => out.push(sym as u8),
                256 => break,
                _ => {
                    let li = (sym - 257) as usize;
                    let len = usize::from(LEN_BASE[li]) + bit(u32::from(LEN_EXTRA[li])) as usize;
                    let di = code_msb(&mut bit, 5) as usize;
                    let dist = usize::from(DIST_BASE[di]) + bit(u32::from(DIST_EXTRA[di])) as usize;
                    for _ in 0..len {
                        let b = out[out.len() - dist];
                        out.push(b);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn zlib_round_trips() {
        let mut data = Vec::new();
        for i in 0..20000u32 {
            data.push(if i % 1000 < 700 { 0 } else { (i * 7 % 251) as u8 });
        }
        data.extend_from_slice(&[255u8; 5000]);
        let z = zlib(&data);
        assert!(z.len() < data.len() / 3, "compressed {} of {}", z.len(), data.len());
        let back = inflate_fixed(&z);
        assert_eq!(back, data);
        let tail = &z[z.len() - 4..];
        assert_eq!(u32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]), adler32(&data));
    }

    #[test]
    fn png_header_and_crc() {
        let rgb = vec![200u8; 4 * 3 * 3];
        let png = encode_rgb(4, 3, &rgb, 96).unwrap();
        assert_eq!(png_size(&png), Some((4, 3)));
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]));
    }

    #[test]
    fn rejects_bad_buffers() {
        assert!(encode_rgb(2, 2, &[0; 5], 96).is_err());
        assert!(encode_rgb(0, 2, &[], 96).is_err());
    }
}
