import { encode } from "uqr";
import { rgb, type PDFPage } from "pdf-lib";

/** `text` as a QR code (error correction M, the quiet zone included) `size` points square, its lower left at (x, y). */
export function drawQrCode(page: PDFPage, text: string, x: number, y: number, size: number): void {
  const { data } = encode(text, { ecc: "M", border: 4 });
  const n = data.length;
  const cell = size / n;
  page.drawRectangle({ x, y, width: size, height: size, color: rgb(1, 1, 1) });
  // One rectangle per horizontal run of dark modules: fewer operators, no seams inside a run.
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      if (!data[row]![col]) continue;
      let end = col;
      while (end + 1 < n && data[row]![end + 1]) end++;
      page.drawRectangle({ x: x + col * cell, y: y + size - (row + 1) * cell, width: (end - col + 1) * cell, height: cell, color: rgb(0, 0, 0) });
      col = end;
    }
  }
}
