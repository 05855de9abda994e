/**
 * Key-reference captures for the capture benchmarks, as end users make them: each client of the
 * load is one person on one verification (its own client address), capturing one photo after the
 * other until the verification is full, then moving on to a new one. Before every phase each
 * client gets the captures it can make in it: for the project, upload URLs minted through the API
 * and the 1.5 MB JPEG put where they point: into R2 from here, as the browser's PUT to R2 would
 * (`direct`), or by a PUT to the Worker's upload URL, as on a deployment without R2 credentials and
 * on `npm start` (`proxied`); for the
 * floor, the same bytes put under the client's own floor verification (floor and project never
 * touch the same verification). Verifications are created through the API.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Job } from "./measure";
import { benchPhoto } from "./photo";
import { API_WORKER, type Runtime } from "./runtime";

export const CAPTURES_PER_VERIFICATION = 20;

/** The API Worker's vars for direct mode (presigned URLs for R2, never used: the bench puts the bytes). */
export const DIRECT_MODE = { UPLOAD_MODE: "direct", R2_ACCOUNT_ID: "bench", R2_ACCESS_KEY_ID: "bench", R2_SECRET_ACCESS_KEY: "bench", R2_BUCKET_NAME: "verification-evidence-local" };

export type Side = "project" | "floor";

/** How the photo's bytes reach R2 before the capture: straight (presigned URL) or through the Worker. */
export type UploadPath = "direct" | "proxied";

/** The API Worker's vars for an upload path. */
export const UPLOAD_VARS: Record<UploadPath, Record<string, string>> = { direct: DIRECT_MODE, proxied: {} };

interface Person {
  id: string;
  ip: string;
  /** capture slots of the current verification already handed out */
  used: number;
}

export async function captureJobs(rt: Runtime, upload: UploadPath = "direct") {
  const photo = benchPhoto();
  const sha256 = createHash("sha256").update(photo.bytes).digest("hex");
  const api = rt.urls[API_WORKER]!;
  const bases: Record<Side, string | undefined> = { project: api, floor: rt.urls["bench-floor"] };
  const bucket = await rt.bucket();
  const people: Record<Side, Person[]> = { project: [], floor: [] };
  let addresses = 0;

  async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ id: string; image_key: string; upload_url: string }> {
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  }

  async function newPerson(): Promise<Person> {
    const v = await post(`${api}/v1/verifications`, { max_captures: CAPTURES_PER_VERIFICATION }, { Authorization: `Bearer ${rt.secrets.DEV_API_KEY}` });
    addresses += 1;
    return { id: v.id, ip: `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`, used: 0 };
  }

  /** Uploads one photo for `person`'s next capture, the way `side` receives it. */
  async function stage(side: Side, person: Person): Promise<Job> {
    let key: string;
    if (side === "project") {
      const minted = await post(`${api}/v1/verifications/${person.id}/captures/upload-url`, { content_type: "image/jpeg" }, { "CF-Connecting-IP": person.ip });
      key = minted.image_key;
      if (upload === "proxied") {
        const put = await fetch(minted.upload_url, { method: "PUT", headers: { "Content-Type": "image/jpeg", "CF-Connecting-IP": person.ip }, body: photo.bytes });
        await put.arrayBuffer();
        if (!put.ok) throw new Error(`PUT ${minted.upload_url}: ${put.status}`);
      } else {
        await bucket.put(key, photo.bytes, { httpMetadata: { contentType: "image/jpeg" } });
      }
    } else {
      key = `verifications/${person.id}/flr_${randomBytes(8).toString("hex")}`;
      await bucket.put(key, photo.bytes, { httpMetadata: { contentType: "image/jpeg" } });
    }
    person.used += 1;
    return {
      url: `${bases[side]}/v1/verifications/${person.id}/captures`,
      init: { method: "POST", headers: { "Content-Type": "application/json", "CF-Connecting-IP": person.ip }, body: JSON.stringify({ image_key: key, image_sha256: sha256 }) },
      expect: 201,
    };
  }

  /** One upload URL minted for `person` (untimed), and its PUT of the photo as the job. */
  async function stageUpload(person: Person): Promise<Job> {
    const minted = await post(`${api}/v1/verifications/${person.id}/captures/upload-url`, { content_type: "image/jpeg" }, { "CF-Connecting-IP": person.ip });
    person.used += 1;
    return { url: minted.upload_url, init: { method: "PUT", headers: { "Content-Type": "image/jpeg", "CF-Connecting-IP": person.ip }, body: photo.bytes }, expect: 200 };
  }

  return {
    /** `perClient` upload-URL requests of each of `clients` people (at most 20 per verification: the open-URL cap is 40). */
    async prepareMints(clients: number, perClient: number): Promise<(client: number) => Job | undefined> {
      const queues = await Promise.all(
        Array.from({ length: clients }, async () => {
          const jobs: Job[] = [];
          let person = await newPerson();
          for (let n = 0; n < perClient; n += 1) {
            if (person.used >= CAPTURES_PER_VERIFICATION) person = await newPerson();
            person.used += 1;
            const body = JSON.stringify({ content_type: "image/jpeg" });
            jobs.push({ url: `${api}/v1/verifications/${person.id}/captures/upload-url`, init: { method: "POST", headers: { "Content-Type": "application/json", "CF-Connecting-IP": person.ip }, body }, expect: 200 });
          }
          return jobs;
        }),
      );
      const next = queues.map(() => 0);
      return (client) => queues[client]![next[client]!++];
    },
    /** The next `perClient` upload PUTs (Worker-proxied uploads) of each of `clients` people, their URLs minted beforehand. */
    async prepareUploads(clients: number, perClient: number): Promise<(client: number) => Job | undefined> {
      while (people.project.length < clients) people.project.push(await newPerson());
      const queues = await Promise.all(
        people.project.slice(0, clients).map(async (_, i) => {
          const jobs: Job[] = [];
          for (let n = 0; n < perClient; n += 1) {
            // A verification holds at most twice its free capture slots in open upload URLs.
            if (people.project[i]!.used >= CAPTURES_PER_VERIFICATION) people.project[i] = await newPerson();
            jobs.push(await stageUpload(people.project[i]!));
          }
          return jobs;
        }),
      );
      const next = queues.map(() => 0);
      return (client) => queues[client]![next[client]!++];
    },
    /**
     * The next `perClient` captures of each of `clients` people on `side`, in order; a person whose
     * verification is full moves to a new one (left-over staged uploads of a phase stay unused).
     */
    async prepare(side: Side, clients: number, perClient: number): Promise<(client: number) => Job | undefined> {
      if (!bases[side]) throw new Error(`the runtime has no ${side} Worker`);
      while (people[side].length < clients) people[side].push(await newPerson());
      const queues = await Promise.all(
        people[side].slice(0, clients).map(async (_, i) => {
          const jobs: Job[] = [];
          for (let n = 0; n < perClient; n += 1) {
            if (people[side][i]!.used >= CAPTURES_PER_VERIFICATION) people[side][i] = await newPerson();
            jobs.push(await stage(side, people[side][i]!));
          }
          return jobs;
        }),
      );
      const next = queues.map(() => 0);
      return (client) => queues[client]![next[client]!++];
    },
  };
}
