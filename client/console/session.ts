import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "./api";

/** Who is signed in (GET /v1/me); the signed-in shell provides it, screens read it, Settings updates it. */
export interface SignedInSession {
  me: Me;
  setMe: (me: Me) => void;
}

export const Session = createContext<SignedInSession | null>(null);

export function useSession(): SignedInSession {
  const session = useContext(Session);
  if (!session) throw new Error("useSession outside the signed-in console");
  return session;
}
