import type { StringKey, Strings } from "../../src/capture-page/strings/en";

/** The page's words in the locale the server chose from Accept-Language. */
export class I18n {
  private readonly plurals: Intl.PluralRules;

  constructor(
    readonly locale: string,
    private readonly strings: Strings,
  ) {
    this.plurals = new Intl.PluralRules(locale);
  }

  t(key: StringKey, vars: Record<string, string | number> = {}): string {
    return this.strings[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? this.format(vars[name]!) : whole));
  }

  /** `base_one` / `base_other` by the locale's plural rules. */
  plural(base: string, n: number, vars: Record<string, string | number> = {}): string {
    const form = `${base}_${this.plurals.select(n)}`;
    const key = (form in this.strings ? form : `${base}_other`) as StringKey;
    return this.t(key, { n, ...vars });
  }

  /** Decimal units, as phones show a file's size (1 MB = 1 000 000 bytes): a limit of 2 000 000 bytes reads "2 MB". */
  bytes(n: number): string {
    const units = ["B", "KB", "MB", "GB"];
    let value = n;
    let unit = 0;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit += 1;
    }
    return `${new Intl.NumberFormat(this.locale, { maximumFractionDigits: value < 10 && unit > 0 ? 1 : 0 }).format(value)} ${units[unit]}`;
  }

  /** Two sizes that must read as different (a file just over a limit): exact bytes when rounding hides it. */
  bytesPair(a: number, b: number): [string, string] {
    const [x, y] = [this.bytes(a), this.bytes(b)];
    if (x !== y || a === b) return [x, y];
    const exact = new Intl.NumberFormat(this.locale);
    return [`${exact.format(a)} B`, `${exact.format(b)} B`];
  }

  list(items: string[]): string {
    return typeof Intl.ListFormat === "function" ? new Intl.ListFormat(this.locale, { type: "disjunction" }).format(items) : items.join(", ");
  }

  private format(value: string | number): string {
    return typeof value === "number" ? new Intl.NumberFormat(this.locale).format(value) : value;
  }
}

const TYPE_NAMES: Record<string, string> = {
  "image/jpeg": "JPEG",
  "image/png": "PNG",
  "image/webp": "WebP",
  "image/heic": "HEIC",
  "image/heif": "HEIF",
};

export function typeName(mediaType: string): string {
  return TYPE_NAMES[mediaType] ?? mediaType;
}
