import { defineConfig } from "drizzle-kit";

// drizzle-kit writes flat NNNN_name.sql files into migrations/, the folder wrangler applies
// (`wrangler d1 migrations apply`) and the tests load with readD1Migrations.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
  strict: true,
});
