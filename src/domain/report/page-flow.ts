import { PageSizes, rgb, type PDFDocument, type PDFFont, type PDFImage, type PDFPage, type RGB } from "pdf-lib";

/*
 * Text and blocks flowing down A4 pages: wrapped paragraphs, label/value rows, headings that never
 * end a page, and blocks (an image, a map, a QR code) that move whole to the next page when they do
 * not fit. Every string passes `clean` first: the embedded fonts cover Latin, Greek and Cyrillic,
 * and any other character prints as "?" rather than as an invisible glyph.
 */

export const MARGIN = 48;
const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
export const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const LABEL_WIDTH = 138;
const FOOTER = 28;
/** The lowest point content reaches: under it, the footer. */
export const CONTENT_FLOOR = MARGIN + FOOTER;
/** Space under a block. */
const BLOCK_SPACE = 6;

export const INK = rgb(0.1, 0.1, 0.12);
export const MUTED = rgb(0.38, 0.38, 0.42);
export const RULE = rgb(0.8, 0.8, 0.84);

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Where a line of text or a block landed: its page (0 for the first) and its top and bottom, in points from the page's foot. */
export interface Placed {
  page: number;
  top: number;
  bottom: number;
  /** The line as printed, or a block's name in brackets ("[QR code]"). */
  what: string;
  /** A drawn block, not a line of text. */
  block?: true;
}

interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: RGB;
  indent?: number;
}

export class PageFlow {
  page!: PDFPage;
  /** Which page `page` is (0 for the first). */
  pageIndex = -1;
  y = 0;
  /** Every line of text and every block, with the page it is on: what a reader finds together. */
  readonly placed: Placed[] = [];
  /** Characters `clean` printed as "?" because the fonts lack them (Arabic, Hebrew, CJK, emoji): the report says how many. */
  unprintable = 0;
  private readonly supported: Set<number>;
  /** Advance widths at size 1 per font and character: the fonts carry no kerning or ligatures, so a text's width is their sum. */
  private readonly advances = new Map<PDFFont, Map<string, number>>();

