import { Hono } from "hono";

/** The create floor: Hono's hello world, answering the create request without doing anything. */
const app = new Hono();
app.post("/v1/verifications", (c) => c.json({ hello: "world" }, 201));

export default app;
