/*
 * Work captured on this device and not yet accepted by the server, kept in IndexedDB (same origin
 * only) so that a reload, a crash or a dead battery loses nothing. In-app browsers and private modes
 * may refuse storage: then the queue lives in memory only, and the server's state is what resumes.
 */
import type { Pending } from "./flow";
import type { CaptureIntegrityV1, PendingIntegrity } from "../../src/schemas/capture-integrity";

interface JobBase {
  id: string;
  verification_id: string;
  created_at: number;
}

export interface CaptureJob extends JobBase {
  kind: "capture";
  step_key: string;
  content_type: string;
  bytes: ArrayBuffer;
  sha256: string;
  client_captured_at: number;
  location?: { lat: number; lng: number; accuracy_m?: number };
  /**
   * The burst around the shutter (live photos only), without its nonce until it is sent. A job an
   * earlier version of the page queued may hold that version's record.
   */
  capture_integrity?: PendingIntegrity | CaptureIntegrityV1;
  /** Set once an upload URL was minted; `uploaded` once its PUT succeeded. */
  image_key?: string;
  upload_url?: string;
  upload_expires_at?: number;
  uploaded?: boolean;
}

export interface AnswerJob extends JobBase {
  kind: "answer";
  step_key: string;
  value: string;
}

export interface SubmitJob extends JobBase {
  kind: "submit";
}

export type Job = CaptureJob | AnswerJob | SubmitJob;
export type NewJob = Omit<CaptureJob, keyof JobBase> | Omit<AnswerJob, keyof JobBase> | Omit<SubmitJob, keyof JobBase>;

const DB_NAME = "capture-page";
const STORE = "jobs";
/** Verifications expire within 30 days; anything older is leftover from another link. */
const MAX_AGE_MS = 31 * 24 * 3600 * 1000;

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function openDb(): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    try {
      const req = indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "id" });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
      req.onblocked = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
}

let sequence = 0;

export class JobQueue {
  private jobs: Job[] = [];
  private db: IDBDatabase | null = null;
  private listeners = new Set<() => void>();

  private constructor(readonly verificationId: string) {}

  /** Opens the queue of one verification, with whatever an earlier visit left unsent. */
  static async open(verificationId: string): Promise<JobQueue> {
    const queue = new JobQueue(verificationId);
    queue.db = typeof indexedDB === "undefined" ? null : await openDb();
    if (queue.db) {
      try {
        const all = (await request(queue.db.transaction(STORE).objectStore(STORE).getAll())) as Job[];
        const now = Date.now();
        for (const job of all) {
          if (now - job.created_at > MAX_AGE_MS) void queue.persist((s) => s.delete(job.id));
        }
        queue.jobs = all.filter((j) => j.verification_id === verificationId).sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
      } catch {
        queue.db = null;
      }
    }
    return queue;
  }

  get durable(): boolean {
    return this.db !== null;
  }

  list(): readonly Job[] {
    return this.jobs;
  }

  /** What is queued, per step, for the flow rules. */
  pending(): Pending {
    const captures = new Map<string, number>();
    const answers = new Set<string>();
    let submit = false;
    for (const job of this.jobs) {
      if (job.kind === "capture") captures.set(job.step_key, (captures.get(job.step_key) ?? 0) + 1);
      else if (job.kind === "answer") answers.add(job.step_key);
      else submit = true;
    }
    return { captures, answers, submit };
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  async add(fields: NewJob): Promise<Job> {
    const now = Date.now();
    sequence += 1;
    const job = { ...fields, id: `${now.toString(36)}-${sequence}-${Math.random().toString(36).slice(2, 8)}`, verification_id: this.verificationId, created_at: now } as Job;
    this.jobs.push(job);
    await this.persist((s) => s.put(job));
    this.changed();
    return job;
  }

  async update(job: Job): Promise<void> {
    await this.persist((s) => s.put(job));
  }

  /** Drops the job from the list before it returns (synchronously); the promise is the store's delete. */
  async remove(id: string): Promise<void> {
    this.jobs = this.jobs.filter((j) => j.id !== id);
    await this.persist((s) => s.delete(id));
    this.changed();
  }

  async clear(): Promise<void> {
    const ids = this.jobs.map((j) => j.id);
    this.jobs = [];
    await this.persist((s) => {
      for (const id of ids) s.delete(id);
      return s.count();
    });
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Best effort: a storage failure (quota, a browser that revokes access) degrades to memory only. */
  private async persist(op: (store: IDBObjectStore) => IDBRequest): Promise<void> {
    if (!this.db) return;
    try {
      const tx = this.db.transaction(STORE, "readwrite");
      op(tx.objectStore(STORE));
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      });
    } catch {
      this.db = null;
    }
  }
}
