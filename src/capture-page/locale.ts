import { en, type Strings } from "./strings/en";
import { es } from "./strings/es";

/** Every locale the capture page speaks; English is the fallback. */
export const CATALOGS: Readonly<Record<string, Strings>> = { en, es };
export const DEFAULT_LOCALE = "en";

/**
 * Picks the best supported locale for an `Accept-Language` header (RFC 9110 quality values; a
 * regional tag such as `es-MX` matches its language). English when nothing matches.
 */
export function negotiateLocale(header: string | null | undefined, supported: readonly string[] = Object.keys(CATALOGS)): string {
  if (!header) return DEFAULT_LOCALE;
  const ranges = header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const quality = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim().toLowerCase(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.tag !== "" && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const { tag } of ranges) {
    if (tag === "*") return DEFAULT_LOCALE;
    const language = tag.split("-")[0]!;
    if (supported.includes(tag)) return tag;
    if (supported.includes(language)) return language;
  }
  return DEFAULT_LOCALE;
}
