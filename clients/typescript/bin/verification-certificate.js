#!/usr/bin/env node
// `verification-certificate verify <certificate> [photo …] --issuer URL`: the command of ../src/cli.ts,
// compiled to ../dist by build.mjs (npm pack and the repository's npm install run it). Plain
// JavaScript, so npm links it as the package's bin before any build and Node runs it without a loader.
import { main } from "../dist/cli.js";

process.exitCode = await main(process.argv.slice(2));
