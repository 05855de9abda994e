import { chromium } from "playwright-core";
const base = process.env.BASE ?? "http://localhost:8793";
const paths = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
for (const [w, h, tag] of [[1440, 900, "desk"], [390, 844, "phone"]]) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.log("pageerror", e.message));
  page.on("console", (m) => { if (m.type() === "error") console.log("console", m.text()); });
  await page.goto(`${base}/v1/auth/dev/login?return_to=/console`);
  for (const p of paths) {
    await page.goto(`${base}${p}`);
    await page.waitForTimeout(1200);
    const name = p.replace(/[^a-z0-9]+/gi, "_");
    await page.screenshot({ path: `/tmp/shots/${tag}${name}.png`, fullPage: true });
  }
  await ctx.close();
}
await browser.close();
