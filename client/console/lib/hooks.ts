import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Loads again (keeps the current data on screen meanwhile). */
  reload: () => Promise<void>;
  /** Replaces the data with what a write answered, without a round trip. */
  set: (value: T) => void;
}

const asApiError = (err: unknown): ApiError =>
  err instanceof ApiError ? err : new ApiError(0, "error", err instanceof Error ? err.message : String(err));

/** Runs `load` when `deps` change; a newer load wins over a slower older one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
    } catch (err) {
      if (mine === generation.current) setError(asApiError(err));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void run();
  }, [run]);
  return { data, error, loading, reload: run, set: setData };
}

/** A write in progress and its outcome, for forms and buttons. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        return await action(...args);
      } catch (err) {
        setError(asApiError(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, busy, error, clearError: () => setError(undefined) };
}

/** Calls `tick` every `ms` while the page is visible and `active` holds. */
export function usePolling(tick: () => void | Promise<void>, ms: number, active: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = () => {
      timer = setTimeout(async () => {
        if (stopped) return;
        if (document.visibilityState === "visible") await latest.current();
        if (!stopped) schedule();
      }, ms);
    };
    schedule();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [ms, active]);
}

/**
 * Calls `refresh` when the operator comes back to this tab (it becomes visible, or its window gets
 * the focus): what another tab or member did meanwhile (a review, a finalize) is then on screen
 * before they act on a stale page. At most once a second.
 */
export function useRefreshOnReturn(refresh: () => void | Promise<void>): void {
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    let last = 0;
    const back = () => {
      if (document.visibilityState !== "visible" || Date.now() - last < 1_000) return;
      last = Date.now();
      void latest.current();
    };
    document.addEventListener("visibilitychange", back);
    window.addEventListener("focus", back);
    return () => {
      document.removeEventListener("visibilitychange", back);
      window.removeEventListener("focus", back);
    };
  }, []);
}

/** The document title for a screen. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Verification console`;
  }, [title]);
}

/**
 * Text an operator is writing (a review note, a narrative), kept in this tab's sessionStorage under
 * `key` until `clear()`: a session that ends sends the console to sign in and back, and a reload
 * loses the page, neither of which may lose what was typed. Storage refused: held in memory only.
 */
export function useDraft(key: string): [string, (value: string) => void, () => void] {
  const storageKey = `console-draft:${key}`;
  const [value, setValue] = useState(() => {
    try {
      return sessionStorage.getItem(storageKey) ?? "";
    } catch {
      return "";
    }
  });
  const keep = useCallback(
    (next: string) => {
      setValue(next);
      try {
        if (next === "") sessionStorage.removeItem(storageKey);
        else sessionStorage.setItem(storageKey, next);
      } catch {
        // Kept in memory only.
      }
    },
    [storageKey],
  );
  return [value, keep, useCallback(() => keep(""), [keep])];
}
