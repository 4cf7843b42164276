// Decides whether a camera's answer is an image: by its content type and by its magic bytes.

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp';

/** The format the first bytes announce, or undefined when they are not a still we accept. */
export function sniffImage(bytes: Uint8Array): ImageFormat | undefined {
  const b = (i: number): number => bytes[i] ?? -1;
  const ascii = (from: number, text: string): boolean => [...text].every((c, i) => b(from + i) === c.charCodeAt(0));
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpeg';
  if ([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b(i) === v)) return 'png';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'webp';
  // "BM", then a file size and two reserved zero words; the reserved words rule out text starting "BM".
  if (ascii(0, 'BM') && bytes.length >= 14 && b(6) === 0 && b(7) === 0 && b(8) === 0 && b(9) === 0) return 'bmp';
  return undefined;
}

/** True for `image/*` media types (parameters ignored). */
export function isImageContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  return /^image\/[a-z0-9.+-]+$/i.test(contentType.split(';')[0]?.trim() ?? '');
}
