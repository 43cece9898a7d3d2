/**
 * A PNG decoder for test screenshots (8-bit RGB or RGBA, not interlaced, as
 * Chromium writes them): chunks, zlib (Node's), and the five scanline filters
 * of the PNG specification (ISO/IEC 15948, section 9).
 */
import { inflateSync } from 'zlib';

export interface Png {
  readonly width: number;
  readonly height: number;
  /** 3 (RGB) or 4 (RGBA). */
  readonly channels: number;
  /** Row by row, `channels` bytes per pixel. */
  readonly pixels: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(file: Buffer): Png {
  if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG file');
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let pos = 8; pos < file.length;) {
    const length = file.readUInt32BE(pos);
    const type = file.toString('latin1', pos + 4, pos + 8);
    const body = file.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    pos += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? pixels[y * stride + i - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels] : 0;
      pixels[y * stride + i] = (line[i] + predictor(filter, a, b, c)) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

function predictor(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`unknown PNG filter ${filter}`);
  }
}

/** The colour of one pixel as `#rrggbb`. */
export function pixelHex(png: Png, x: number, y: number): string {
  const i = (y * png.width + x) * png.channels;
  return `#${[0, 1, 2].map((k) => png.pixels[i + k].toString(16).padStart(2, '0')).join('')}`;
}
