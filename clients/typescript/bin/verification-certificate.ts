#!/usr/bin/env node
// `npx verification-certificate verify cert.jws [photo …] --issuer URL` (see ../src/cli.ts; Node 22.18+ runs it as it is).
import { main } from "../src/cli.ts";

process.exitCode = await main(process.argv.slice(2));
