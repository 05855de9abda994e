/**
 * `signed` (a signed token, or a URL or path ending in one) with one character of its signature
 * changed: ten from the end, well inside a base64url signature. The last character carries padding
 * bits, so changing the end alone can decode to the same signature and the token still verify.
 */
export function tamperSignature(signed: string): string {
  const at = signed.length - 10;
  return signed.slice(0, at) + (signed[at] === "A" ? "B" : "A") + signed.slice(at + 1);
}
