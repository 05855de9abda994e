import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof newDb>;

/**
 * Without `{ schema }`: the service builds every query with the query builder and never uses
 * drizzle's relational API (`db.query.*`), whose config drizzle derives from the whole schema on
 * every `drizzle()` call — more CPU than the queries of a request (bench/profile.ts), paid again by
 * every new Durable Object.
 */
function newDb(d1: D1Database) {
  return drizzle(d1);
}

/** The drizzle client of a D1 binding, built once per binding. */
const clients = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) {
    db = newDb(d1);
    clients.set(d1, db);
  }
  return db;
}

export { schema };
