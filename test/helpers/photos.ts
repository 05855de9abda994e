import { env } from "cloudflare:workers";

/** A committed real-photo sample (test/fixtures/photos), served by the loopback fakes. */
export async function samplePhoto(name: string): Promise<Uint8Array> {
  return fetchPhoto(`sample/${name}`);
}

/** A large input made from a Debian package's photograph (scripts/real-photos.ts; slow the first time). */
export async function preparedPhoto(name: string): Promise<Uint8Array> {
  return fetchPhoto(`prepared/${name}`);
}

async function fetchPhoto(path: string): Promise<Uint8Array> {
  const res = await fetch(`${env.FAKES_URL}/photos/${path}`);
  if (!res.ok) throw new Error(`photo ${path}: HTTP ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}