  constructor(
    readonly doc: PDFDocument,
    readonly fonts: Fonts,
  ) {
    this.supported = new Set([...fonts.regular.getCharacterSet(), ...fonts.bold.getCharacterSet()]);
    this.newPage();
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pageIndex += 1;
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Room for `height` points on this page, or a new page. */
  ensure(height: number): void {
    if (this.y - height < CONTENT_FLOOR) this.newPage();
  }

  /** The points `paragraph(text, style)` takes down the page: with `ensure`, what keeps a paragraph with the block before it. */
  paragraphHeight(text: string, style: TextStyle = {}): number {
    const size = style.size ?? 10;
    // Measuring prints nothing: the characters `clean` cannot print are counted when the paragraph is drawn.
    const unprintable = this.unprintable;
    const lines = this.wrap(text, CONTENT_WIDTH - (style.indent ?? 0), style.bold ? this.fonts.bold : this.fonts.regular, size).length;
    this.unprintable = unprintable;
    return lines * size * 1.4;
  }

  /** The points `block(height, …)` takes down the page (the block and the space under it). */
  blockHeight(height: number): number {
    return height + BLOCK_SPACE;
  }

  gap(points: number): void {
    this.y -= points;
  }

  /** Printable text: line breaks and tabs as spaces, control characters dropped, unsupported characters as "?". */
  clean(text: string): string {
    let out = "";
    for (const ch of text.replace(/[\r\n\t]+/g, " ")) {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
      if (this.supported.has(cp)) out += ch;
      else {
        out += "?";
        this.unprintable += 1;
      }
    }
    return out;
  }

  /** The width of `text` in points (what `font.widthOfTextAtSize` says, without laying the text out each time). */
  measure(text: string, font: PDFFont, size: number): number {
    let widths = this.advances.get(font);
    if (!widths) this.advances.set(font, (widths = new Map()));
    let total = 0;
    for (const ch of text) {
      let w = widths.get(ch);
      if (w === undefined) widths.set(ch, (w = font.widthOfTextAtSize(ch, 1)));
      total += w;
    }
    return total * size;
  }

  /** Lines of at most `width` points; a word longer than a line (a hash, a URL) is cut where it must. */
  wrap(text: string, width: number, font: PDFFont, size: number): string[] {
    const lines: string[] = [];
    let line = "";
    for (const word of this.clean(text).split(" ")) {
      const candidate = line === "" ? word : `${line} ${word}`;
      if (this.measure(candidate, font, size) <= width) {
        line = candidate;
        continue;
      }
      if (line !== "") lines.push(line);
      line = word;
      while (this.measure(line, font, size) > width) {
        // The longest prefix that fits (at least one character), by bisection: a 2 000-character token stays cheap.
        let [fits, over] = [1, line.length];
        while (over - fits > 1) {
          const mid = (fits + over) >> 1;
          if (this.measure(line.slice(0, mid), font, size) <= width) fits = mid;
          else over = mid;
        }
        const cut = fits;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    if (line !== "" || lines.length === 0) lines.push(line);
    return lines;
  }

  paragraph(text: string, style: TextStyle = {}): void {
    const size = style.size ?? 10;
    const font = style.bold ? this.fonts.bold : this.fonts.regular;
    const indent = style.indent ?? 0;
    for (const line of this.wrap(text, CONTENT_WIDTH - indent, font, size)) {
      this.ensure(size * 1.4);
      this.y -= size * 1.15;
      this.page.drawText(line, { x: MARGIN + indent, y: this.y, size, font, color: style.color ?? INK });
      this.place(line, this.y + size, this.y);
      this.y -= size * 0.25;
    }
  }

  /** A section title, kept with the first lines after it. */
  heading(text: string, size = 13): void {
    this.ensure(size * 1.6 + 60);
    this.gap(size * 0.9);
    this.paragraph(text, { size, bold: true });
    this.page.drawLine({ start: { x: MARGIN, y: this.y - 2 }, end: { x: MARGIN + CONTENT_WIDTH, y: this.y - 2 }, thickness: 0.6, color: RULE });
    this.gap(8);
  }

  /** A label and its value on one row, the value wrapped in its column. */
  field(label: string, value: string, style: { size?: number } = {}): void {
    const size = style.size ?? 9.5;
    const lines = this.wrap(value === "" ? "-" : value, CONTENT_WIDTH - LABEL_WIDTH, this.fonts.regular, size);
    this.ensure(size * 1.4 * Math.min(lines.length, 3));
    const labelLines = this.wrap(label, LABEL_WIDTH - 8, this.fonts.bold, size);
    const rows = Math.max(lines.length, labelLines.length);
    for (let i = 0; i < rows; i++) {
      this.ensure(size * 1.4);
      this.y -= size * 1.15;
      if (labelLines[i]) this.page.drawText(labelLines[i]!, { x: MARGIN, y: this.y, size, font: this.fonts.bold, color: MUTED });
      if (lines[i]) this.page.drawText(lines[i]!, { x: MARGIN + LABEL_WIDTH, y: this.y, size, font: this.fonts.regular, color: INK });
      if (labelLines[i]) this.place(labelLines[i]!, this.y + size, this.y);
      if (lines[i]) this.place(lines[i]!, this.y + size, this.y);
      this.y -= size * 0.3;
    }
  }

  /** A block `height` points tall, drawn by `draw(x, bottomY)` at the left margin (plus `indent`); `name` says what it is in `placed`. */
  block(height: number, draw: (x: number, bottom: number) => void, indent = 0, name = "block"): void {
    this.ensure(this.blockHeight(height));
    this.y -= height;
    draw(MARGIN + indent, this.y);
    this.placed.push({ page: this.pageIndex, top: this.y + height, bottom: this.y, what: `[${name}]`, block: true });
    this.y -= BLOCK_SPACE;
  }

  /** The size `image(image, maxWidth, maxHeight)` draws it at. */
  imageSize(image: PDFImage, maxWidth: number, maxHeight: number): { width: number; height: number } {
    const scale = Math.min(maxWidth / image.width, maxHeight / image.height, 1.5);
    return { width: image.width * scale, height: image.height * scale };
  }

  /** The points a section title takes down the page (`heading`), without the lines it keeps after it. */
  headingHeight(text: string, size = 13): number {
    return size * 0.9 + this.paragraphHeight(text, { size, bold: true }) + 8;
  }

  image(image: PDFImage, maxWidth: number, maxHeight: number): void {
    const { width, height } = this.imageSize(image, maxWidth, maxHeight);
    this.block(
      height,
      (x, bottom) => {
        this.page.drawImage(image, { x, y: bottom, width, height });
        this.page.drawRectangle({ x, y: bottom, width, height, borderColor: RULE, borderWidth: 0.5 });
      },
      0,
      "image",
    );
  }

  /** Every line of text drawn, in order (a field's label and its value each a line of their own): what the report says, as a reader sees it. */
  get printed(): string[] {
    return this.placed.filter((p) => !p.block).map((p) => p.what);
  }

  private place(what: string, top: number, bottom: number, page = this.pageIndex): void {
    this.placed.push({ page, top, bottom, what });
  }

  /** `label` and the page number at the foot of every page, and `note`, when given, on a line under it. */
  footers(label: string, note?: string): void {
    const pages = this.doc.getPages();
    pages.forEach((page, i) => {
      const text = this.clean(`${label} · page ${i + 1} of ${pages.length}`);
      page.drawText(text, { x: MARGIN, y: MARGIN - 14, size: 7.5, font: this.fonts.regular, color: MUTED });
      this.place(text, MARGIN - 14 + 7.5, MARGIN - 14, i);
      if (note === undefined) return;
      const under = this.clean(note);
      page.drawText(under, { x: MARGIN, y: MARGIN - 24, size: 7.5, font: this.fonts.regular, color: MUTED });
      this.place(under, MARGIN - 24 + 7.5, MARGIN - 24, i);
    });
  }
}
