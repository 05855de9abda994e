import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Read access to a fetched repository snapshot (a bare git directory). */
export class Snapshot {
  constructor(readonly gitDir: string) {}

  get present(): boolean {
    return existsSync(this.gitDir);
  }

  hasCommit(commit: string): boolean {
    try {
      this.git(["cat-file", "-e", `${commit}^{commit}`]);
      return true;
    } catch {
      return false;
    }
  }

  /** Paths of blobs under `folder` at `commit`. */
  files(commit: string, folder: string): string[] {
    const out = this.git(["ls-tree", "-r", "-z", "--name-only", commit, "--", folder]).toString("utf8");
    return out.split("\0").filter(Boolean);
  }

  /** The file's bytes, or null when the snapshot lacks them (files ≥ 4 MiB are left out of snapshots). */
  read(commit: string, path: string): Buffer | null {
    try {
      return this.git(["cat-file", "blob", `${commit}:${path}`]);
    } catch {
      return null;
    }
  }

  private git(args: string[]): Buffer {
    return execFileSync("git", [`--git-dir=${this.gitDir}`, ...args], { maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
  }
}
